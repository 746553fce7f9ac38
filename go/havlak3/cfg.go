package main

// BasicBlock is a node of the control-flow graph.
type BasicBlock struct {
	Name     int
	InEdges  []*BasicBlock
	OutEdges []*BasicBlock
}

// CFG is a control-flow graph whose blocks are named by small integers and
// created on first mention. Block 0 is the entry.
type CFG struct {
	Blocks []*BasicBlock // indexed by name; nil for names never mentioned
}

// NewCFG returns an empty control-flow graph.
func NewCFG() *CFG { return new(CFG) }

// CreateNode returns the block called name, creating it if needed.
func (cfg *CFG) CreateNode(name int) *BasicBlock {
	for name >= len(cfg.Blocks) {
		cfg.Blocks = append(cfg.Blocks, nil)
	}
	if cfg.Blocks[name] == nil {
		cfg.Blocks[name] = &BasicBlock{Name: name}
	}
	return cfg.Blocks[name]
}

// NewBasicBlockEdge adds an edge between the blocks called from and to.
func NewBasicBlockEdge(cfg *CFG, from, to int) {
	source := cfg.CreateNode(from)
	target := cfg.CreateNode(to)
	source.OutEdges = append(source.OutEdges, target)
	target.InEdges = append(target.InEdges, source)
}
