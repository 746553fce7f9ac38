package main

import "havlak-lab/go/internal/lab"

// SimpleLoop is a loop of the loop structure graph.
type SimpleLoop struct {
	basicBlocks []*BasicBlock // the header and blocks in no inner loop
	children    []*SimpleLoop
	parent      *SimpleLoop
	header      *BasicBlock

	isRoot       bool
	isReducible  bool
	isSelfLoop   bool
	nestingLevel int
	depthLevel   int
}

// AddNode makes bb a block of the loop.
func (loop *SimpleLoop) AddNode(bb *BasicBlock) { loop.basicBlocks = append(loop.basicBlocks, bb) }

// AddChildLoop makes child a loop nested directly in this one.
func (loop *SimpleLoop) AddChildLoop(child *SimpleLoop) { loop.children = append(loop.children, child) }

// SetParent nests the loop directly in parent.
func (loop *SimpleLoop) SetParent(parent *SimpleLoop) {
	loop.parent = parent
	parent.AddChildLoop(loop)
}

// SetHeader makes bb the loop's header, which is also one of its blocks.
func (loop *SimpleLoop) SetHeader(bb *BasicBlock) {
	loop.AddNode(bb)
	loop.header = bb
}

// LSG is a loop structure graph: the loops of a CFG, nested in a tree under
// an artificial root loop.
type LSG struct {
	root  *SimpleLoop
	loops []*SimpleLoop // all loops but the root
}

// NewLSG returns a loop structure graph with only its root.
func NewLSG() *LSG {
	lsg := new(LSG)
	lsg.root = lsg.NewLoop()
	lsg.root.isRoot = true
	return lsg
}

// NewLoop returns a loop that still has to be added to the graph.
func (lsg *LSG) NewLoop() *SimpleLoop {
	return &SimpleLoop{isReducible: true}
}

// AddLoop adds loop to the graph.
func (lsg *LSG) AddLoop(loop *SimpleLoop) { lsg.loops = append(lsg.loops, loop) }

// NumLoops is the number of loops, not counting the root.
func (lsg *LSG) NumLoops() int { return len(lsg.loops) }

// CalculateNestingLevel hangs the outermost loops under the root, then sets
// each loop's depth (from the root down) and nesting level (from the
// innermost loops up).
func (lsg *LSG) CalculateNestingLevel() {
	for _, loop := range lsg.loops {
		if loop.parent == nil {
			loop.SetParent(lsg.root)
		}
	}
	calculateNestingLevel(lsg.root, 0)
}

func calculateNestingLevel(loop *SimpleLoop, depth int) {
	loop.depthLevel = depth
	for _, child := range loop.children {
		calculateNestingLevel(child, depth+1)
		loop.nestingLevel = max(loop.nestingLevel, child.nestingLevel+1)
	}
}

// Structure describes the graph in the form every stage dumps.
func (lsg *LSG) Structure() lab.Structure {
	s := lab.Structure{RootNesting: lsg.root.nestingLevel}
	for _, loop := range lsg.loops {
		l := lab.Loop{
			Header:  loop.header.Name,
			Parent:  lab.NoParent,
			Depth:   loop.depthLevel,
			Nesting: loop.nestingLevel,
			Kind:    lab.LoopKind(loop.isReducible, loop.isSelfLoop),
		}
		if !loop.parent.isRoot {
			l.Parent = loop.parent.header.Name
		}
		for _, bb := range loop.basicBlocks {
			l.Blocks = append(l.Blocks, bb.Name)
		}
		s.Loops = append(s.Loops, l)
	}
	return s
}
