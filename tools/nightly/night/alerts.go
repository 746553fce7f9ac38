package night

// The night's findings as alerts (tools/alert) in the results history:
// what the gates and the history's search found becomes findings, the
// history matches them to the alerts of earlier nights, and the night
// fails, holds the baseline and is annotated as tools/alert says.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/markdown"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	verdictlib "havlak-lab/tools/verdict"
)

// nightBy is who the nightly job's own changes of state are by.
const nightBy = "nightly"

// alertStep enters tonight's findings into db's alerts: the change points
// the history found (changes), the gates' regressions and missing results
// (j), and what stopped reporting (staleness after staleNights of the
// history's nights). It returns the alerts tonight found, opened or fixed.
func (n *night) alertStep(ctx context.Context, db *history.DB, changes []alert.Finding, found, before []result.Found, j judged) ([]alert.Alert, error) {
	tonight, ok := firstResult(found)
	if !ok {
		return nil, fmt.Errorf("no readable result tonight: nothing to enter into the alerts")
	}
	started, err := time.Parse(time.RFC3339, tonight.Environment.Started)
	if err != nil {
		return nil, fmt.Errorf("tonight's environment.started %q: %w", tonight.Environment.Started, err)
	}
	g := gateFindings{n: n, found: found, before: before, fine: map[alert.Series]bool{}, ran: map[[2]string]bool{}}
	for _, f := range found {
		if f.Err == nil {
			g.ran[[2]string{f.Result.Benchmark.Name, f.Result.Benchmark.Workload.Name}] = true
		}
	}
	g.fromSummary(j.all)
	g.findings = append(g.findings, g.environmentChanges()...)
	seen, nights, err := db.Seen(ctx)
	if err != nil {
		return nil, err
	}
	stale := alert.FindStale(seen, nights, n.staleNights)
	g.seen = seen
	// The gates' findings first: a regression against the baseline that
	// the history's search also finds opens as a regression (fixed the
	// night the gate finds the figure well again), and the change point
	// matches it.
	findings := slices.Concat(g.findings, changes, stale)
	night := alert.Night{Time: started, Commit: tonight.Environment.Source.Commit, By: nightBy}
	return db.RecordAlerts(ctx, night, findings, g.cleared)
}

// gateFindings turns the gates' summaries into findings, and remembers
// what they found well, for the alerts the night did not find.
type gateFindings struct {
	n             *night
	found, before []result.Found
	findings      []alert.Finding
	// fine: the figures the gates judged tonight and found well; ran: the
	// benchmarks (name, workload) with a result tonight.
	fine map[alert.Series]bool
	ran  map[[2]string]bool
	// seen are the history's series and their newest points.
	seen []alert.Seen
	// moved are the environment changes the gates saw, in the order first
	// seen.
	moved []*environmentChange
}

// An environmentChange is one change of environment since the baseline:
// tonight's environment key, what differs, and the benchmarks that ran in
// it, those not compared (their timings restart tonight) apart from those
// compared across it as allowed.
type environmentChange struct {
	envKey          string
	changes         []string
	moved, allowed  []string
	tonight, before *result.Result
}

// fromSummary adds the findings of one summary: the report's, or the Go
// benchmarks' (compareGoTests).
func (g *gateFindings) fromSummary(s *summary.Summary) {
	if s == nil {
		return
	}
	for _, b := range s.Benchmarks {
		name, workload := b.Name, b.Workload
		if len(b.EnvironmentChanges) > 0 {
			g.environmentChanged(b, name, workload)
		}
		// A benchmark gone is one finding; one measured whose gated
		// figure is missing is that figure's, below, with its others.
		if b.Gone() {
			if !b.Retired {
				g.findings = append(g.findings, g.missing(name, workload, "", b.Note))
			}
			continue
		}
		// Every failing figure is a finding, even of a result not found
		// again here (fail closed): then without an environment key.
		nowFound, _ := g.foundOf(g.found, name, workload)
		baseFound, _ := g.foundOf(g.before, name, workload)
		now, base := nowFound.Result, baseFound.Result
		envKey := ""
		if now != nil {
			envKey = result.EnvironmentKey(now.Environment)
		}
		for _, v := range b.Figures {
			figure, unit := v.Figure, v.Unit
			series := alert.Series{Benchmark: name, Figure: figure, Unit: unit, Workload: workload, EnvKey: envKey}
			switch {
			case !v.Fails():
				g.fine[series] = v.Outcome != verdictlib.NotComparable
			case v.Outcome == verdictlib.Missing:
				if !b.Accepts(v.Figure) {
					g.findings = append(g.findings, g.missing(name, workload, figure, v.Reason))
				}
			default:
				f := alert.Finding{Kind: alert.Regression, Series: series, Size: float64(v.Change), Before: v.Old.Median,
					After: v.New.Median, Range: rangeOf(base, now),
					Evidence: v.Evidence() + movedFunctions(figure, base, now, baseFound.Outputs, nowFound.Outputs)}
				for _, a := range b.Accepted {
					if a.Figure == v.Figure {
						f.Accepted = a.Reason
					}
				}
				if s.Tool == "report" {
					f.Report, f.ProfileDiffs = g.n.reportLinks(s, name)
				}
				g.findings = append(g.findings, f)
			}
		}
	}
}

// environmentChanged notes a benchmark that ran in another environment
// than its baseline's, with the others of the same change.
func (g *gateFindings) environmentChanged(b summary.Benchmark, name, workload string) {
	now, _ := g.result(g.found, name, workload)
	envKey := ""
	if now != nil {
		envKey = result.EnvironmentKey(now.Environment)
	}
	i := slices.IndexFunc(g.moved, func(c *environmentChange) bool {
		return c.envKey == envKey && slices.Equal(c.changes, b.EnvironmentChanges)
	})
	if i < 0 {
		base, _ := g.result(g.before, name, workload)
		g.moved = append(g.moved, &environmentChange{envKey: envKey, changes: b.EnvironmentChanges, tonight: now, before: base})
		i = len(g.moved) - 1
	}
	c := g.moved[i]
	label := name
	if workload != "" {
		label += " (" + workload + ")"
	}
	list := &c.moved
	if !b.EnvironmentChanged() {
		list = &c.allowed
	}
	if !slices.Contains(*list, label) {
		*list = append(*list, label)
	}
}

// environmentChanges are the findings of the environment changes: one
// each, about tonight's environment key, its evidence what changed and
// which benchmarks restart their timings. It is for triage: it fails no
// night, and the night after compares with a baseline in the new
// environment.
func (g *gateFindings) environmentChanges() []alert.Finding {
	var findings []alert.Finding
	for _, c := range g.moved {
		findings = append(findings, alert.EnvironmentFinding(c.envKey, c.changes, c.moved, c.allowed, rangeOf(c.before, c.tonight)))
	}
	return findings
}

// missing is the finding of a benchmark (or, with figure, a figure of it)
// the baseline has and tonight lacks.
func (g *gateFindings) missing(name, workload, figure, why string) alert.Finding {
	f := alert.Finding{Kind: alert.Missing, Series: alert.Series{Benchmark: name, Figure: figure, Workload: workload}, Evidence: why}
	if r, ok := g.result(g.before, name, workload); ok {
		f.EnvKey, f.Workload = result.EnvironmentKey(r.Environment), r.Benchmark.Workload.Name
		f.LastPoint, _ = time.Parse(time.RFC3339, r.Environment.Started)
		f.Range = alert.Range{From: r.Environment.Source.Commit, FromTime: f.LastPoint}
	}
	return f
}

// result is the readable result of a benchmark among all.
func (g *gateFindings) result(all []result.Found, name, workload string) (*result.Result, bool) {
	f, ok := g.foundOf(all, name, workload)
	return f.Result, ok
}

// foundOf is result's Found: the result with its outputs.
func (g *gateFindings) foundOf(all []result.Found, name, workload string) (result.Found, bool) {
	for _, f := range all {
		if f.Err == nil && f.Result.Benchmark.Name == name && (workload == "" || f.Result.Benchmark.Workload.Name == workload) {
			return f, true
		}
	}
	return result.Found{}, false
}

// cleared says why an alert tonight did not find is fixed, when tonight
// looked at what it is about and found it well: the figure compared and
// not worse, the benchmark back or retired, the series reporting again;
// "" when it did not.
func (g *gateFindings) cleared(a alert.Alert) string {
	switch a.Kind {
	case alert.Regression:
		if g.fine[a.Series] {
			return "the gate found the figure back within its rule"
		}
	case alert.Missing:
		switch {
		case a.Figure == "" && g.ran[[2]string{a.Benchmark, a.Workload}]:
			return "the benchmark has a result again"
		case a.Figure == "" && slices.Contains(g.n.retire, a.Benchmark):
			return "the benchmark was retired (--retire)"
		}
		for s, fine := range g.fine {
			if fine && a.Figure != "" && s.Benchmark == a.Benchmark && s.Figure == a.Figure && s.Workload == a.Workload {
				return "the figure is measured again"
			}
		}
	case alert.Stale:
		if alert.Reporting(a, g.seen) {
			return "the series reports again"
		}
	}
	return ""
}

// rangeOf is the commits between the baseline's result and tonight's
// (nil: unknown).
func rangeOf(base, now *result.Result) alert.Range {
	var r alert.Range
	if now != nil {
		r.To = now.Environment.Source.Commit
		r.ToTime, _ = time.Parse(time.RFC3339, now.Environment.Started)
	}
	if base != nil {
		r.From = base.Environment.Source.Commit
		r.FromTime, _ = time.Parse(time.RFC3339, base.Environment.Started)
	}
	return r
}

// reportLinks are the night's report and its profile diffs of benchmark:
// in the night's archive in the history when it was archived (they
// outlive the job's artifacts), else in the artifacts.
func (n *night) reportLinks(s *summary.Summary, benchmark string) (string, []string) {
	dir := n.reportDir()
	if n.archivedNight != "" {
		dir = filepath.Join(n.archivedNight, nightdir.Report)
	}
	var diffs []string
	for _, d := range s.ProfileDiffs {
		if d.Benchmark == benchmark && d.Graph != "" {
			diffs = append(diffs, filepath.Join(dir, filepath.FromSlash(d.Graph)))
		}
	}
	return filepath.Join(dir, "index.html"), diffs
}

func firstResult(found []result.Found) (*result.Result, bool) {
	for _, f := range found {
		if f.Err == nil {
			return f.Result, true
		}
	}
	return nil, false
}

// writeAlerts is the annotation's part on the night's alerts: the new
// ones first, in full, with how to triage them; then the others tonight
// found, one line each; then those fixed tonight.
func (n *night) writeAlerts(w io.Writer, tonight []alert.Alert, dsn string) {
	if len(tonight) == 0 {
		return
	}
	var fresh, known, fixed []alert.Alert
	for _, a := range tonight {
		switch a.State() {
		case alert.New:
			fresh = append(fresh, a)
		case alert.Fixed:
			fixed = append(fixed, a)
		default:
			known = append(known, a)
		}
	}
	if len(fresh) > 0 {
		fmt.Fprintf(w, "\n\n**New alerts** (%d; triage: `history alerts %s %s ID`, docs/triage.md):\n", len(fresh), markdown.Escape(dsn), alert.Answers())
		for _, a := range fresh {
			fmt.Fprintf(w, "\n- **#%d %s** %s: %s", a.ID, kindText(a.Kind), markdown.Escape(a.Series.String()), markdown.Escape(a.ChangeText()))
			if r := a.RangeText(); r != "" {
				fmt.Fprintf(w, ", commits `%s`", markdown.Escape(r))
			}
			if a.FirstBadSubject != "" {
				fmt.Fprintf(w, " (%s)", markdown.Escape(a.FirstBadSubject))
			}
			if a.Evidence != "" {
				fmt.Fprintf(w, "\n  %s", markdown.Escape(a.Evidence))
			}
			var links []string
			if a.Report != "" {
				links = append(links, "report `"+markdown.Escape(n.shown(a.Report))+"`")
			}
			for _, d := range a.ProfileDiffs {
				links = append(links, "profile diff `"+markdown.Escape(n.shown(d))+"`")
			}
			if len(links) > 0 {
				fmt.Fprintf(w, "\n  %s", strings.Join(links, ", "))
			}
		}
	}
	if len(known) > 0 {
		fmt.Fprintf(w, "\n\n**Known alerts** found again (%d; they do not fail the night, a missing result aside):\n", len(known))
		for _, a := range known {
			c := a.Current()
			why := strings.TrimSpace(c.Issue + " " + c.Note)
			fmt.Fprintf(w, "\n- #%d %s %s %s: %s", a.ID, a.State(), kindText(a.Kind), markdown.Escape(a.Series.String()), markdown.Escape(a.ChangeText()))
			if why != "" {
				fmt.Fprintf(w, " — %s", markdown.Escape(why))
			}
			fmt.Fprintf(w, " (%s, %s)", markdown.Escape(c.By), c.At.Format("2006-01-02"))
		}
	}
	if len(fixed) > 0 {
		fmt.Fprintf(w, "\n\n**Fixed tonight**:")
		for _, a := range fixed {
			fmt.Fprintf(w, " #%d %s %s;", a.ID, kindText(a.Kind), markdown.Escape(a.Series.String()))
		}
	}
}

// shown is a link of an alert as the annotation shows it: relative to the
// night's archive (the same layout as the job's artifacts), else whole.
func (n *night) shown(path string) string {
	for _, dir := range []string{n.archivedNight, n.artifacts} {
		if dir == "" {
			continue
		}
		if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

func kindText(k alert.Kind) string {
	return strings.ReplaceAll(string(k), "_", " ")
}
