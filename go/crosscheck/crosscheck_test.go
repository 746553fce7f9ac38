// Package crosscheck runs every stage of the Havlak benchmark, Go and C++,
// over the same inputs and requires the same output from all of them: the
// hand-made CFGs, hundreds of random ones, small workloads, bad input and
// hostile CFG files.
package crosscheck

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"havlak-lab/go/internal/lab/labtest"
)

var (
	stagesFlag = flag.String("stages", "", "comma-separated `NAME=PATH` of the stage binaries, PATH relative to the workspace")
	fastFlag   = flag.String("fast", "", "comma-separated names of the stages fast enough for the standard workload")
)

type stage struct{ name, path string }

func stages(t *testing.T) []stage {
	t.Helper()
	if *stagesFlag == "" {
		t.Skip("no -stages: run with bazel test //go/crosscheck")
	}
	var all []stage
	for _, s := range strings.Split(*stagesFlag, ",") {
		name, path, ok := strings.Cut(s, "=")
		if !ok {
			t.Fatalf("-stages: %q is not NAME=PATH", s)
		}
		all = append(all, stage{name, labtest.Path(t, path)})
	}
	if len(all) < 2 {
		t.Fatalf("-stages: %d stages, nothing to compare", len(all))
	}
	return all
}

// result is what one run of a stage did.
type result struct {
	stdout string
	stderr string // without the program's name before the first ": "
	code   int
}

func (r result) String() string {
	return fmt.Sprintf("exit status %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs s with args. A crash, or a run that takes longer than a few
// minutes, fails the test (run may be called from any goroutine).
func run(t *testing.T, s stage, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil || exit != nil && !exit.Exited() {
		t.Errorf("%s %s: %v (a crash or a hang)\n%s", s.name, strings.Join(args, " "), err, stderr.String())
		return result{stderr: err.Error(), code: -1}
	}
	msg := stderr.String()
	if prefix := s.name + ": "; strings.HasPrefix(msg, prefix) {
		msg = msg[len(prefix):]
	}
	return result{stdout.String(), msg, cmd.ProcessState.ExitCode()}
}

// agree runs every stage with args and fails unless they all print the same
// output and exit with the same status; it returns the first one's result.
func agree(t *testing.T, all []stage, args ...string) result {
	t.Helper()
	want := run(t, all[0], args...)
	for _, s := range all[1:] {
		got := run(t, s, args...)
		if got.code != want.code || got.stdout != want.stdout {
			t.Errorf("%s and %s disagree on %s\n%s: %v\n%s: %v",
				all[0].name, s.name, strings.Join(args, " "), all[0].name, want, s.name, got)
		} else if firstLine(got.stderr) != firstLine(want.stderr) {
			t.Errorf("%s and %s report different errors for %s:\n%s\n%s",
				all[0].name, s.name, strings.Join(args, " "), want.stderr, got.stderr)
		}
	}
	return want
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// forEach calls f for every item, on as many goroutines as there are
// processors: most of the time goes into starting processes.
func forEach[T any](items []T, f func(T)) {
	work := make(chan T)
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for item := range work {
				f(item)
			}
		}()
	}
	for _, item := range items {
		work <- item
	}
	close(work)
	wg.Wait()
}

func TestHandMadeCFGs(t *testing.T) {
	all := stages(t)
	cfgs, err := filepath.Glob(filepath.Join(labtest.Path(t, "testdata/cfgs"), "*.cfg"))
	if err != nil || len(cfgs) == 0 {
		t.Fatalf("no hand-made CFGs: %v", err)
	}
	for _, cfg := range cfgs {
		want, err := os.ReadFile(strings.TrimSuffix(cfg, ".cfg") + ".dump")
		if err != nil {
			t.Fatal(err)
		}
		got := agree(t, all, "-cfg", cfg, "-dump", "-iterations=2")
		if got.code != 0 || !strings.Contains(got.stdout, string(want)) {
			t.Errorf("%s: want the dump\n%s\ngot %v", cfg, want, got)
		}
	}
}

// randomCFG writes a random CFG to path: blocks blocks, about edgesPerBlock
// edges each, self edges and duplicate edges included; with sparse, block
// ids are spread over [0, 2^31-1]. It returns the number of edges.
func randomCFG(t *testing.T, rng *rand.Rand, path string, blocks int, edgesPerBlock float64, sparse bool) int {
	ids := make([]int, blocks)
	for i := range ids {
		ids[i] = i
		if sparse && i > 0 {
			ids[i] = 1 + rng.IntN(1<<31-1)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# random CFG: %d blocks, sparse=%v\n", blocks, sparse)
	edges := int(float64(blocks)*edgesPerBlock) + 1
	for i := 0; i < edges; i++ {
		from := rng.IntN(blocks)
		// Mostly forward edges, so that much of the CFG is reachable from
		// the entry and loops nest, plus back and self edges.
		to := rng.IntN(blocks)
		if rng.IntN(3) > 0 && from+1 < blocks {
			to = from + 1 + rng.IntN(min(blocks-from-1, 5))
		}
		fmt.Fprintf(&b, "%d %d\n", ids[from], ids[to])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return edges
}

func TestRandomCFGs(t *testing.T) {
	all := stages(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2011, 2013))
	var paths []string
	for i := 0; i < 300; i++ {
		blocks := []int{1, 2, 3, 5, 8, 13, 30, 100, 300, 1000, 3000}[i%11]
		density := []float64{0.5, 1, 1.5, 2, 3}[rng.IntN(5)]
		path := filepath.Join(dir, fmt.Sprintf("random%03d.cfg", i))
		randomCFG(t, rng, path, blocks, density, i%4 == 3)
		paths = append(paths, path)
	}
	var mu sync.Mutex
	kinds := map[string]int{}
	forEach(paths, func(path string) {
		got := agree(t, all, "-cfg", path, "-dump", "-iterations=1")
		mu.Lock()
		defer mu.Unlock()
		for _, kind := range []string{" reducible ", " irreducible ", " self ", "parent=root", "nest=2"} {
			if strings.Contains(got.stdout, kind) {
				kinds[kind]++
			}
		}
	})
	// The random CFGs must exercise every kind of loop and nesting, or
	// agreeing on them proves little.
	for _, kind := range []string{" reducible ", " irreducible ", " self ", "nest=2"} {
		if kinds[kind] < 10 {
			t.Errorf("only %d of %d random CFGs have %q loops", kinds[kind], len(paths), kind)
		}
	}
	t.Logf("random CFGs with each kind of loop: %v", kinds)
}

func TestWorkloads(t *testing.T) {
	all := stages(t)
	for _, c := range []struct {
		args  []string
		loops int
	}{
		{[]string{"-dummy=5", "-trees=2", "-loops=3", "-baseloops=4", "-iterations=2", "-dump"}, 2 * 3 * (3*4 + 1)},
		{[]string{"-dummy=0", "-trees=1", "-loops=1", "-baseloops=1", "-iterations=0", "-dump"}, 4},
		{[]string{"-dummy=1", "-trees=0", "-iterations=1"}, 0},
		{[]string{"-dummy=2", "-trees=3", "-loops=0", "-iterations=1"}, 0},
		{[]string{"-dummy=100", "-trees=3", "-loops=50", "-baseloops=25", "-iterations=3"}, 3 * 50 * (3*25 + 1)},
	} {
		got := agree(t, all, c.args...)
		want := fmt.Sprintf("# of loops: %d (plus 1 artificial root node)\n", c.loops)
		if got.code != 0 || !strings.Contains(got.stdout, want) {
			t.Errorf("%s: want %q in\n%v", strings.Join(c.args, " "), want, got)
		}
	}
}

// The fast stages run the standard workload: 252013 blocks, 76000 loops.
func TestStandardWorkload(t *testing.T) {
	all := stages(t)
	var fast []stage
	for _, name := range strings.Split(*fastFlag, ",") {
		for _, s := range all {
			if s.name == name {
				fast = append(fast, s)
			}
		}
	}
	if len(fast) == 0 {
		t.Fatalf("-fast=%q names none of the stages", *fastFlag)
	}
	for _, s := range fast {
		got := run(t, s, "-iterations=1")
		want := "# of loops: 76000 (plus 1 artificial root node)\n"
		if got.code != 0 || strings.Count(got.stdout, want) != 2 {
			t.Errorf("%s: want %q twice in\n%v", s.name, want, got)
		}
	}
}

func TestBadInput(t *testing.T) {
	all := stages(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	malformed := write("malformed.cfg", "0 1\n1 2 3\n")
	negative := write("negative.cfg", "0 1\n\n# a comment\n1 -2\n")
	tooBig := write("too-big.cfg", "0 2147483648\n")
	garbage := write("garbage.cfg", "\x00\x01\x02\xff\xfe binary\n")
	// Lines are bounded (64 KiB), and so is the memory a file without
	// newlines takes.
	longest := write("longest-line.cfg", "0 1\n1 0 #"+strings.Repeat("x", 64*1024-len("1 0 #"))+"\n")
	tooLong := write("too-long-line.cfg", "0 1\n1 0 #"+strings.Repeat("x", 64*1024)+"\n")
	for path, want := range map[string]string{
		tooLong:     tooLong + ":2: a line longer than 65536 bytes",
		"/dev/zero": "/dev/zero:1: a line longer than 65536 bytes",
	} {
		if got := agree(t, all, "-cfg", path); got.code != 2 || !strings.Contains(got.stderr, want) {
			t.Errorf("-cfg %s: want exit status 2 and %q, got %v", filepath.Base(path), want, got)
		}
	}
	if got := agree(t, all, "-cfg", longest, "-iterations=1"); got.code != 0 {
		t.Errorf("a line of 64 KiB exactly: want it read, got %v", got)
	}
	for _, args := range [][]string{
		{"-bogus"},
		{"-trees=many"},
		{"-trees=99999999999999999999"},
		{"-trees=-1"},
		{"-iterations=1000001"},
		{"-trees=1000", "-loops=1000", "-baseloops=1000"},
		{"stray-argument"},
		{"-cfg", filepath.Join(dir, "missing.cfg")},
		{"-cfg", dir},
		{"-cfg", malformed},
		{"-cfg", negative},
		{"-cfg", tooBig},
		{"-cfg", garbage},
		{"-cfg", malformed, "-trees=3"},
	} {
		got := agree(t, all, args...)
		if got.code != 2 || got.stdout != "" && !strings.HasPrefix(got.stdout, "Read ") || got.stderr == "" {
			t.Errorf("%s: want exit status 2, a message and no report, got %v", strings.Join(args, " "), got)
		}
	}
}

// CFG files may be hostile: each one works, or fails with exit status 2
// and a message, in every stage alike; none crashes.
func TestHostileCFGs(t *testing.T) {
	all := stages(t)
	dir := t.TempDir()
	writeLines := func(name string, lines func(w *bufio.Writer)) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		lines(w)
		if err := errors.Join(w.Flush(), f.Close()); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A chain 100000 blocks deep, closed into one loop: a recursive DFS
	// without a big enough stack overflows it.
	chain := writeLines("chain.cfg", func(w *bufio.Writer) {
		for i := 0; i < 100000; i++ {
			fmt.Fprintf(w, "%d %d\n", i, i+1)
		}
		fmt.Fprintln(w, "100000 0")
	})
	// 100000 nested loops, each one block deeper than the last.
	nested := writeLines("nested.cfg", func(w *bufio.Writer) {
		for i := 0; i < 100000; i++ {
			fmt.Fprintf(w, "%d %d\n%d %d\n", i, i+1, i+1, i)
		}
	})
	// Every edge 50 times over, and self edges everywhere.
	repeated := writeLines("repeated.cfg", func(w *bufio.Writer) {
		for r := 0; r < 50; r++ {
			for i := 0; i < 1000; i++ {
				fmt.Fprintf(w, "%d %d\n%d %d\n%d %d\n", i, i+1, i, i, i+1, i/2)
			}
		}
	})
	// Block ids at the top of the range, far apart.
	sparse := writeLines("sparse.cfg", func(w *bufio.Writer) {
		fmt.Fprintln(w, "0 2147483647\n2147483647 1073741824\n1073741824 2147483647\n1073741824 5")
	})
	// A million random edges among 250000 blocks: quadratically many
	// irreducible edge moves, past lab.MaxMovedEdges.
	random := filepath.Join(dir, "random1m.cfg")
	randomCFG(t, rand.New(rand.NewPCG(1, 1)), random, 250000, 4, false)

	for _, c := range []struct {
		path string
		want string // in stdout, or in stderr when failing
		code int
	}{
		{chain, "loop 0 depth=1 nest=0 parent=root reducible", 0},
		{nested, "loop 99999 depth=100000 nest=0 parent=99998 reducible blocks=99999,100000", 0},
		{repeated, "# of loops: ", 0},
		{sparse, "loop 2147483647 depth=1 nest=0 parent=root reducible blocks=1073741824,2147483647", 0},
		{random, "loop recognition gave up: irreducible loops moved more than 1000000 edges", 2},
	} {
		got := agree(t, all, "-cfg", c.path, "-dump", "-iterations=0")
		if got.code != c.code || !strings.Contains(got.stdout+got.stderr, c.want) {
			t.Errorf("%s: want exit status %d and %q, got exit status %d\n%.2000s\n%s",
				filepath.Base(c.path), c.code, c.want, got.code, got.stdout, got.stderr)
		}
	}
}

// A report that cannot be written is an error, not a silent loss.
func TestUnwritableOutput(t *testing.T) {
	for _, s := range stages(t) {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skipf("no /dev/full: %v", err)
		}
		cmd := exec.Command(s.path, "-dummy=1", "-trees=1", "-loops=1", "-baseloops=1", "-iterations=1")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err = cmd.Run()
		full.Close()
		want := s.name + ": write /dev/stdout: no space left on device\n"
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || stderr.String() != want {
			t.Errorf("%s > /dev/full: %v, stderr %q; want exit status 1 and %q", s.name, err, stderr.String(), want)
		}
	}
}
