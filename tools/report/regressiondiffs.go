package main

import (
	"fmt"
	"html/template"
	"io"
	"path"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/report/profilediff"
)

// diffFunctions is how many changed functions a regression's table shows;
// the annotation's summary names fewer.
const (
	diffFunctions        = 10
	diffSummaryFunctions = 3
)

// DiffsFile is the report's one-line-per-profile summary of the
// regressions' profile diffs, in Markdown, for the nightly job's
// annotation.
const DiffsFile = "profile-diffs.md"

// A RegressionDiff is one profile of a regressed benchmark against its
// baseline's: what pprof -diff_base shows.
type RegressionDiff struct {
	Benchmark string
	*profilediff.Diff
	// Graph is pprof's diff graph's path in the report, "" when it could
	// not be drawn.
	Graph string
	svg   []byte
}

// diffRegressions diffs the CPU and heap profiles of every regressed row
// with its baseline's. What cannot be diffed becomes a problem.
func diffRegressions(rows []*Row, report *Report) []RegressionDiff {
	var diffs []RegressionDiff
	for _, row := range rows {
		if row.Compared == nil || row.Compared.Baseline == nil {
			continue
		}
		base := row.Compared.Baseline
		for _, kind := range []struct {
			name      string
			base, new *profile.Profile
		}{{"cpu", base.CPU, row.CPU}, {"heap", base.Heap, row.Heap}} {
			if kind.base == nil || kind.new == nil {
				continue
			}
			d, err := profilediff.Compute(kind.name, kind.base, kind.new)
			if err != nil {
				report.Problems = append(report.Problems, fmt.Sprintf("%s: the %s profile diff: %v", row.Name, kind.name, err))
				continue
			}
			rd := RegressionDiff{Benchmark: row.Name, Diff: d}
			if rd.svg, err = profilediff.SVG(kind.name, kind.base, kind.new); err != nil {
				report.Problems = append(report.Problems, fmt.Sprintf("%s: the %s profile diff's graph: %v", row.Name, kind.name, err))
			} else {
				rd.Graph = path.Join("stages", row.Name, kind.name+".diff.svg")
			}
			diffs = append(diffs, rd)
		}
	}
	return diffs
}

// Rows are the functions the tables show.
func (d RegressionDiff) Rows() []profilediff.Func { return d.Top(diffFunctions) }

// writeProfileDiffs writes report.md's section of the regressions'
// profile diffs.
func (r *Report) writeProfileDiffs(w io.Writer) {
	if len(r.ProfileDiffs) == 0 {
		return
	}
	fmt.Fprintln(w, "\n## What changed in the profiles of the regressions")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "pprof -diff_base: each function's weight in the new profile minus the baseline's; the %d largest changes of flat weight (the function itself running), with their cumulative change (on the stack), as a share of the baseline's total.\n", diffFunctions)
	for _, d := range r.ProfileDiffs {
		fmt.Fprintf(w, "\n### %s: %s\n\n", d.Benchmark, d.Profile)
		d.WriteMarkdown(w, diffFunctions)
		if d.Graph != "" {
			fmt.Fprintf(w, "\n[pprof's diff graph](%s) (red grew, green shrank)\n", d.Graph)
		}
	}
}

// WriteDiffSummary writes DiffsFile: a line per diff.
func (r *Report) WriteDiffSummary(w io.Writer) {
	for _, d := range r.ProfileDiffs {
		fmt.Fprintf(w, "- %s: %s\n", d.Benchmark, d.Summary(diffSummaryFunctions))
	}
}

var diffSection = template.Must(template.New("diffs").Parse(`{{if .}}<h2>What changed in the profiles of the regressions</h2>
<p class="note">pprof -diff_base: each function's weight in the new profile minus the baseline's, by the size of the change of its flat weight; shares of the baseline's total.</p>
{{range .}}<h3>{{.Benchmark}}: {{.Profile}} ({{.SampleType}} {{.Value .Base false}} → {{.Value .New false}})</h3>
<div class="wide"><table class="profile-diff" data-stage="{{.Benchmark}}" data-profile="{{.Profile}}">
<thead><tr><th>function</th><th>flat Δ</th><th>flat Δ %</th><th>cum Δ</th><th>cum Δ %</th></tr></thead>
<tbody>{{$d := .}}{{range .Rows}}<tr><td class="text">{{.Name}}</td><td>{{$d.Value .Flat true}}</td><td>{{$d.Share .Flat}}</td><td>{{$d.Value .Cum true}}</td><td>{{$d.Share .Cum}}</td></tr>
{{end}}</tbody></table></div>
{{with .Graph}}<p><a href="{{.}}">pprof's diff graph</a> (red grew, green shrank)</p>{{end}}
{{end}}{{end}}`))

// ProfileDiffSections is the page's section of the regressions' profile
// diffs, for its template.
func (r *Report) ProfileDiffSections() (template.HTML, error) {
	var b strings.Builder
	if err := diffSection.Execute(&b, r.ProfileDiffs); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
