package result

import "slices"

// A Declared figure is one the lab measures of every benchmark of a kind
// (a program's timed runs, a server's rounds of load), declared once, in
// the tables below: how it is judged (Class, Gated), what it costs, and
// how it is shown (Charted, Headline). Every consumer reads it here: the
// comparison's gate (Figure.Gated), the nightly's charts and change-point
// search, the dashboard's and the summaries' first figure. A new figure of
// runs or rounds is a row, and its producer.
type Declared struct {
	Name, Unit string
	Class      Class
	Cost       string
	// Gated: the gate judges it, whatever the benchmark declares: what a
	// program is measured for (its real time, its peak memory), or a
	// server (its throughput, its tail latency). The others are shown.
	Gated bool
	// Charted: it gets a trend chart and a change-point search over the
	// history, as every gated metric does.
	Charted bool
	// Headline: a benchmark's pages open on it and its values lead with
	// it.
	Headline bool
}

// A runFigure is a declared figure of a program's timed runs, and its
// value in a run: ok is false when the run did not record it (a figure
// recorded in every run, or it is no series of runs).
type runFigure struct {
	Declared
	value func(Run) (v float64, ok bool)
}

// A roundFigure is a declared figure of a server's rounds of load, and
// its value in a round: ok is false when the round did not record it (a
// figure older records lack).
type roundFigure struct {
	Declared
	value func(LoadRound) (v float64, ok bool)
}

// always is a run's or a round's value that every one records.
func always[T any](f func(T) float64) func(T) (float64, bool) {
	return func(r T) (float64, bool) { return f(r), true }
}

// programFigures are the figures xtime measures of every timed run.
var programFigures = []runFigure{
	{Declared{Name: "real_seconds", Unit: "s", Class: ClassTiming, Cost: CostTime, Gated: true, Charted: true, Headline: true},
		always(func(r Run) float64 { return r.RealSeconds })},
	{Declared{Name: "user_seconds", Unit: "s", Class: ClassTiming, Cost: CostTime},
		always(func(r Run) float64 { return r.UserSeconds })},
	{Declared{Name: "sys_seconds", Unit: "s", Class: ClassTiming, Cost: CostTime},
		always(func(r Run) float64 { return r.SysSeconds })},
	// CPU time beside real time, shown: when real time worsens and CPU
	// time does not, the machine was not the program's alone.
	{Declared{Name: "cpu_seconds", Unit: "s", Class: ClassTiming, Cost: CostTime},
		always(func(r Run) float64 { return r.UserSeconds + r.SysSeconds })},
	{Declared{Name: "max_rss_kib", Unit: "KiB", Class: ClassMemory, Cost: CostMemory, Gated: true},
		always(func(r Run) float64 { return float64(r.MaxRSSKiB) })},
	// Pages touched for the first time: memory a run maps and uses.
	{Declared{Name: "minor_faults", Unit: "faults", Class: ClassCount, Cost: CostMemory},
		func(r Run) (float64, bool) {
			if r.MinorFaults == nil {
				return 0, false
			}
			return float64(*r.MinorFaults), true
		}},
}

// serverFigures are the figures the load generator measures of every
// round.
var serverFigures = []roundFigure{
	{Declared{Name: "throughput", Unit: "requests/s", Class: ClassTiming, Cost: CostTime, Gated: true, Charted: true, Headline: true},
		always(func(r LoadRound) float64 { return r.Throughput })},
	{Declared{Name: "latency_mean", Unit: "s", Class: ClassTiming, Cost: CostTime}, always(func(r LoadRound) float64 { return r.Latency.Mean })},
	{Declared{Name: "latency_p50", Unit: "s", Class: ClassTiming, Cost: CostTime}, always(func(r LoadRound) float64 { return r.Latency.P50 })},
	{Declared{Name: "latency_p90", Unit: "s", Class: ClassTiming, Cost: CostTime}, always(func(r LoadRound) float64 { return r.Latency.P90 })},
	{Declared{Name: "latency_p99", Unit: "s", Class: ClassTiming, Cost: CostTime, Gated: true},
		always(func(r LoadRound) float64 { return r.Latency.P99 })},
	{Declared{Name: "latency_max", Unit: "s", Class: ClassTiming, Cost: CostTime}, always(func(r LoadRound) float64 { return r.Latency.Max })},
}

// Declaration is the declared figure named name, if one is.
func Declaration(name string) (Declared, bool) {
	for _, f := range programFigures {
		if f.Name == name {
			return f.Declared, true
		}
	}
	for _, f := range serverFigures {
		if f.Name == name {
			return f.Declared, true
		}
	}
	return Declared{}, false
}

// Charted tells whether a figure gets a trend chart and a change-point
// search: a declared figure by its declaration, any other (a metric, a Go
// benchmark's line) when it is gated.
func Charted(name string, gated bool) bool {
	if d, ok := Declaration(name); ok {
		return d.Charted
	}
	return gated
}

// Headline is the figure among names that a benchmark's pages open on:
// the first declared a headline, else the first.
func Headline(names []string) string {
	i := slices.IndexFunc(names, func(name string) bool {
		d, ok := Declaration(name)
		return ok && d.Headline
	})
	switch {
	case i >= 0:
		return names[i]
	case len(names) > 0:
		return names[0]
	}
	return ""
}

// figure is the declared figure with its values, measured by source.
func (d Declared) figure(source string, values []float64) Figure {
	return Figure{Name: d.Name, Unit: d.Unit, Source: source, Gated: d.Gated, Better: BetterOf(d.Unit), Class: d.Class, Cost: d.Cost, Values: values}
}

// runFigures are the declared figures of runs that every run recorded.
func runFigures(runs []Run) []Figure {
	var figs []Figure
	for _, f := range programFigures {
		values := make([]float64, 0, len(runs))
		for _, run := range runs {
			if v, ok := f.value(run); ok {
				values = append(values, v)
			}
		}
		if len(values) == len(runs) {
			figs = append(figs, f.figure("xtime", values))
		}
	}
	return figs
}

// roundFigures are the declared figures of a server's rounds that every
// round recorded, measured by generator.
func roundFigures(rounds []LoadRound, generator string) []Figure {
	figs := make([]Figure, 0, len(serverFigures))
	for _, f := range serverFigures {
		values := make([]float64, 0, len(rounds))
		for _, r := range rounds {
			if v, ok := f.value(r); ok {
				values = append(values, v)
			}
		}
		if len(values) == len(rounds) {
			figs = append(figs, f.figure(generator, values))
		}
	}
	return figs
}
