package alert

import (
	"fmt"
	"slices"
	"time"
)

// A Seen is a series of the history and the time of its newest point.
type Seen struct {
	Series
	Last time.Time
	// Function: a function's series (the history's function series),
	// charted but never stale: a function leaves a result's top
	// functions when another outgrows it, and its series stops.
	Function bool
}

// DefaultStaleNights is how many of the history's nights a series may go
// without a point before it is stale: one night lost to a broken agent
// is a failed night, not yet a silent series.
const DefaultStaleNights = 3

// FindStale finds what stopped reporting: a series of seen with no point in
// the last `after` nights of the history (nights: the days, UTC, on which
// the history got any result). It names the widest thing that went quiet,
// once: an environment key none of whose series has a point in that time
// (an agent that stopped, or a machine whose results now land under another
// key); else a benchmark none of whose figures has (left the suite, or
// stopped running); else the figure. Each finding's LastPoint is when it
// was last seen. Function series are left out.
func FindStale(seen []Seen, nights []time.Time, after int) []Finding {
	if after < 1 {
		return nil
	}
	seen = slices.DeleteFunc(slices.Clone(seen), func(s Seen) bool { return s.Function })
	days := make([]string, 0, len(nights))
	for _, n := range nights {
		days = append(days, day(n))
	}
	slices.Sort(days)
	days = slices.Compact(days)
	// silent is how many of the history's nights came after t's.
	silent := func(t time.Time) int {
		d := day(t)
		i, found := slices.BinarySearch(days, d)
		if found {
			i++
		}
		return len(days) - i
	}
	type group struct {
		key  Series
		last time.Time
	}
	newest := func(key func(Seen) Series) []group {
		var groups []group
		for _, s := range seen {
			k := key(s)
			i := slices.IndexFunc(groups, func(g group) bool { return g.key == k })
			if i < 0 {
				groups = append(groups, group{key: k, last: s.Last})
			} else if s.Last.After(groups[i].last) {
				groups[i].last = s.Last
			}
		}
		return groups
	}
	var found []Finding
	add := func(s Series, last time.Time) {
		n := silent(last)
		found = append(found, Finding{Kind: Stale, Series: s, LastPoint: last,
			Evidence: fmt.Sprintf("no point for the history's last %d nights (stale after %d); last seen on the night of %s",
				n, after, day(last))})
	}
	quietEnv := map[string]bool{}
	for _, g := range newest(func(s Seen) Series { return Series{EnvKey: s.EnvKey} }) {
		if silent(g.last) >= after {
			quietEnv[g.key.EnvKey] = true
			add(g.key, g.last)
		}
	}
	quietBenchmark := map[Series]bool{}
	for _, g := range newest(func(s Seen) Series { return Series{Benchmark: s.Benchmark, Workload: s.Workload, EnvKey: s.EnvKey} }) {
		if !quietEnv[g.key.EnvKey] && silent(g.last) >= after {
			quietBenchmark[g.key] = true
			add(g.key, g.last)
		}
	}
	for _, s := range seen {
		b := Series{Benchmark: s.Benchmark, Workload: s.Workload, EnvKey: s.EnvKey}
		if !quietEnv[s.EnvKey] && !quietBenchmark[b] && silent(s.Last) >= after {
			add(s.Series, s.Last)
		}
	}
	return found
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// Reporting tells whether what a stale alert is about got a point after
// the one it was last seen with: the series, or any series of the
// benchmark or environment key it names, is back.
func Reporting(a Alert, seen []Seen) bool {
	for _, s := range seen {
		if (a.Benchmark == "" || s.Benchmark == a.Benchmark) && (a.Figure == "" || s.Figure == a.Figure && s.Unit == a.Unit) &&
			(a.Workload == "" || s.Workload == a.Workload) && (a.EnvKey == "" || s.EnvKey == a.EnvKey) && s.Last.After(a.LastPoint) {
			return true
		}
	}
	return false
}
