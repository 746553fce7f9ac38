package lab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"

	"havlak-lab/internal/cli"
)

// An Edge joins two blocks, by their dense indexes in a CFGFile.
type Edge struct{ From, To int32 }

// A CFGFile is a control-flow graph read from a text file. Block ids in the
// file may be sparse, up to 2^31-1; the blocks get dense indexes in order of
// first mention, and Names maps each index back to the id in the file.
// Index 0 is block 0, the entry.
type CFGFile struct {
	Names []int
	Edges []Edge
}

// ReadCFGFile parses path: one edge "FROM TO" per line, where FROM and TO are
// decimal block ids between 0 and 2^31-1; '#' starts a comment; blank lines
// are ignored. Errors name the file and line and are UsageErrors.
func ReadCFGFile(path string) (*CFGFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.UsageError{Err: fmt.Errorf("-cfg: %w", err)}
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return nil, cli.Usagef("-cfg: %s is a directory", path)
	}

	cfg := &CFGFile{Names: []int{0}}
	index := map[int]int32{0: 0}
	blockIndex := func(id int) (int32, error) {
		if i, ok := index[id]; ok {
			return i, nil
		}
		if len(cfg.Names) == MaxBlocks {
			return 0, fmt.Errorf("more than %d blocks", MaxBlocks)
		}
		i := int32(len(cfg.Names))
		index[id] = i
		cfg.Names = append(cfg.Names, id)
		return i, nil
	}

	scanner := bufio.NewScanner(f)
	// Room for the longest line and its newline.
	scanner.Buffer(make([]byte, 4096), MaxLineBytes+1)
	line := 0
	for scanner.Scan() {
		line++
		text := scanner.Bytes()
		if i := bytes.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := bytes.FieldsFunc(text, isASCIISpace)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, cli.Usagef("%s:%d: want an edge \"FROM TO\", got %q", path, line, bytes.TrimSpace(text))
		}
		var edge [2]int32
		for i, field := range fields {
			id, ok := parseBlockID(field)
			if !ok {
				return nil, cli.Usagef("%s:%d: block %q is not a number between 0 and %d", path, line, field, math.MaxInt32)
			}
			if edge[i], err = blockIndex(id); err != nil {
				return nil, cli.Usagef("%s:%d: %v", path, line, err)
			}
		}
		if len(cfg.Edges) == MaxEdges {
			return nil, cli.Usagef("%s:%d: more than %d edges", path, line, MaxEdges)
		}
		cfg.Edges = append(cfg.Edges, Edge{edge[0], edge[1]})
	}
	if err := scanner.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, cli.Usagef("%s:%d: a line longer than %d bytes", path, line+1, MaxLineBytes)
	} else if err != nil {
		return nil, cli.Usagef("%s:%d: %v", path, line+1, err)
	}
	return cfg, nil
}

// Replay adds the file's blocks and edges to g, in file order, with dense
// block names.
func (cfg *CFGFile) Replay(g Graph) {
	g.CreateNode(0)
	for _, e := range cfg.Edges {
		g.AddEdge(int(e.From), int(e.To))
	}
}

// isASCIISpace matches C's isspace in the "C" locale, so that the Go and C++
// readers split lines the same way.
func isASCIISpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// parseBlockID accepts decimal digits only (no sign), up to 2^31-1.
func parseBlockID(field []byte) (int, bool) {
	id := 0
	for _, c := range field {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int(c-'0')
		if id > math.MaxInt32 {
			return 0, false
		}
	}
	return id, len(field) > 0
}
