package cachegrind

// Cachegrind's cache simulation (--cache-sim=yes): the misses of a
// simulated first-level instruction and data cache and last-level cache,
// counted exactly like the instructions, and an estimated cycle count
// derived from them. They are the lab's figures of locality: a change
// that keeps the instruction count and scatters its memory accesses
// (a shuffled traversal, an array of structs for a struct of arrays)
// shows in them and in no instruction count.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/result"
)

// CacheGeometry fixes the simulated caches instead of letting Cachegrind
// copy the host's: the figures are then those of one model machine
// wherever they are measured (this VM's CPU reports a 384 MiB,
// direct-mapped L3, which Cachegrind turns into a 512 MiB LL cache that
// no workload of the lab ever misses after its first touch). The model is
// a common x86-64 core: 32 KiB, 8-way first-level caches and an 8 MiB,
// 16-way last-level cache, 64-byte lines.
var CacheGeometry = []string{"--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"}

// CacheGeometryText names CacheGeometry for people, in metrics' sources.
const CacheGeometryText = "I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64 B lines"

// The events Cachegrind counts with --cache-sim=yes, in the order of its
// "events:" line, as indexes of Events.
const (
	Ir   = iota // instructions executed
	I1mr        // first-level instruction cache misses
	ILmr        // last-level cache misses of instruction fetches
	Dr          // data reads
	D1mr        // first-level data cache read misses
	DLmr        // last-level cache read misses
	Dw          // data writes
	D1mw        // first-level data cache write misses
	DLmw        // last-level cache write misses
	numEvents
)

// CacheEvents are the events' names, as Cachegrind writes them.
var CacheEvents = [numEvents]string{"Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw"}

// Events are counts of each event, indexed by Ir, I1mr, ...
type Events [numEvents]uint64

// Add adds o's counts to e's.
func (e *Events) Add(o Events) {
	for i := range e {
		e[i] += o[i]
	}
}

// Cache is a run's cache events: of the whole process, and outside the Go
// runtime's functions (as Counts.Own; equal to Total for a C or C++
// program).
type Cache struct {
	Total, Own Events
}

// D1Misses are the first-level data cache misses, reads and writes.
func (e Events) D1Misses() uint64 { return e[D1mr] + e[D1mw] }

// LLMisses are the last-level cache misses: of data reads and writes and
// of instruction fetches, each an access to memory.
func (e Events) LLMisses() uint64 { return e[ILmr] + e[DLmr] + e[DLmw] }

// EstimatedCycles is a cycle count estimated from the events:
//
//	L1 hits + 5 × LL hits + 35 × memory accesses
//
// where every instruction fetch and data access that hits a first-level
// cache costs a cycle, one that misses it and hits the last-level cache 5,
// and one that misses both (goes to memory) 35. The weights are those of
// iai-callgrind's estimate: round figures of a current core's latencies
// in the ratio that matters (an L1 hit about 4 cycles, L2/L3 tens, DRAM a
// few hundred), scaled so that the dominant term, the instructions and
// their L1 hits, counts one each. It is no model of a pipeline (no
// overlap of misses, no branch mispredictions): it weighs the locality
// figures against the work so that one number moves when either gets
// worse, as a real cycle count would.
func (e Events) EstimatedCycles() uint64 {
	accesses := e[Ir] + e[Dr] + e[Dw]
	l1Misses := e[I1mr] + e[D1mr] + e[D1mw]
	memory := e.LLMisses()
	l1Hits, llHits := accesses-min(l1Misses, accesses), l1Misses-min(memory, l1Misses)
	return l1Hits + 5*llHits + 35*memory
}

// parseEvents reads the events of an "events:" line: Ir alone, or every
// one of CacheEvents; it returns each column's index in Events.
func parseEvents(text string) ([]int, error) {
	names := strings.Fields(text)
	if len(names) == 1 && names[0] == CacheEvents[Ir] {
		return []int{Ir}, nil
	}
	columns := make([]int, 0, len(names))
	seen := map[int]bool{}
	for _, name := range names {
		i := -1
		for j, known := range CacheEvents {
			if name == known {
				i = j
			}
		}
		if i < 0 || seen[i] {
			return nil, fmt.Errorf("event %q unknown or repeated: want Ir (--cache-sim=no) or %s (--cache-sim=yes)", name, strings.Join(CacheEvents[:], " "))
		}
		seen[i] = true
		columns = append(columns, i)
	}
	if len(columns) != numEvents {
		return nil, fmt.Errorf("want Ir (--cache-sim=no) or all of %s (--cache-sim=yes)", strings.Join(CacheEvents[:], " "))
	}
	return columns, nil
}

// parseCounts reads a line's counts, one an event of columns (nil: Ir
// alone); Cachegrind may leave out trailing zeros.
func parseCounts(fields []string, columns []int) (Events, error) {
	if columns == nil {
		columns = []int{Ir}
	}
	var e Events
	if len(fields) > len(columns) {
		return e, fmt.Errorf("%d counts for %d events", len(fields), len(columns))
	}
	for i, f := range fields {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return e, errors.New("not a count")
		}
		e[columns[i]] = n
	}
	return e, nil
}

// The names of the cache simulation's figures as metrics in result.json,
// as tools/result declares them.
const (
	MetricD1Misses        = result.MetricD1Misses
	MetricLLMisses        = result.MetricLLMisses
	MetricEstimatedCycles = result.MetricEstimatedCycles
	MetricD1ReadMisses    = result.MetricD1ReadMisses
	MetricD1WriteMisses   = result.MetricD1WriteMisses
	MetricLLReadMisses    = result.MetricLLReadMisses
	MetricLLWriteMisses   = result.MetricLLWriteMisses
	MetricI1Misses        = result.MetricI1Misses
)

// CacheMetrics are the cache figures of the runs that simulated the
// caches (the others are skipped; none gives none), as result.json's
// metrics: D1 misses, LL misses and the estimated cycles, then the misses
// by kind of access, shown only. A C or C++ program's are exact, and the
// first three are gated with threshold. A Go program's are its own,
// outside the runtime's functions, as for its instructions. Its LL misses
// depend on where its heap's pages land, which the runtime decides with
// timing, not ASLR (havlak6: 3.6% apart over 10 runs, with or without
// setarch -R; docs/noise.md), and with them its estimated cycles (0.7%):
// shown only. Its D1 misses move by 0.2% at most in the Havlak stages, but
// by up to 89% in a program that spends its time in system calls (word
// count's first stage, 507 to 3,756): they are gated when steadyD1 says
// the benchmark declares them steady (steady_cache_misses, perf_benchmark).
func CacheMetrics(counts []Counts, goProgram, steadyD1 bool, source string, threshold float64) []result.Metric {
	var events []Events
	for _, c := range counts {
		switch {
		case c.Cache == nil:
		case goProgram:
			events = append(events, c.Cache.Own)
		default:
			events = append(events, c.Cache.Total)
		}
	}
	if len(events) == 0 {
		return nil
	}
	source = fmt.Sprintf("%s; cache simulation in %d of them (%s)", source, len(events), CacheGeometryText)
	if goProgram {
		source += ", outside the Go runtime"
	}
	figure := func(name, unit, cost string, gated bool, value func(Events) uint64) result.Metric {
		// A C or C++ program's simulated cache is exact (docs/noise.md).
		m := result.Metric{Name: name, Unit: unit, Source: source, Cost: cost, Gated: gated, Exact: !goProgram}
		if gated {
			m.Threshold = threshold
		}
		for _, e := range events {
			m.Values = append(m.Values, float64(value(e)))
		}
		return m
	}
	return []result.Metric{
		figure(MetricD1Misses, "misses", result.CostLocality, !goProgram || steadyD1, Events.D1Misses),
		figure(MetricLLMisses, "misses", result.CostLocality, !goProgram, Events.LLMisses),
		figure(MetricEstimatedCycles, "cycles", result.CostWorkAndLocality, !goProgram, Events.EstimatedCycles),
		figure(MetricD1ReadMisses, "misses", result.CostLocality, false, func(e Events) uint64 { return e[D1mr] }),
		figure(MetricD1WriteMisses, "misses", result.CostLocality, false, func(e Events) uint64 { return e[D1mw] }),
		figure(MetricLLReadMisses, "misses", result.CostLocality, false, func(e Events) uint64 { return e[DLmr] }),
		figure(MetricLLWriteMisses, "misses", result.CostLocality, false, func(e Events) uint64 { return e[DLmw] }),
		figure(MetricI1Misses, "misses", result.CostLocality, false, func(e Events) uint64 { return e[I1mr] }),
	}
}

// A figureEvents is how a figure of Metrics and CacheMetrics is made of a
// function's events.
type figureEvents struct {
	unit  string
	value func(Events) uint64
}

// figures are the figures Metrics and CacheMetrics record, by name, as
// functions of the events.
var figures = map[string]figureEvents{
	MetricInstructions:    {result.UnitInstructions, func(e Events) uint64 { return e[Ir] }},
	MetricOwnInstructions: {result.UnitInstructions, func(e Events) uint64 { return e[Ir] }},
	MetricD1Misses:        {"misses", Events.D1Misses},
	MetricLLMisses:        {"misses", Events.LLMisses},
	MetricEstimatedCycles: {"cycles", Events.EstimatedCycles},
	MetricD1ReadMisses:    {"misses", func(e Events) uint64 { return e[D1mr] }},
	MetricD1WriteMisses:   {"misses", func(e Events) uint64 { return e[D1mw] }},
	MetricLLReadMisses:    {"misses", func(e Events) uint64 { return e[DLmr] }},
	MetricLLWriteMisses:   {"misses", func(e Events) uint64 { return e[DLmw] }},
	MetricI1Misses:        {"misses", func(e Events) uint64 { return e[I1mr] }},
}

// Explains tells whether FigureProfile can break figure down by function:
// it is one of the figures Metrics and CacheMetrics record.
func Explains(figure string) bool {
	_, ok := figures[figure]
	return ok
}

// FigureProfile is figure (a name of Metrics' or CacheMetrics'), of
// the events of each function, as a pprof profile of one sample type
// named after the figure: what its diff against another run's says is
// where the figure moved. It counts the functions the figure counts:
// all of them for a C or C++ program and for a Go program's instructions,
// and leaves out the Go runtime's, as Counts.Own does, for a Go program's
// own instructions and cache figures (goProgram). A cache figure needs a
// run that simulated the caches.
func (c Counts) FigureProfile(figure string, goProgram bool) (*profile.Profile, error) {
	f, ok := figures[figure]
	if !ok {
		return nil, fmt.Errorf("figure %q: Cachegrind's figures are %s", figure, strings.Join(slices.Sorted(maps.Keys(figures)), ", "))
	}
	own := ownFigure(figure, goProgram)
	weights := map[string]uint64{}
	switch {
	case figure == MetricInstructions || figure == MetricOwnInstructions:
		for fn, n := range c.Functions {
			weights[fn] = n
		}
	case c.FunctionEvents == nil:
		return nil, fmt.Errorf("figure %s: the run did not simulate the caches (--cache-sim=yes)", figure)
	default:
		for fn, e := range c.FunctionEvents {
			weights[fn] = f.value(e)
		}
	}
	if own {
		maps.DeleteFunc(weights, func(fn string, _ uint64) bool { return GoRuntime(fn) })
	}
	return functionProfile(figure, f.unit, weights), nil
}

// ownFigure tells whether figure leaves out the Go runtime's functions:
// a Go program's own instructions and its cache figures (CacheMetrics).
func ownFigure(figure string, goProgram bool) bool {
	return figure == MetricOwnInstructions || goProgram && figure != MetricInstructions
}

// FigureEvents is how figure (a name of Metrics' or CacheMetrics') is
// made of events, a sum over lines or functions, and whether it leaves
// out the Go runtime's functions (GoRuntime) as FigureProfile does: what
// a breakdown of the figure by line (package attribution) must weigh and
// leave out for its parts to add up to the figure's change. A cache
// figure needs events of a run that simulated the caches.
func FigureEvents(figure string, goProgram bool) (value func(Events) uint64, own bool, err error) {
	f, ok := figures[figure]
	if !ok {
		return nil, false, fmt.Errorf("figure %q: Cachegrind's figures are %s", figure, strings.Join(slices.Sorted(maps.Keys(figures)), ", "))
	}
	return f.value, ownFigure(figure, goProgram), nil
}
