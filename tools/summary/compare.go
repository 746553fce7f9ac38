package summary

import (
	"fmt"
	"slices"
	"strings"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// A Side is one benchmark's result as one side of a comparison: what the
// benchmark is, as its BUILD file declares it, and what the lab's
// comparison judges of it (verdict.Side). NewSide makes one from a result;
// no command assembles its own.
type Side struct {
	Benchmark result.Benchmark
	verdict.Side
}

// NewSide is the result r, whose files are out and which was read from
// source, as one side of a comparison: every figure it has
// (result.Figures: its metrics, its timings or rounds, its Go benchmark
// lines), its sweeps, identity and environment. When its figures cannot
// be read, the side is returned all the same, without figures, beside the
// error: a benchmark whose figures are unreadable is still there, and its
// gated figures are missing.
func NewSide(r *result.Result, out result.Outputs, source string) (Side, error) {
	env := r.Environment
	side := Side{Benchmark: r.Benchmark, Side: verdict.Side{Sweeps: r.Sweeps, Identity: r.Identity, Environment: &env, Source: source}}
	var err error
	side.Figures, err = result.Figures(r, out)
	return side, err
}

// Declared is a benchmark that a side declares and did not measure (the
// perf check's base, for a benchmark the change removes): as a base, it
// makes its namesake's absence missing.
func Declared(name, source string) Side {
	return Side{Benchmark: result.Benchmark{Name: name}, Side: verdict.Side{Source: source}}
}

// Options are what a comparison takes besides its two sides.
type Options struct {
	// Policy judges each figure (verdict.Lab, or the lab's policy with
	// the thresholds a person set).
	Policy verdict.Policy
	// Accepted are the regressions the commits between the sides declare
	// intended (ParseTrailers): an accepted regression does not fail.
	Accepted []verdict.Acceptance
	// Retire names benchmarks of the base that left on purpose: they are
	// not missing (verdict.CheckRetire refuses a guess).
	Retire []string
	// CountsOnly leaves timings and memory out of the judgment: they are
	// measured, not judged, where a shared runner makes them noise (the
	// perf check of a change).
	CountsOnly bool
	// OneEnvironment: the caller measured both sides in one environment
	// by construction (the perf check: on one agent, or counted by the
	// one worker its count actions declare, which refuses to count
	// elsewhere), and with one version of the lab (the base's runner
	// measures both sides: check.Harness), so neither their environments
	// nor their labs' versions are compared. (A change's side may still
	// name its own xtime, which must not let it escape the gate.)
	OneEnvironment bool
	// IgnoreIdentity judges two measurements of the same binary and run
	// as though the binaries differed, rather than as the noise floor:
	// for the regression suite's reruns, which count the false alarms of
	// the thresholds on noise alone.
	IgnoreIdentity bool
	// Recent gives a base's recent history (tools/history's Recent): its
	// figures' medians, which calibrate their thresholds with its runs,
	// and its sweeps, which calibrate its growths'; nil without a history.
	Recent func(base Side) (medians map[result.FigureKey][]float64, sweeps map[string][]result.Sweep, err error)
	// Lacking says how this side lacks a benchmark of the base, for its
	// missing verdict: "this report has no result of it" by default.
	Lacking string
	// EveryFigure makes the figures that only the change has values of
	// verdicts too (verdict.OnlyInChange: not comparable), after the
	// benchmark's outcome is judged: for a table of every figure (the
	// dashboard's compare page).
	EveryFigure bool
}

// Compare is the lab's one comparison of whole benchmarks: each benchmark
// of change is paired with its namesake in base and its figures judged by
// opts.Policy (verdict.Policy.Compare), the base deciding the gate; the
// regressions opts.Accepted names are recorded, and do not fail
// (Benchmark.Fails); a benchmark of the base that change lacks is missing,
// unless opts.Retire names it; one only change has is not compared. The
// summary it returns says the command's exit status (Summary.Status) and
// is what every command renders: tool names the command, baseline where
// base came from.
//
// A benchmark given twice on one side is an error: which result would be
// judged is not for this function to guess.
func Compare(tool, baseline string, base, change []Side, opts Options) (*Summary, error) {
	before, err := byName(base, "the base")
	if err != nil {
		return nil, err
	}
	if _, err := byName(change, "the change"); err != nil {
		return nil, err
	}
	s := &Summary{Tool: tool, Baseline: baseline}
	for _, c := range change {
		b := newBenchmark(c, opts)
		if o, ok := before[c.Benchmark.Name]; ok {
			if err := compareBenchmark(&b, o, c, opts); err != nil {
				return nil, err
			}
		} else {
			b.Note, b.OnlyInChange = "not in the baseline", true
		}
		s.Benchmarks = append(s.Benchmarks, b)
	}
	gone, err := missing(base, change, opts)
	if err != nil {
		return nil, err
	}
	for _, g := range gone {
		s.Benchmarks = append(s.Benchmarks, Benchmark{Name: g.Name, Outcome: verdict.Missing, Retired: g.Retired, Note: g.Why})
	}
	return s, nil
}

// CompareOne is Compare of one benchmark measured at both sides: its
// verdict.
func CompareOne(base, change Side, opts Options) (Benchmark, error) {
	s, err := Compare("", "", []Side{base}, []Side{change}, opts)
	if err != nil {
		return Benchmark{}, err
	}
	if len(s.Benchmarks) != 1 {
		// Two names: the change's, not in the base, and the base's, missing.
		return Benchmark{}, fmt.Errorf("a benchmark of one name at both sides: %s and %s", base.Benchmark.Name, change.Benchmark.Name)
	}
	return s.Benchmarks[0], nil
}

// Counted are the options of a comparison of counted figures alone, of
// sides measured in one environment by construction (OneEnvironment): the
// perf check's of a change, and the regression suite's, which measures
// that gate's power.
func Counted(accepted []verdict.Acceptance) Options {
	return Options{Policy: verdict.Lab, Accepted: accepted, CountsOnly: true, OneEnvironment: true, Lacking: "the change does not"}
}

// Uncompared is the summary of results without a baseline: each
// benchmark's values, compared with nothing.
func Uncompared(tool string, change []Side, opts Options) *Summary {
	s := &Summary{Tool: tool}
	for _, c := range change {
		b := newBenchmark(c, opts)
		b.Note = "no baseline"
		s.Benchmarks = append(s.Benchmarks, b)
	}
	return s
}

// byName indexes sides by their benchmark's name, refusing a name given
// twice.
func byName(sides []Side, which string) (map[string]Side, error) {
	m := make(map[string]Side, len(sides))
	for _, s := range sides {
		name := s.Benchmark.Name
		if other, ok := m[name]; ok {
			return nil, fmt.Errorf("%s has two results of benchmark %s (%s and %s)", which, name, other.Source, s.Source)
		}
		m[name] = s
	}
	return m, nil
}

// newBenchmark is side's benchmark before its comparison: what it is, and
// the values of its figures that the comparison judges.
func newBenchmark(side Side, opts Options) Benchmark {
	b := Benchmark{Name: side.Benchmark.Name, Study: side.Benchmark.Study, Language: side.Benchmark.Language,
		Workload: side.Benchmark.Workload.Name, Outcome: verdict.NotComparable}
	for _, f := range values(judged(side.Figures, opts)) {
		b.Values = append(b.Values, Value{Figure: f.Name, Unit: f.Unit, Sample: result.NewSample(f.Values)})
	}
	return b
}

// values are the figures with values, the headline first (a program's
// real time, a server's throughput: result.Headline), as the tables show
// it (Benchmark.valuesText).
func values(figures []result.Figure) []result.Figure {
	var names []string
	var with []result.Figure
	for _, f := range figures {
		if len(f.Values) > 0 {
			with = append(with, f)
			names = append(names, f.Name)
		}
	}
	if i := slices.Index(names, result.Headline(names)); i > 0 {
		with = slices.Concat(with[i:i+1], with[:i], with[i+1:])
	}
	return with
}

func timing(c result.Class) bool { return c == result.ClassTiming || c == result.ClassMemory }

// judged are the figures the comparison judges under opts.
func judged(figures []result.Figure, opts Options) []result.Figure {
	if !opts.CountsOnly {
		return figures
	}
	return slices.DeleteFunc(slices.Clone(figures), func(f result.Figure) bool { return timing(f.Class) })
}

// compareBenchmark fills in b, the change's benchmark, judged against its
// base.
func compareBenchmark(b *Benchmark, base, change Side, opts Options) error {
	if base.Benchmark.Workload.Name != change.Benchmark.Workload.Name {
		b.Note = fmt.Sprintf("another workload than the baseline's (%s, the baseline %s): not compared",
			change.Benchmark.Workload.Name, base.Benchmark.Workload.Name)
		return nil
	}
	o, n := base.Side, change.Side
	o.Figures, n.Figures = judged(o.Figures, opts), judged(n.Figures, opts)
	if opts.OneEnvironment {
		o.Environment, n.Environment = nil, nil
		o.Identity, n.Identity = withoutLab(o.Identity), withoutLab(n.Identity)
	}
	if opts.IgnoreIdentity {
		o.Identity, n.Identity = nil, nil
	}
	if opts.Recent != nil && o.Identity != nil {
		var err error
		if o.History, o.HistorySweeps, err = opts.Recent(base); err != nil {
			return fmt.Errorf("the history of %s's baseline: %w", b.Name, err)
		}
	}
	b.Figures = opts.Policy.Compare(o, n)
	b.Outcome = verdict.Worst(b.Figures)
	if opts.EveryFigure {
		b.Figures = append(b.Figures, verdict.OnlyInChange(o, n)...)
	}
	for _, a := range opts.Accepted {
		if a.Benchmark == b.Name && !b.Accepts(a.Figure) {
			b.Accepted = append(b.Accepted, a)
		}
	}
	var notes []string
	if o.Identity != nil && n.Identity != nil && *o.Identity == *n.Identity {
		b.SameIdentity = true
		if slices.ContainsFunc(b.Figures, func(v verdict.Verdict) bool { return v.Outcome == verdict.Inconsistent }) {
			notes = append(notes, "the same binary and run as the baseline, yet a figure differs or is no longer declared exact: an inconsistent measurement")
		} else {
			notes = append(notes, "the same binary and run as the baseline: its changes are the noise floor")
		}
	}
	// Another version of the lab is listed first among the changes of
	// what measured, so that every reader of them (the night, its alerts,
	// the tables) carries it as it carries another environment.
	lab := verdict.LabChange(o, n)
	if lab != "" {
		b.EnvironmentChanges = append(b.EnvironmentChanges, lab)
	}
	var moved []string
	if o.Environment != nil && n.Environment != nil {
		for _, d := range result.Differences(*o.Environment, *n.Environment) {
			moved = append(moved, d.String())
		}
		b.EnvironmentChanges = append(b.EnvironmentChanges, moved...)
	}
	b.AllowedEnvironmentChange = len(b.EnvironmentChanges) > 0 && opts.Policy.AllowEnvironmentChange
	changes := strings.Join(moved, ", ")
	switch {
	case lab != "" && b.AllowedEnvironmentChange:
		notes = append(notes, strings.Replace(lab, ": re-baselined", "", 1)+": compared across it, as allowed")
	case lab != "":
		notes = append(notes, lab+": none of its figures was compared")
	}
	switch {
	case changes == "":
	case b.AllowedEnvironmentChange:
		notes = append(notes, "environment changed: "+changes)
	case lab != "":
		// Another lab compared nothing: the machine's change is said too.
		notes = append(notes, result.AnotherEnvironment+" ("+changes+") as well")
	default:
		notes = append(notes, result.AnotherEnvironment+" ("+changes+"): only the figures it cannot change were compared")
	}
	b.Note = strings.Join(notes, "; ")
	return nil
}

// withoutLab is id without the lab's version: of sides measured by one lab
// by construction (Options.OneEnvironment).
func withoutLab(id *result.Identity) *result.Identity {
	if id == nil {
		return nil
	}
	same := *id
	same.LabSHA256 = ""
	return &same
}

// missing are the benchmarks of base that change has no result of, by the
// lab's one rule of them (verdict.GoneBenchmarks).
func missing(base, change []Side, opts Options) ([]verdict.Gone, error) {
	tonight, before := map[string]bool{}, map[string]string{}
	for _, c := range change {
		tonight[c.Benchmark.Name] = true
	}
	for _, o := range base {
		before[o.Benchmark.Name] = o.Source
	}
	if err := verdict.CheckRetire(before, tonight, opts.Retire); err != nil {
		return nil, err
	}
	what := opts.Lacking
	if what == "" {
		what = "this side has no result of it"
	}
	return verdict.GoneBenchmarks(before, tonight, opts.Retire, what), nil
}
