package lab

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Kind tells how a loop was entered.
type Kind int

const (
	// Reducible loops are entered only through their header.
	Reducible Kind = iota
	// Irreducible loops have entries other than their header.
	Irreducible
	// Self loops are a header whose only back edge is to itself.
	Self
)

func (k Kind) String() string {
	switch k {
	case Reducible:
		return "reducible"
	case Irreducible:
		return "irreducible"
	case Self:
		return "self"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// NoParent is the Parent of a loop that sits directly under the artificial
// root of the loop structure graph.
const NoParent = -1

// A Loop is one loop of a loop structure graph, in stage-neutral form. Block
// numbers are the names the stage's CFG uses.
type Loop struct {
	Header  int
	Parent  int // header of the enclosing loop, or NoParent
	Depth   int // 1 for outermost loops; the root is 0
	Nesting int // 0 for innermost loops; 1 + the deepest child's otherwise
	Kind    Kind
	Blocks  []int // the header and the blocks in no inner loop
}

// A Structure is a loop structure graph in stage-neutral form.
type Structure struct {
	RootNesting int
	Loops       []Loop
}

// WriteDump prints s in the canonical form that every stage shares:
//
//	root depth=0 nest=2
//	loop 1 depth=1 nest=1 parent=root reducible blocks=1,4
//	loop 2 depth=2 nest=0 parent=1 self blocks=2
//
// one line per loop, sorted by header, blocks sorted. names maps the
// stage's block numbers to the ones to print; nil prints them as they are.
func WriteDump(w io.Writer, s Structure, names []int) error {
	name := func(block int) int {
		if names == nil {
			return block
		}
		return names[block]
	}
	loops := make([]Loop, len(s.Loops))
	copy(loops, s.Loops)
	sort.Slice(loops, func(i, j int) bool { return name(loops[i].Header) < name(loops[j].Header) })

	var b strings.Builder
	fmt.Fprintf(&b, "root depth=0 nest=%d\n", s.RootNesting)
	blocks := []int{}
	for _, l := range loops {
		parent := "root"
		if l.Parent != NoParent {
			parent = strconv.Itoa(name(l.Parent))
		}
		blocks = blocks[:0]
		for _, bb := range l.Blocks {
			blocks = append(blocks, name(bb))
		}
		sort.Ints(blocks)
		fmt.Fprintf(&b, "loop %d depth=%d nest=%d parent=%s %v blocks=", name(l.Header), l.Depth, l.Nesting, parent, l.Kind)
		for i, bb := range blocks {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(bb))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// LoopKind is the Kind of a loop with the given flags.
func LoopKind(reducible, self bool) Kind {
	switch {
	case !reducible:
		return Irreducible
	case self:
		return Self
	}
	return Reducible
}
