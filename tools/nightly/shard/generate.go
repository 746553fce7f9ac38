package shard

import (
	"cmp"
	"fmt"
	"slices"
)

// Generate balances the benchmarks (each with its Name, Test, Seconds
// and Duration) across n shards and returns the map. Without a previous
// map, or when keeping every benchmark of previous on its shard (and
// placing the others) would make the longest shard more than tolerance
// longer than the greedy balance (longest first, each onto the least
// loaded shard), the benchmarks are placed by that greedy balance; between
// the two, benchmarks move off the longest shard one at a time, only as
// long as each move shortens it, so that as few as possible move. The map
// lists, as Moved, every benchmark of previous whose shard changed.
func Generate(benchmarks []Benchmark, n int, previous *Map, tolerance float64) (*Map, error) {
	if n < 1 {
		return nil, fmt.Errorf("%d shards: want at least 1", n)
	}
	if !finite(tolerance) || tolerance < 0 {
		return nil, fmt.Errorf("tolerance %v: want a fraction, at least 0", tolerance)
	}
	if len(benchmarks) < n {
		return nil, fmt.Errorf("%d benchmarks on %d shards: a shard would have nothing to run", len(benchmarks), n)
	}
	// Longest first; ties by name, so that the same input gives the same map.
	order := slices.Clone(benchmarks)
	slices.SortFunc(order, func(a, b Benchmark) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Name, b.Name))
	})
	for i := 1; i < len(order); i++ {
		if order[i].Name == order[i-1].Name {
			return nil, fmt.Errorf("the benchmark %s twice", order[i].Name)
		}
	}
	was := map[string]int{}
	if previous != nil {
		for _, s := range previous.Shards {
			for _, b := range s.Benchmarks {
				was[b.Name] = s.Index
			}
		}
	}

	best := greedy(order, n, nil)
	shardOf := best
	if previous != nil {
		bound := longest(order, best, n) * (1 + tolerance)
		pinned := map[string]int{}
		for _, b := range order {
			if k, ok := was[b.Name]; ok && k < n {
				pinned[b.Name] = k
			}
		}
		kept := greedy(order, n, pinned)
		rebalance(order, kept, n, bound)
		// A shard whose benchmarks all left the suite must not stay empty.
		if longest(order, kept, n) <= bound && slices.Min(loads(order, kept, n)) > 0 {
			shardOf = kept
		}
	}

	m := &Map{SchemaVersion: SchemaVersion, Tolerance: tolerance, Shards: make([]Shard, n), Moved: []Move{}}
	for k := range m.Shards {
		m.Shards[k] = Shard{Index: k, Benchmarks: []Benchmark{}}
	}
	for _, b := range order {
		k := shardOf[b.Name]
		m.Shards[k].Benchmarks = append(m.Shards[k].Benchmarks, b)
		m.Shards[k].Seconds += b.Seconds
		if from, ok := was[b.Name]; ok && from != k {
			m.Moved = append(m.Moved, Move{Name: b.Name, From: from, To: k})
		}
	}
	for k := range m.Shards {
		slices.SortFunc(m.Shards[k].Benchmarks, func(a, b Benchmark) int { return cmp.Compare(a.Name, b.Name) })
	}
	slices.SortFunc(m.Moved, func(a, b Move) int { return cmp.Compare(a.Name, b.Name) })
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// greedy places the benchmarks, longest first, each onto the least loaded
// shard (the lowest-numbered of equals), after those pinned to theirs.
func greedy(order []Benchmark, n int, pinned map[string]int) map[string]int {
	load := make([]float64, n)
	shardOf := map[string]int{}
	for _, b := range order {
		if k, ok := pinned[b.Name]; ok {
			shardOf[b.Name] = k
			load[k] += b.Seconds
		}
	}
	for _, b := range order {
		if _, ok := pinned[b.Name]; ok {
			continue
		}
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		shardOf[b.Name] = k
		load[k] += b.Seconds
	}
	return shardOf
}

// rebalance moves benchmarks from the longest shard to the shortest, one
// at a time, while the longest is over bound and a move shortens it: each
// time the one that leaves the two closest.
func rebalance(order []Benchmark, shardOf map[string]int, n int, bound float64) {
	for range order {
		load := loads(order, shardOf, n)
		hi, lo := 0, 0
		for k := range load {
			if load[k] > load[hi] {
				hi = k
			}
			if load[k] < load[lo] {
				lo = k
			}
		}
		if load[hi] <= bound {
			return
		}
		pick, after := "", load[hi]
		for _, b := range order {
			if shardOf[b.Name] != hi {
				continue
			}
			if m := max(load[hi]-b.Seconds, load[lo]+b.Seconds); m < after {
				pick, after = b.Name, m
			}
		}
		if pick == "" {
			return
		}
		shardOf[pick] = lo
	}
}

func loads(order []Benchmark, shardOf map[string]int, n int) []float64 {
	load := make([]float64, n)
	for _, b := range order {
		load[shardOf[b.Name]] += b.Seconds
	}
	return load
}

func longest(order []Benchmark, shardOf map[string]int, n int) float64 {
	return slices.Max(loads(order, shardOf, n))
}
