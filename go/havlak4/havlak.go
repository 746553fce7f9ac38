package main

import (
	"container/list"

	"havlak-lab/go/internal/lab"
)

// UnionFindNode is a block's entry in the union-find structure that
// collapses each loop body onto its header as loops are found.
type UnionFindNode struct {
	parent    *UnionFindNode
	bb        *BasicBlock
	loop      *SimpleLoop // the innermost loop headed by bb, if any
	dfsNumber int
}

// Init makes the node a set of its own for bb, numbered dfsNumber.
func (u *UnionFindNode) Init(bb *BasicBlock, dfsNumber int) {
	u.parent = u
	u.bb = bb
	u.dfsNumber = dfsNumber
	u.loop = nil
}

// FindSet returns the representative of u's set and points every node on
// the way straight at it.
func (u *UnionFindNode) FindSet() *UnionFindNode {
	root := u
	for root.parent != root {
		root = root.parent
	}
	for u != root {
		next := u.parent
		u.parent = root
		u = next
	}
	return root
}

// Union merges u's set into the set represented by b.
func (u *UnionFindNode) Union(b *UnionFindNode) { u.parent = b }

// Block types, from Havlak's paper.
const (
	bbNonHeader   = iota // a block that heads no loop
	bbReducible          // the header of a reducible loop
	bbSelf               // a block whose only back edge is to itself
	bbIrreducible        // the header of an irreducible loop
)

// unvisited is the DFS number of blocks the search never reached.
const unvisited = -1

// isAncestor reports whether the block numbered w is v or an ancestor of v
// in the DFS tree: preorder numbers a subtree consecutively.
func isAncestor(w, v int, last []int) bool {
	return w <= v && v <= last[w]
}

// DFS numbers the blocks reachable from currentNode in preorder, starting
// at current, and records in last the highest number in each subtree. It
// returns the highest number it gave.
func DFS(currentNode *BasicBlock, nodes []*UnionFindNode, number []int, last []int, current int) int {
	nodes[current].Init(currentNode, current)
	number[currentNode.Name] = current
	lastID := current
	for _, target := range currentNode.OutEdges {
		if number[target.Name] == unvisited {
			lastID = DFS(target, nodes, number, last, lastID+1)
		}
	}
	last[number[currentNode.Name]] = lastID
	return lastID
}

// FindLoops finds the loops of cfg with Havlak's algorithm ("Nesting of
// reducible and irreducible loops", TOPLAS 1997) and adds them to lsg.
// It fails only with lab.ErrTooIrreducible.
func FindLoops(cfg *CFG, lsg *LSG) error {
	if len(cfg.Blocks) == 0 {
		return nil
	}
	size := len(cfg.Blocks)
	nonBackPreds := make([][]int, size)
	backPreds := make([][]int, size)
	number := make([]int, size)
	types := make([]int, size)
	last := make([]int, size)
	nodes := make([]*UnionFindNode, size)
	for i := range nodes {
		nodes[i] = new(UnionFindNode)
	}
	inPool := make([]bool, size) // by DFS number: is the node in nodePool?
	for i := range number {
		number[i] = unvisited
	}

	// Step a: number the blocks reachable from the entry in DFS preorder.
	reached := DFS(cfg.Blocks[0], nodes, number, last, 0) + 1

	// Step b: sort each block's predecessors into back edges, which come
	// from its DFS subtree, and the others. Edges from blocks the search
	// never reached do not count.
	for w := 0; w < reached; w++ {
		types[w] = bbNonHeader
		for _, nodeV := range nodes[w].bb.InEdges {
			v := number[nodeV.Name]
			if v == unvisited {
				continue
			}
			if isAncestor(w, v, last) {
				backPreds[w] = append(backPreds[w], v)
			} else {
				nonBackPreds[w] = append(nonBackPreds[w], v)
			}
		}
	}

	// Steps c-f: visit the blocks from the last in preorder back to the
	// entry, so inner loops are found before the loops around them. A block
	// with back edges heads a loop whose body is everything that reaches a
	// back edge's source without passing through the header; inner loops
	// already found count as their header's set.
	moved := 0
	for w := reached - 1; w >= 0; w-- {
		var nodePool []*UnionFindNode
		nodeW := nodes[w].bb

		// Step d: the sources of the back edges seed the body.
		for _, v := range backPreds[w] {
			if v == w {
				types[w] = bbSelf
			} else if node := nodes[v].FindSet(); !inPool[node.dfsNumber] {
				inPool[node.dfsNumber] = true
				nodePool = append(nodePool, node)
			}
		}
		workList := list.New()
		for _, node := range nodePool {
			workList.PushBack(node)
		}
		if len(nodePool) != 0 {
			types[w] = bbReducible
		}

		nonBackBefore := len(nonBackPreds[w])

		// Step e: grow the body backwards along the other edges. A
		// predecessor outside w's DFS subtree enters the loop somewhere
		// other than its header: the loop is irreducible, and the edge
		// moves to w.
		for workList.Len() > 0 {
			x := workList.Remove(workList.Front()).(*UnionFindNode)
			for _, y := range nonBackPreds[x.dfsNumber] {
				ydash := nodes[y].FindSet()
				if !isAncestor(w, ydash.dfsNumber, last) {
					types[w] = bbIrreducible
					nonBackPreds[w] = appendUnique(nonBackPreds[w], ydash.dfsNumber)
				} else if ydash.dfsNumber != w && !inPool[ydash.dfsNumber] {
					inPool[ydash.dfsNumber] = true
					nodePool = append(nodePool, ydash)
					workList.PushBack(ydash)
				}
			}
		}

		if moved += len(nonBackPreds[w]) - nonBackBefore; moved > lab.MaxMovedEdges {
			return lab.ErrTooIrreducible
		}

		// Step f: make the loop and collapse its body onto w.
		if len(nodePool) != 0 || types[w] == bbSelf {
			loop := lsg.NewLoop()
			loop.SetHeader(nodeW)
			loop.isReducible = types[w] != bbIrreducible
			loop.isSelfLoop = types[w] == bbSelf
			nodes[w].loop = loop
			for _, node := range nodePool {
				node.Union(nodes[w])
				if node.loop != nil {
					node.loop.SetParent(loop)
				} else {
					loop.AddNode(node.bb)
				}
			}
			lsg.AddLoop(loop)
		}
		for _, node := range nodePool {
			inPool[node.dfsNumber] = false
		}
	}
	lsg.CalculateNestingLevel()
	return nil
}

// appendUnique appends x to a unless a already holds it.
func appendUnique(a []int, x int) []int {
	for _, y := range a {
		if y == x {
			return a
		}
	}
	return append(a, x)
}
