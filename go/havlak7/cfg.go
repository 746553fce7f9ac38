package main

// CFG is a control-flow graph whose blocks are named by small integers and
// created on first mention; block 0 is the entry.
//
// Blocks are plain int32 indexes, not objects: edges are kept as they come,
// in two parallel slices, and turned into compressed sparse rows (CSR: one
// offsets slice and one targets slice per direction) the first time loops
// are found after a change. Then every pass walks the successors and
// predecessors of a block as one contiguous run of int32s, with no pointer
// to chase, and the whole graph takes 4 slices instead of two slices per
// block.
type CFG struct {
	numBlocks int
	from, to  []int32 // the edges, in the order they were added

	// The CSR adjacency, valid while built is true: the successors of
	// block b are succ[succStart[b]:succStart[b+1]], in the order their
	// edges were added (which the DFS numbering depends on); likewise pred.
	built     bool
	succStart []int32
	succ      []int32
	predStart []int32
	pred      []int32
}

// CreateNode makes sure block name exists.
func (cfg *CFG) CreateNode(name int) {
	if name >= cfg.numBlocks {
		cfg.numBlocks = name + 1
		cfg.built = false
	}
}

// AddEdge adds an edge between two blocks, creating them if needed.
func (cfg *CFG) AddEdge(from, to int) {
	cfg.CreateNode(max(from, to))
	cfg.from = append(cfg.from, int32(from))
	cfg.to = append(cfg.to, int32(to))
	cfg.built = false
}

// build turns the edge list into the CSR adjacency, reusing its memory.
func (cfg *CFG) build() {
	if cfg.built {
		return
	}
	cfg.succStart, cfg.succ = csr(cfg.succStart, cfg.succ, cfg.numBlocks, cfg.from, cfg.to)
	cfg.predStart, cfg.pred = csr(cfg.predStart, cfg.pred, cfg.numBlocks, cfg.to, cfg.from)
	cfg.built = true
}

// csr groups the edges src[i] -> dst[i] by source: a counting sort that
// keeps each source's edges in their original order.
func csr(start, targets []int32, numBlocks int, src, dst []int32) ([]int32, []int32) {
	start = resize(start, numBlocks+1)
	clear(start)
	for _, s := range src {
		start[s+1]++
	}
	for b := 0; b < numBlocks; b++ {
		start[b+1] += start[b]
	}
	targets = resize(targets, len(src))
	next := start[:numBlocks] // where the next edge of each source goes
	for i, s := range src {
		targets[next[s]] = dst[i]
		next[s]++
	}
	// next advanced each source's start to the following one's: shift back.
	copy(start[1:], start[:numBlocks])
	start[0] = 0
	return start, targets
}

// predecessors returns the blocks with an edge to b, once built.
func (cfg *CFG) predecessors(b int32) []int32 {
	return cfg.pred[cfg.predStart[b]:cfg.predStart[b+1]]
}

// resize returns s with length n, reusing its memory when it is big enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
