// Package export writes the report's directory: every format of its model
// (report.md, table.md and profile-diffs.md by package markdown,
// index.html by package page), each stage's flame graph and pprof's call
// graphs, the regressions' diff graphs, and summary.json (tools/summary),
// the comparison for other commands.
package export

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/reporting/markdown"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/reporting/page"
	"havlak-lab/tools/reporting/profiles"
	"havlak-lab/tools/summary"
)

// Files renders the report's documents: their contents by their paths in
// the report's directory (the regressions' diff graphs among them), and
// the summary that summary.json holds. The stages' flame graphs and
// pprof's graphs are Write's, drawn and copied one at a time.
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
	return files, s, nil
}

// writeStages writes each stage's files under dir/stages/NAME/: the flame
// graph of its CPU profile, when it has one, and pprof's graphs, copied
// from the result's outputs. One stage at a time, one file at a time: the
// results' profiles and graphs are never in memory together.
func writeStages(r *model.Report, dir string) error {
	for _, row := range r.Rows {
		if err := writeStage(dir, row.Name, &row.Files, row.Name+": CPU time"); err != nil {
			return err
		}
	}
	for _, row := range r.Servers {
		if err := writeStage(dir, row.Name, &row.Files, row.Name+": CPU time under load"); err != nil {
			return err
		}
	}
	return nil
}

// writeStage writes a stage's files, the flame graph titled title.
func writeStage(dir, name string, files *model.Files, title string) error {
	dir = filepath.Join(dir, filepath.FromSlash(nightdir.Stage(name)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if files.CPUTop != nil {
		cpu, err := files.Profile("cpu")
		if err != nil {
			return err
		}
		if cpu != nil {
			if err := os.WriteFile(filepath.Join(dir, "flame.svg"), profiles.FlameGraph(cpu, title), 0o644); err != nil {
				return err
			}
		}
	}
	for _, graph := range files.Graphs {
		if err := copyGraph(files, graph, filepath.Join(dir, graph)); err != nil {
			return err
		}
	}
	return nil
}

// copyGraph copies the graph name of files to path.
func copyGraph(files *model.Files, name, path string) error {
	in, err := files.OpenGraph(name)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
	if err := writeStages(r, tmp); err != nil {
		return nil, err
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
