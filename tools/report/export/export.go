// Package export writes the report's directory: every format of its model
// (report.md, table.md and profile-diffs.md by package markdown,
// index.html by package page), each stage's flame graph and pprof's call
// graphs, the regressions' diff graphs, and summary.json (tools/summary),
// the comparison for other commands.
package export

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/report/markdown"
	"havlak-lab/tools/report/model"
	"havlak-lab/tools/report/page"
	"havlak-lab/tools/report/profiles"
	"havlak-lab/tools/summary"
)

// Files renders the report: its files' contents by their paths in the
// report's directory, and the summary that summary.json holds.
func Files(r *model.Report) (map[string][]byte, *summary.Summary, error) {
	var md, table, index, diffs strings.Builder
	markdown.WriteReport(&md, r)
	markdown.WriteTable(&table, r)
	markdown.WriteDiffSummary(&diffs, r)
	if err := page.Write(&index, r); err != nil {
		return nil, nil, err
	}
	s := Summary(r)
	sum, err := summary.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{
		"report.md":      []byte(md.String()),
		"table.md":       []byte(table.String()),
		"index.html":     []byte(index.String()),
		summary.FileName: sum,
	}
	if len(r.ProfileDiffs) > 0 {
		files[markdown.DiffsFile] = []byte(diffs.String())
	}
	for _, d := range r.ProfileDiffs {
		if d.Graph != "" {
			files[filepath.FromSlash(d.Graph)] = d.SVG
		}
	}
	for _, row := range r.Rows {
		addStage(files, row.Name, row.CPU, row.Name+": CPU time", row.Graphs)
	}
	for _, row := range r.Servers {
		addStage(files, row.Name, row.CPU, row.Name+": CPU time under load", row.Graphs)
	}
	return files, s, nil
}

// addStage adds a stage's files under stages/NAME/: the flame graph of its
// CPU profile, when it has one, titled title, and pprof's graphs.
func addStage(files map[string][]byte, name string, cpu *profile.Profile, title string, graphs map[string][]byte) {
	dir := filepath.Join("stages", name)
	if cpu != nil {
		files[filepath.Join(dir, "flame.svg")] = profiles.FlameGraph(cpu, title)
	}
	for file, data := range graphs {
		files[filepath.Join(dir, file)] = data
	}
}

// Write writes the report into a new directory beside outDir, then puts
// it in outDir's place, so that a failure never leaves half a report. It
// returns the summary it wrote (summary.json).
func Write(r *model.Report, outDir string) (*summary.Summary, error) {
	files, s, err := Files(r)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(outDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(outDir)+".new-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for name, data := range files {
		path := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}

	old := tmp + ".old"
	if err := os.Rename(outDir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.Rename(tmp, outDir); err != nil {
		return nil, err
	}
	return s, os.RemoveAll(old)
}
