package lab

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
)

// edgeRecorder is a Graph that remembers what it was given.
type edgeRecorder struct {
	blocks map[int]bool
	edges  [][2]int
}

func (g *edgeRecorder) CreateNode(name int) {
	if g.blocks == nil {
		g.blocks = make(map[int]bool)
	}
	g.blocks[name] = true
}

func (g *edgeRecorder) AddEdge(from, to int) {
	g.CreateNode(from)
	g.CreateNode(to)
	g.edges = append(g.edges, [2]int{from, to})
}

func TestStandardWorkloadSize(t *testing.T) {
	var g edgeRecorder
	BuildSimpleCFG(&g)
	BuildWorkload(&g, 10, 100, 25)
	if len(g.blocks) != 252013 {
		t.Errorf("standard workload has %d blocks, want 252013", len(g.blocks))
	}
	for name := range g.blocks {
		if name < 0 || name >= len(g.blocks) {
			t.Fatalf("block %d: names are not dense", name)
		}
	}
	if got := WorkloadBlocks(10, 100, 25); got != len(g.blocks) {
		t.Errorf("WorkloadBlocks = %d, want %d", got, len(g.blocks))
	}
}

func TestWorkloadBlocksOverflow(t *testing.T) {
	for _, c := range [][3]int{
		{MaxBlocks, MaxBlocks, MaxBlocks},
		{1, 1, MaxBlocks},
		{MaxBlocks, 1, 0},
		{2, MaxBlocks / 2, 1},
	} {
		if got := WorkloadBlocks(c[0], c[1], c[2]); got <= MaxBlocks {
			t.Errorf("WorkloadBlocks%v = %d, want more than %d", c, got, MaxBlocks)
		}
	}
	if got := WorkloadBlocks(0, MaxBlocks, MaxBlocks); got != 3 {
		t.Errorf("no trees: %d blocks, want 3", got)
	}
}

func parseOptions(args ...string) (*Options, error) {
	fs := flag.NewFlagSet("havlak", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o Options
	o.Register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return &o, o.Validate(fs)
}

func TestOptions(t *testing.T) {
	o, err := parseOptions()
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Dummy: 15000, Iterations: 50, Trees: 10, Loops: 100, BaseLoops: 25}
	if *o != want {
		t.Errorf("defaults %+v, want %+v", *o, want)
	}
	if _, err := parseOptions("-cfg", "x.cfg", "-iterations", "3", "-dump"); err != nil {
		t.Errorf("-cfg with -iterations and -dump: %v", err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-trees=-1"}, "-trees=-1: must be between 0 and 4000000"},
		{[]string{"-iterations=1000001"}, "-iterations=1000001: must be between 0 and 1000000"},
		{[]string{"-loops=100000", "-baseloops=1000"}, "the CFG would have more than 4000000 blocks"},
		{[]string{"-cfg=x", "-trees=3", "-dummy=1"}, "-dummy, -trees: not allowed with -cfg"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		_, err := parseOptions(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
		if !errors.As(err, new(cli.UsageError)) {
			t.Errorf("%v: %v is not a cli.UsageError", c.args, err)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "g.cfg")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadCFGFile(t *testing.T) {
	path := writeFile(t, "# comment\n\n 7\t2147483647 # trailing\r\n0 7\n7 7\n0007 0\n")
	cfg, err := ReadCFGFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []int{0, 7, 2147483647}
	wantEdges := []Edge{{1, 2}, {0, 1}, {1, 1}, {1, 0}}
	if !slices.Equal(cfg.Names, wantNames) || !slices.Equal(cfg.Edges, wantEdges) {
		t.Errorf("got names %v edges %v, want %v %v", cfg.Names, cfg.Edges, wantNames, wantEdges)
	}
}

func TestReadBadCFGFile(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"0 1\n1\n", `:2: want an edge "FROM TO", got "1"`},
		{"0 1 2\n", `:1: want an edge "FROM TO", got "0 1 2"`},
		{"0 -1\n", `:1: block "-1" is not a number between 0 and 2147483647`},
		{"0 +1\n", `:1: block "+1" is not a number between 0 and 2147483647`},
		{"\n\n0 2147483648\n", `:3: block "2147483648" is not a number between 0 and 2147483647`},
		{"0 x\n", `:1: block "x" is not a number`},
		{"0 1\x00\n", `:1: block "1\x00" is not a number`},
	} {
		path := writeFile(t, c.content)
		_, err := ReadCFGFile(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %s%s", c.content, err, path, c.want)
		}
		if !errors.As(err, new(cli.UsageError)) {
			t.Errorf("%q: %v is not a cli.UsageError", c.content, err)
		}
	}
	dir := t.TempDir()
	if _, err := ReadCFGFile(dir); err == nil || err.Error() != "-cfg: "+dir+" is a directory" || !errors.As(err, new(cli.UsageError)) {
		t.Errorf("a directory: %v", err)
	}
	_, err := ReadCFGFile(filepath.Join(t.TempDir(), "missing.cfg"))
	if err == nil || !strings.Contains(err.Error(), "missing.cfg: no such file") || !errors.As(err, new(cli.UsageError)) {
		t.Errorf("missing file: %v", err)
	}
}

func TestWriteDump(t *testing.T) {
	s := Structure{
		RootNesting: 2,
		Loops: []Loop{
			{Header: 2, Parent: 1, Depth: 2, Nesting: 0, Kind: Self, Blocks: []int{2}},
			{Header: 1, Parent: NoParent, Depth: 1, Nesting: 1, Kind: Irreducible, Blocks: []int{3, 1}},
		},
	}
	var b bytes.Buffer
	if err := WriteDump(&b, s, []int{0, 10, 20, 30}); err != nil {
		t.Fatal(err)
	}
	want := "root depth=0 nest=2\n" +
		"loop 10 depth=1 nest=1 parent=root irreducible blocks=10,30\n" +
		"loop 20 depth=2 nest=0 parent=10 self blocks=20\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestLoopKind(t *testing.T) {
	if LoopKind(true, false) != Reducible || LoopKind(false, false) != Irreducible ||
		LoopKind(true, true) != Self || LoopKind(false, true) != Irreducible {
		t.Error("LoopKind")
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// countingFinder finds no loops and counts its passes.
type countingFinder struct {
	edgeRecorder
	passes int
}

func (f *countingFinder) FindLoops() (int, error) { f.passes++; return 0, nil }
func (f *countingFinder) Structure() Structure    { return Structure{} }

// A report that cannot be written ends the run with the write's error,
// without running the rest of the benchmark.
func TestRunStopsOnWriteError(t *testing.T) {
	o := Options{Dummy: 1000, Iterations: 1000, Trees: 1, Loops: 1, BaseLoops: 1}
	f := &countingFinder{}
	err := Run(&failingWriter{n: len("Constructing simple CFG...\n")}, &o, f, nil)
	if err == nil || err.Error() != "disk full" {
		t.Errorf("Run: %v, want the write error", err)
	}
	if f.passes > 0 {
		t.Errorf("Run went on for %d passes after the report failed", f.passes)
	}
}
