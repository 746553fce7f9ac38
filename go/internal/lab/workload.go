package lab

// Graph receives the blocks and edges of a control-flow graph. Blocks are
// named by non-negative integers and created on first mention; block 0 is
// the entry.
type Graph interface {
	CreateNode(name int)
	AddEdge(from, to int)
}

// BuildSimpleCFG adds the tiny CFG of the warm-up passes: blocks 0 and 1,
// and an edge from 0 to a new block 2.
func BuildSimpleCFG(g Graph) {
	g.CreateNode(0)
	g.CreateNode(1)
	g.AddEdge(0, 2)
}

// BuildWorkload extends the simple CFG into the benchmark's main CFG: trees
// subtrees hanging off block 2, each a chain of loops outer loops, each of
// which holds a chain of baseLoops three-loop nests. Every subtree ends in
// block 1.
func BuildWorkload(g Graph, trees, loops, baseLoops int) {
	b := builder{g}
	n := 2
	for t := 0; t < trees; t++ {
		g.CreateNode(n + 1)
		g.AddEdge(2, n+1)
		n++
		for l := 0; l < loops; l++ {
			top := n
			n = b.straight(n, 1)
			for k := 0; k < baseLoops; k++ {
				n = b.baseLoop(n)
			}
			bottom := b.straight(n, 1)
			g.AddEdge(n, top)
			n = bottom
		}
		g.AddEdge(n, 1)
	}
}

// WorkloadBlocks is the number of blocks BuildWorkload's CFG has, or
// MaxBlocks+1 when it would have more.
func WorkloadBlocks(trees, loops, baseLoops int) int {
	const tooMany = MaxBlocks + 1
	mul := func(a, b int) int {
		if a != 0 && b > tooMany/a {
			return tooMany
		}
		return min(a*b, tooMany)
	}
	add := func(a, b int) int { return min(a+b, tooMany) }
	perLoop := add(2, mul(10, baseLoops)) // see baseLoop
	perTree := add(1, mul(loops, perLoop))
	return add(3, mul(trees, perTree))
}

type builder struct{ g Graph }

// straight adds a chain of n edges from start and returns its last block.
func (b builder) straight(start, n int) int {
	for i := 0; i < n; i++ {
		b.g.AddEdge(start+i, start+i+1)
	}
	return start + n
}

// diamond adds an if-then-else from start and returns the join block.
func (b builder) diamond(start int) int {
	b.g.AddEdge(start, start+1)
	b.g.AddEdge(start, start+2)
	b.g.AddEdge(start+1, start+3)
	b.g.AddEdge(start+2, start+3)
	return start + 3
}

// baseLoop adds three nested loops after from: two diamonds, each inside a
// loop of its own, inside a loop back to from. It returns the exit block.
func (b builder) baseLoop(from int) int {
	header := b.straight(from, 1)
	diamond1 := b.diamond(header)
	d11 := b.straight(diamond1, 1)
	diamond2 := b.diamond(d11)
	footer := b.straight(diamond2, 1)
	b.g.AddEdge(diamond2, d11)
	b.g.AddEdge(diamond1, header)
	b.g.AddEdge(footer, from)
	return b.straight(footer, 1)
}
