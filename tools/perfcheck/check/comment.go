package check

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/markdown"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/profilediff"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// CommentFile is the pull request's comment, in Markdown.
const CommentFile = "pr-comment.md"

// CommentLimit is GitHub's limit on a comment, in characters, less room
// for the note that says what was cut.
const CommentLimit = 65536 - 512

// WriteComment writes the comment of a check: its verdict; the gate edits,
// and what the change's own tools would say (Plan.OwnView); a table of
// the measured benchmarks, regressions, missing ones and improvements
// first (summary.Table.Notable), the quiet ones collapsed, each row saying what
// happened to each of its gated figures
// (summary.Benchmark.FiguresMarkdown, with the evidence) and its name
// linking to the dashboard's compare page of pair when it has one; the
// ones not measured, collapsed, after those never measured, named with why
// in the open (Plan.NotMeasured); what changed in the regressions' profiles. Past limit characters the collapsed lists, then
// the table, are cut, saying how many rows are left out (summary.json has
// them all). After the table, folded, what each measured benchmark's
// gated figures can see (seesBlock): cut before the list of those not
// measured, which the table's rows already outrank. Right after the
// table, where each regressed or improved counted figure's change went
// (Plan.Attributions), in at most a quarter of limit.
func WriteComment(w io.Writer, s *summary.Summary, plan Plan, pair summary.Pair, limit int) {
	var head strings.Builder
	failing := s.Regressed()
	switch {
	case len(failing) > 0 || len(s.Unreadable) > 0:
		fmt.Fprintf(&head, "### :x: Perf check: %d of %d measured benchmarks regressed or are missing\n\n", len(failing), len(s.Benchmarks))
	case len(plan.Changed) == 0 && len(plan.Removed) == 0:
		head.WriteString("### :white_check_mark: Perf check: no benchmark can be affected\n\n")
	default:
		head.WriteString("### :white_check_mark: Perf check: no regression\n\n")
	}
	if len(plan.GateEdits) > 0 {
		fmt.Fprintf(&head, "**This change edits the gate** (%s): it was measured and judged by the base's tools, as every change is; its own copies decided nothing.\n\n",
			markdown.Escape(strings.Join(plan.GateEdits, ", ")))
	}
	writeOwnView(&head, s, plan.OwnView)
	fmt.Fprintf(&head, "Against the base `%s`: %d benchmarks changed and measured (their quick workload, counted figures judged by the gate's rule), "+
		"%d unchanged: same binary and run, not measured", gitwork.Short(s.Baseline), len(plan.Changed), len(plan.Unchanged))
	if len(plan.NotReached) > 0 {
		fmt.Fprintf(&head, "; %d not built: no file they depend on changed", len(plan.NotReached))
	}
	head.WriteString(".")
	if plan.Everything != "" {
		fmt.Fprintf(&head, " Every benchmark was built: %s.", markdown.Escape(plan.Everything))
	}
	if len(plan.Added) > 0 {
		fmt.Fprintf(&head, " New: %s.", markdown.Escape(strings.Join(plan.Added, ", ")))
	}
	head.WriteString("\n")
	head.WriteString(notMeasuredBlock(plan.NotMeasured, limit/8))

	table := s.Table()
	notable, quietOnes := table.Notable()
	first, quiet := commentRows(notable, pair), commentRows(quietOnes, pair)
	var tail strings.Builder
	for _, d := range s.ProfileDiffs {
		fmt.Fprintf(&tail, "- %s: %s\n", markdown.Escape(d.Benchmark), d.Summary(3))
	}
	for _, u := range s.Unreadable {
		fmt.Fprintf(&tail, "- unreadable: %s\n", markdown.Escape(u))
	}

	where := attributionsBlock(plan.Attributions, limit/4)
	budget := limit - head.Len() - tail.Len() - len(where) - 600
	const header = "\n| benchmark | verdict | counted figures, each with its verdict |\n|---|---|---|\n"
	firstTable := cut(first, budget-len(header))
	budget -= len(header) + len(firstTable)
	quietTable := cut(quiet, budget-len(header)-100)
	budget -= len(header) + len(quietTable) + 100
	sees := seesBlock(table.Benchmarks, budget-100)
	budget -= len(sees)
	var notMeasured []string
	for _, name := range plan.Unchanged {
		notMeasured = append(notMeasured, "- "+markdown.Escape(name)+": same binary and run at the base")
	}
	for _, name := range plan.NotReached {
		notMeasured = append(notMeasured, "- "+markdown.Escape(name)+": not built, no file it depends on changed")
	}
	unchangedList := cut(notMeasured, budget-100)

	io.WriteString(w, head.String())
	if firstTable != "" {
		io.WriteString(w, header+firstTable)
	}
	io.WriteString(w, where)
	if quietTable != "" {
		fmt.Fprintf(w, "\n<details><summary>%d measured, unchanged within the noise</summary>\n%s%s\n</details>\n", len(quiet), header, quietTable)
	}
	io.WriteString(w, sees)
	if unchangedList != "" {
		fmt.Fprintf(w, "\n<details><summary>%d not measured</summary>\n\n%s\n</details>\n", len(notMeasured), unchangedList)
	}
	if tail.Len() > 0 {
		fmt.Fprintf(w, "\n**What changed in the profiles** (pprof -diff_base):\n\n%s", tail.String())
	}
}

// notMeasuredBlock names the benchmarks no gate can count or judge,
// whatever the change, each with why its declaration says (Plan's
// NotMeasured), in at most budget bytes: shown, never folded, as these are
// the benchmarks a reader could take for measured.
func notMeasuredBlock(not []perfspec.NotMeasured, budget int) string {
	if len(not) == 0 {
		return ""
	}
	lines := make([]string, 0, len(not))
	for _, n := range not {
		lines = append(lines, "- "+markdown.Escape(n.String()))
	}
	head := fmt.Sprintf("\n**%d never measured**: nothing counts them for a gate to judge, whatever the change; their declarations say why:\n\n", len(not))
	return head + cutSaying(lines, budget-len(head), "the check's log names them all")
}

// commentRows are the comment's table rows of benchmarks, one each, in
// their order.
func commentRows(benchmarks []summary.Benchmark, pair summary.Pair) []string {
	rows := make([]string, 0, len(benchmarks))
	for _, b := range benchmarks {
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", pair.Link(b.Name), b.Label(), b.FiguresMarkdown(true)))
	}
	return rows
}

// attributionsBlock says where the figures' changes went (Attributed), in
// at most budget bytes.
func attributionsBlock(attributions []Attributed, budget int) string {
	var each []string
	for _, a := range attributions {
		each = append(each, a.Markdown())
	}
	if len(each) == 0 {
		return ""
	}
	const head = "\n**Where the changes went** (Cachegrind's counts per line and the change's diff; information, not the verdict):\n\n"
	return head + cutSaying(each, budget-len(head), "the results' line counts have them all")
}

// cut joins lines, one a line, while they fit in budget bytes, then says
// how many it left out.
func cut(lines []string, budget int) string {
	return cutSaying(lines, budget, "summary.json has them all")
}

// cutSaying is cut, saying where the lines left out can be read.
func cutSaying(lines []string, budget int, where string) string {
	var b strings.Builder
	for i, line := range lines {
		if b.Len()+len(line)+1 > budget {
			fmt.Fprintf(&b, "\n… and %d more (%s)\n", len(lines)-i, where)
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// A Measured is a result and its files, as result.Read gives them.
type Measured struct {
	*result.Result
	Outputs result.Outputs
	// Layout, of the base, has its figures' medians in its count and its
	// layout variants' (ReadLayout).
	Layout map[result.FigureKey][]float64
}

// ProfileDiffs is pprof's diff of what a failing benchmark ran at the
// change against the base, following the figures that failed: when both
// sides counted under Cachegrind, a diff per failing figure Cachegrind
// counts, of that figure's events in each function
// (cachegrind.Counts.FigureProfile: a cache regression on its misses, not
// on instructions; a Go program's own figures without the runtime's
// functions, as the figures leave them out), or, when none of its failing
// figures is Cachegrind's, of its gated instructions; else their CPU
// profiles. What cannot be diffed is the error, beside the diffs that
// could.
func ProfileDiffs(b summary.Benchmark, base, change Measured) ([]summary.ProfileDiff, error) {
	var counts [2]cachegrind.Counts
	counted := true
	for i, m := range []Measured{base, change} {
		data, err := m.Outputs.ReadFile(countedFile)
		if err != nil {
			counted = false
			break
		}
		if counts[i], err = cachegrind.Parse(bytes.NewReader(data), m.Outputs.Path(countedFile)); err != nil {
			return nil, err
		}
	}
	if !counted {
		d, err := cpuDiff(b.Name, base, change)
		if err != nil {
			return nil, err
		}
		return []summary.ProfileDiff{{Benchmark: b.Name, Diff: d}}, nil
	}
	// A Go program's cache figures are its own too.
	goProgram := cachegrind.CountsGoProgram(change.Result)
	var figures []string
	for _, v := range b.Figures {
		if v.Fails() && !b.Accepts(v.Figure) && cachegrind.Explains(v.Figure) && !slices.Contains(figures, v.Figure) {
			figures = append(figures, v.Figure)
		}
	}
	if len(figures) == 0 {
		figures = []string{cachegrind.GatedMetric(goProgram)}
	}
	var diffs []summary.ProfileDiff
	var errs []error
	for _, figure := range figures {
		var profiles [2]*profile.Profile
		var err error
		for i := range counts {
			if profiles[i], err = counts[i].FigureProfile(figure, goProgram); err != nil {
				break
			}
		}
		var d *profilediff.Diff
		if err == nil {
			d, err = profilediff.Compute("cachegrind", profiles[0], profiles[1])
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: the cachegrind diff of %s: %w", b.Name, figure, err))
			continue
		}
		diffs = append(diffs, summary.ProfileDiff{Benchmark: b.Name, Diff: d})
	}
	return diffs, errors.Join(errs...)
}

// cpuDiff is the diff of the two sides' CPU profiles.
func cpuDiff(benchmark string, base, change Measured) (*profilediff.Diff, error) {
	var profiles [2]*profile.Profile
	for i, m := range []Measured{base, change} {
		out := m.Outputs
		name := m.Find(result.RoleProfile, "cpu")
		if name == "" {
			return nil, fmt.Errorf("%s: no Cachegrind output on both sides and no CPU profile to diff", out.Path(result.FileName))
		}
		data, err := out.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if profiles[i], err = profile.ParseData(data); err != nil {
			return nil, fmt.Errorf("%s: %w", out.Path(name), err)
		}
	}
	d, err := profilediff.Compute("cpu", profiles[0], profiles[1])
	if err != nil {
		return nil, fmt.Errorf("%s: the cpu diff: %w", benchmark, err)
	}
	return d, nil
}

// countedFile is the first run under Cachegrind of a result that counts
// its instructions (the runner's name for it), the one that also
// simulates the caches.
const countedFile = "cachegrind.1.out"
