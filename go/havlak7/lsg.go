package main

import "havlak-lab/go/internal/lab"

// noLoop marks "no loop": a block in none, a loop directly under the root.
const noLoop = -1

// Loop kinds.
const (
	reducible uint8 = iota
	irreducible
	selfLoop
)

// LSG is a loop structure graph: the loops of a CFG, nested in a tree under
// an artificial root. It is a handful of parallel slices indexed by loop
// number, loops numbered in the order they are found (inner before outer),
// rather than a graph of loop objects: one pass fills it with a few appends
// and no allocation, and the next reuses its memory.
//
// A loop's blocks are not listed either: each node of the pass records
// the innermost loop holding it as it joins a body, in memory the pass
// touches anyway, and Structure lists the blocks from there when -dump
// asks, once. (Keeping a list per loop, or even one entry per block, costs
// every pass about 6%.)
type LSG struct {
	header      []int32 // the header block of each loop
	parent      []int32 // each loop's enclosing loop, or noLoop
	kind        []uint8
	depth       []int32 // 1 for the outermost loops; the root is 0
	nesting     []int32 // 0 for the innermost loops
	rootNesting int32
	// The nodes of the pass that found the loops, which Structure reads;
	// valid until the LoopFinder's next pass.
	nodes []node
}

// reset empties the graph, keeping its memory.
func (lsg *LSG) reset() {
	lsg.header = lsg.header[:0]
	lsg.parent = lsg.parent[:0]
	lsg.kind = lsg.kind[:0]
	lsg.depth = lsg.depth[:0]
	lsg.nesting = lsg.nesting[:0]
	lsg.rootNesting = 0
	lsg.nodes = nil
}

// newLoop adds a loop headed by header and returns its number.
func (lsg *LSG) newLoop(header int32, kind uint8) int32 {
	lsg.header = append(lsg.header, header)
	lsg.parent = append(lsg.parent, noLoop)
	lsg.kind = append(lsg.kind, kind)
	lsg.depth = append(lsg.depth, 0)
	lsg.nesting = append(lsg.nesting, 0)
	return int32(len(lsg.header) - 1)
}

// NumLoops is the number of loops, not counting the root.
func (lsg *LSG) NumLoops() int { return len(lsg.header) }

// calculateDepth sets every loop's depth, and the root's nesting level.
// A loop is found after the loops inside it, so walking the loops from
// the last found meets every parent before its children. (Nesting levels
// are set as loops are found: by then their inner loops are complete.)
func (lsg *LSG) calculateDepth() {
	for l := len(lsg.header) - 1; l >= 0; l-- {
		if p := lsg.parent[l]; p == noLoop {
			lsg.depth[l] = 1
			lsg.rootNesting = max(lsg.rootNesting, lsg.nesting[l]+1)
		} else {
			lsg.depth[l] = lsg.depth[p] + 1
		}
	}
}

// Structure describes the graph in the form every stage dumps. It must be
// called before the LoopFinder that filled the graph runs another pass.
func (lsg *LSG) Structure() lab.Structure {
	s := lab.Structure{RootNesting: int(lsg.rootNesting), Loops: make([]lab.Loop, len(lsg.header))}
	for l := range s.Loops {
		loop := &s.Loops[l]
		loop.Header = int(lsg.header[l])
		loop.Parent = lab.NoParent
		if p := lsg.parent[l]; p != noLoop {
			loop.Parent = int(lsg.header[p])
		}
		loop.Depth = int(lsg.depth[l])
		loop.Nesting = int(lsg.nesting[l])
		loop.Kind = map[uint8]lab.Kind{reducible: lab.Reducible, irreducible: lab.Irreducible, selfLoop: lab.Self}[lsg.kind[l]]
	}
	for _, n := range lsg.nodes {
		if n.loop != noLoop {
			s.Loops[n.loop].Blocks = append(s.Loops[n.loop].Blocks, int(n.block))
		}
	}
	return s
}
