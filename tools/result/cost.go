package result

import "slices"

// The kinds of cost a metric stands for (Metric.Cost): what a regression
// of the figure means the program spends more of. The producer of a
// metric declares it with the metric, so that every reader (the report,
// the verdict's words, the perf check's comment) names it without a
// table of metric names of its own.
const (
	// CostWork: more instructions executed.
	CostWork = "work"
	// CostLocality: more cache misses: the same work reaching memory
	// worse.
	CostLocality = "locality"
	// CostWorkAndLocality: both, weighed together (an estimated cycle
	// count).
	CostWorkAndLocality = "work and locality"
	// CostMemoryManagement: more allocations, and with them more of the
	// allocator's and the collector's work.
	CostMemoryManagement = "memory management"
	// CostSystemCalls: more system calls, each a trip into the kernel.
	CostSystemCalls = "system calls"
	// CostContention: more time waiting for locks that other goroutines
	// hold: waiting, not working.
	CostContention = "contention"
	// CostTime: wall or CPU time, all costs at once, noisy.
	CostTime = "time"
	// CostMemory: memory held (max RSS, heap mapped).
	CostMemory = "memory"
)

// Costs are the kinds of cost a metric may declare.
var Costs = []string{CostWork, CostLocality, CostWorkAndLocality, CostMemoryManagement, CostSystemCalls, CostContention, CostTime, CostMemory}

// MovedByLayout tells whether a figure of cost moves with where the
// program's code and data lie, as a layout variant of it (tools/perf/
// private/layout.bzl) moves them: its cache misses, and the cycles
// estimated from them. A layout variant's other figures differ from the
// program's by what its padding does (a C++ variant allocates its heap
// padding: 4 objects, 2.5% of havlak7cc's), not by layout.
func MovedByLayout(cost string) bool {
	return cost == CostLocality || cost == CostWorkAndLocality
}

// validCost tells whether cost is one of Costs, or "" (undeclared: the
// results of schema 2 before the field).
func validCost(cost string) bool { return cost == "" || slices.Contains(Costs, cost) }
