package main

import "havlak-lab/go/internal/lab"

// A LoopFinder finds loops with Havlak's algorithm ("Nesting of reducible
// and irreducible loops", TOPLAS 1997). It owns its working memory, which
// each pass reuses from the one before; separate LoopFinders can run at the
// same time. The zero value is ready to use.
//
// Blocks and nodes are int32 indexes into flat slices, never pointers: a
// pass sweeps a few dense arrays instead of chasing a pointer per block and
// per node, and 4-byte indexes halve what the caches must hold.
type LoopFinder struct {
	cfg *CFG // of the current pass

	number []int32 // by block: its DFS preorder number, or unvisited
	nodes  []node  // by DFS number
	pool   []int32 // the current loop body, also its work list
	stack  []dfsFrame

	// Edges moved to a header by irreducible loops: per node a linked
	// list through an arena, rare enough not to need better. seen marks,
	// with the current header's stamp, the predecessors it already has, so
	// that an edge moves once; stamped tells whether it has a stamp yet.
	movedHead  []int32 // by DFS number: the first entry, or -1
	movedNext  []int32
	moved      []int32
	movedEdges int // in this pass
	seen       []uint32
	stamp      uint32
	stamped    bool
}

// node is the state of a DFS-numbered block. Its fields are used together,
// so they are stored together (an array of structs): one bounds check and,
// mostly, one cache line per node, and few enough slices for the compiler
// to keep them in registers.
type node struct {
	block    int32 // the block numbered so
	last     int32 // the highest number in the node's DFS subtree; unvisited while on the DFS stack
	parent   int32 // in the union-find that collapses loop bodies: a node, or itself for a root
	loop     int32 // the innermost loop holding the node (the one it heads if isHeader), or noLoop
	isHeader bool  // it has a back edge
	inPool   bool  // it is in the current loop body; false between headers
}

type dfsFrame struct {
	node      int32 // DFS number
	edge, end int32 // the successor edges still to follow, cfg.succ[edge:end]
}

// unvisited is the DFS number of blocks the search has not reached.
const unvisited = -1

// grow sizes the working memory for cfg, reusing what it has.
func (f *LoopFinder) grow(cfg *CFG) {
	n := cfg.numBlocks
	f.number = resize(f.number, n)
	f.nodes = resize(f.nodes, n)
	f.stack = resize(f.stack, n)
	f.movedHead = resize(f.movedHead, n)
	if len(f.seen) < n {
		f.seen = make([]uint32, n)
		f.stamp = 0
	}
}

// dfs numbers the blocks reachable from the entry in preorder, following
// successors in the order their edges were added, records each subtree's
// highest number in last, and sets every node up for the loop search. It
// is the recursive DFS of the other stages with an explicit stack, which
// deep CFGs cannot overflow. It returns how many blocks it reached.
//
// It also finds the loop headers: an edge to a node still on the stack, an
// ancestor, is a back edge (a predecessor numbered in its target's
// subtree), so the pass needs no sweep over all predecessors to find them.
func (f *LoopFinder) dfs(cfg *CFG) int32 {
	number, nodes, stack := f.number, f.nodes, f.stack
	succStart, succ := cfg.succStart, cfg.succ
	for i := range number {
		number[i] = unvisited
	}
	number[0] = 0
	nodes[0] = node{block: 0, last: unvisited, parent: 0, loop: noLoop}
	stack[0] = dfsFrame{node: 0, edge: succStart[0], end: succStart[1]}
	next := int32(1)
	for sp := 0; sp >= 0; {
		top := &stack[sp]
		e, end := top.edge, top.end
		for ; e < end; e++ {
			t := number[succ[e]]
			if t == unvisited {
				break
			}
			if nodes[t].last == unvisited { // on the stack: a back edge
				nodes[t].isHeader = true
			}
		}
		if e == end {
			nodes[top.node].last = next - 1
			sp--
			continue
		}
		top.edge = e + 1
		b := succ[e]
		number[b] = next
		nodes[next] = node{block: b, last: unvisited, parent: next, loop: noLoop}
		sp++
		stack[sp] = dfsFrame{node: next, edge: succStart[b], end: succStart[b+1]}
		next++
	}
	return next
}

// find returns the representative of x's set and points every node on the
// way straight at it.
func (f *LoopFinder) find(x int32) int32 {
	nodes := f.nodes
	root := x
	for nodes[root].parent != root {
		root = nodes[root].parent
	}
	for nodes[x].parent != root {
		nodes[x].parent, x = root, nodes[x].parent
	}
	return root
}

// FindLoops finds the loops of cfg and puts them into lsg. It fails only
// with lab.ErrTooIrreducible.
//
// The other stages first sort every node's predecessors into back edges
// and the others and store both lists; this pass classifies them where it
// needs them instead, from the DFS numbers (a predecessor of w is a back
// edge exactly when it is numbered within w's subtree), and only looks at
// the predecessors of the nodes that have a back edge (in the standard
// CFG, 76000 of 252013) and of their loop bodies.
func (f *LoopFinder) FindLoops(cfg *CFG, lsg *LSG) error {
	lsg.reset()
	if cfg.numBlocks == 0 {
		return nil
	}
	cfg.build()
	f.grow(cfg)
	f.cfg = cfg

	// Steps a and b: number the blocks reachable from the entry in DFS
	// preorder, and find the nodes with a back edge. Edges from blocks the
	// search never reached do not count, there or below.
	reached := f.dfs(cfg)
	for i := range f.movedHead[:reached] {
		f.movedHead[i] = -1
	}
	f.movedNext, f.moved, f.movedEdges = f.movedNext[:0], f.moved[:0], 0

	// Steps c-f: visit the headers from the last in preorder back to the
	// entry, so inner loops are found before the loops around them.
	nodes := f.nodes
	for w := reached - 1; w >= 0; w-- {
		if !nodes[w].isHeader {
			continue
		}
		kind := f.collectBody(w)
		if f.movedEdges > lab.MaxMovedEdges {
			return lab.ErrTooIrreducible
		}

		// Step f: make the loop and collapse its body onto w.
		loop := lsg.newLoop(nodes[w].block, kind)
		nodes[w].loop = loop
		nesting := int32(0)
		for _, x := range f.pool {
			n := &nodes[x]
			n.parent = w
			n.inPool = false
			if n.isHeader {
				lsg.parent[n.loop] = loop
				nesting = max(nesting, lsg.nesting[n.loop]+1)
			} else {
				n.loop = loop
			}
		}
		lsg.nesting[loop] = nesting
	}
	lsg.calculateDepth()
	lsg.nodes = nodes[:reached]
	return nil
}

// collectBody gathers into f.pool the body of the loop headed by w: the
// nodes that reach a back edge's source without passing through w, each
// loop already found counting as its header's set. It returns the loop's
// kind.
func (f *LoopFinder) collectBody(w int32) (kind uint8) {
	nodes, number, pool := f.nodes, f.number, f.pool[:0]
	predStart, pred := f.cfg.predStart, f.cfg.pred
	lastW := nodes[w].last

	// Step d: the sources of the back edges seed the body. A header whose
	// only back edge comes from itself is a self loop.
	b := nodes[w].block
	for _, p := range pred[predStart[b]:predStart[b+1]] {
		v := number[p]
		if v <= w || v > lastW {
			continue // not a back edge, or a self edge
		}
		if nodes[v].parent != v {
			v = f.find(v)
		}
		if !nodes[v].inPool {
			nodes[v].inPool = true
			pool = append(pool, v)
		}
	}
	kind = reducible
	if len(pool) == 0 {
		kind = selfLoop
	}

	// Step e: grow the body backwards along the other edges of its nodes;
	// the pool is its own work list. A predecessor outside w's DFS subtree
	// enters the loop elsewhere than its header: the loop is irreducible,
	// and the edge moves to w (see move).
	f.stamped = false
	for i := 0; i < len(pool); i++ {
		x := pool[i]
		bx, lastX := nodes[x].block, nodes[x].last
		for _, p := range pred[predStart[bx]:predStart[bx+1]] {
			v := number[p]
			if v == unvisited || v >= x && v <= lastX {
				continue // unreached, or a back edge
			}
			if nodes[v].parent != v {
				v = f.find(v)
			}
			// absorb, by hand: in Go's calling convention every register
			// is the caller's to save, so a call here would spill and
			// reload all of this loop's state for every predecessor.
			if v < w || v > lastW {
				kind = irreducible
				f.move(w, v)
			} else if n := &nodes[v]; v != w && !n.inPool {
				n.inPool = true
				pool = append(pool, v)
			}
		}
		if len(f.moved) == 0 {
			continue // nothing has moved in this pass, as in most
		}
		for m := f.movedHead[x]; m >= 0; m = f.movedNext[m] {
			v := f.find(f.moved[m])
			if pool = f.absorb(pool, w, lastW, v); v < w || v > lastW {
				kind = irreducible
			}
		}
	}
	f.pool = pool
	return kind
}

// absorb takes the representative v of a predecessor of the body of the
// loop headed by w into the body, unless it is there already or is w; when
// it lies outside w's DFS subtree, ending at lastW, it moves the edge to w.
func (f *LoopFinder) absorb(pool []int32, w, lastW, v int32) []int32 {
	if v < w || v > lastW {
		f.move(w, v)
	} else if n := &f.nodes[v]; v != w && !n.inPool {
		n.inPool = true
		pool = append(pool, v)
	}
	return pool
}

// move adds the edge from node v to w's moved edges, unless w has an edge
// from v already.
func (f *LoopFinder) move(w, v int32) {
	if !f.stamped {
		f.stampPredecessors(w)
		f.stamped = true
	}
	if f.seen[v] == f.stamp {
		return
	}
	f.seen[v] = f.stamp
	f.movedNext = append(f.movedNext, f.movedHead[w])
	f.moved = append(f.moved, v)
	f.movedHead[w] = int32(len(f.moved) - 1)
	f.movedEdges++
}

// stampPredecessors marks with a new stamp the non-back-edge predecessors
// w has, original and moved.
func (f *LoopFinder) stampPredecessors(w int32) {
	f.stamp++
	if f.stamp == 0 { // wrapped around: forget every old stamp
		clear(f.seen)
		f.stamp = 1
	}
	b, lastW := f.nodes[w].block, f.nodes[w].last
	for _, p := range f.cfg.predecessors(b) {
		if v := f.number[p]; v != unvisited && (v < w || v > lastW) {
			f.seen[v] = f.stamp
		}
	}
	for m := f.movedHead[w]; m >= 0; m = f.movedNext[m] {
		f.seen[f.moved[m]] = f.stamp
	}
}
