package detection

import (
	"cmp"
	"slices"
)

// A Sight is the smallest regression case the suite caught with a gated
// figure: what a reader of a verdict on that figure can expect it to see.
type Sight struct {
	// Size is the case's nominal size ("0.5%"); Percent the same as a
	// number.
	Size    string
	Percent float64
	// Case, Kind and Language are the case's.
	Case, Kind, Language string
	// Benchmark is the benchmark the case was injected into; Own tells
	// whether it is the one asked about. A case on another benchmark says
	// what the figure caught there, not here.
	Benchmark string
	Own       bool
	// Meant tells whether the case was made for this figure to catch (its
	// Figure), rather than caught by it on the way.
	Meant bool
}

// Sees is the smallest case the suite caught with figure: among the cases
// injected into benchmark itself; when figure caught none of those, among
// the other benchmarks' cases of the same language (language "" when the
// caller does not know it), then of any. ok is false when figure caught
// no case at all.
//
// Benchmarks and figures are matched by name only, never read for
// meaning: the suite's record says which benchmark each case went into,
// and the gated figures that failed by their verdicts' names. A case that
// could not be run tells nothing, and one that also loosens its
// benchmark's declared gate is left out: the base's gate caught it, but it
// is there to show that a change cannot loosen a gate, not how small a
// regression the figure sees (its size is one of the plain cases' too).
// Cases of benchmark that figure missed at smaller sizes need no mention:
// the smallest caught is the answer to "what can it see".
func (r *Record) Sees(benchmark, language, figure string) (s Sight, ok bool) {
	var own, same, other []Sight
	for _, c := range r.Cases {
		if !c.Caught() || c.Loosens != "" || !slices.Contains(c.CaughtBy, figure) {
			continue
		}
		p, err := c.SizePercent()
		if err != nil {
			continue // Parse refuses such a record; one made in code may not
		}
		s := Sight{Size: c.Size, Percent: p, Case: c.Name, Kind: c.Kind, Language: c.Language,
			Benchmark: c.Benchmark, Own: c.Benchmark == benchmark, Meant: c.Figure == figure}
		switch {
		case s.Own:
			own = append(own, s)
		case language != "" && c.Language == language:
			same = append(same, s)
		default:
			other = append(other, s)
		}
	}
	for _, sights := range [][]Sight{own, same, other} {
		if len(sights) > 0 {
			return smallest(sights), true
		}
	}
	return Sight{}, false
}

// smallest is the sight of the smallest size; of equal sizes, a case made
// for the figure first (instructions' 0.5% is told as extra work, not as
// the 0.5% of allocations it also caught: the kind it is there to see),
// then the case named first, so that the answer does not hang on the
// record's order.
func smallest(sights []Sight) Sight {
	meantFirst := func(s Sight) int {
		if s.Meant {
			return 0
		}
		return 1
	}
	return slices.MinFunc(sights, func(a, b Sight) int {
		return cmp.Or(cmp.Compare(a.Percent, b.Percent), cmp.Compare(meantFirst(a), meantFirst(b)), cmp.Compare(a.Case, b.Case))
	})
}

// Missed is the largest case injected into benchmark for figure to catch
// (its Figure) that figure did not catch, though the case ran: what it
// cannot see there, when Sees has only other benchmarks' cases to tell.
// ok is false when there is none. A loosening case is left out, as Sees
// leaves it out.
func (r *Record) Missed(benchmark, figure string) (s Sight, ok bool) {
	for _, c := range r.Cases {
		if c.Benchmark != benchmark || c.Figure != figure || c.Err != "" || c.Loosens != "" || slices.Contains(c.CaughtBy, figure) {
			continue
		}
		p, err := c.SizePercent()
		if err != nil || (ok && p <= s.Percent) {
			continue
		}
		s, ok = Sight{Size: c.Size, Percent: p, Case: c.Name, Kind: c.Kind, Language: c.Language, Benchmark: c.Benchmark, Own: true, Meant: true}, true
	}
	return s, ok
}
