package firstbad

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// The test doubles of a bisection at the gate's precision: a commit's
// "program" is its file count.txt, the instructions it executes; building
// copies it (so that a commit that leaves it alone builds the same binary,
// of the same identity), and counting it reads the number back, moved by
// jitter, a relative step per run that alternates around it as a Go
// program's own count moves.

// fileBuilder builds the program of the commit checked out in worktree.
type fileBuilder struct {
	worktree, out string
	spec          *perfspec.Spec
	builds        int
}

func (b *fileBuilder) build() (*program, error) {
	data, err := os.ReadFile(filepath.Join(b.worktree, "count.txt"))
	if err != nil {
		return nil, err
	}
	b.builds++
	binary := filepath.Join(b.out, fmt.Sprintf("program.%d", b.builds))
	if err := os.WriteFile(binary, data, 0o644); err != nil {
		return nil, err
	}
	return &program{binary: binary, dir: b.worktree, spec: b.spec}, nil
}

func (b *fileBuilder) close() {}

// jitterCounter counts a program's instructions, moved by ±jitter in
// turn, the same in Total and Own.
type jitterCounter struct {
	jitter float64
	runs   int
}

func (c *jitterCounter) count(run cachegrind.Run) (cachegrind.Counts, error) {
	data, err := os.ReadFile(run.Program)
	if err != nil {
		return cachegrind.Counts{}, err
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil {
		return cachegrind.Counts{}, err
	}
	c.runs++
	step := []float64{0, 1, -1}[c.runs%3]
	v := uint64(n * (1 + step*c.jitter))
	return cachegrind.Counts{Total: v, Own: v}, nil
}

// history makes a throwaway repository of commits, each setting
// count.txt to a count, and returns it with the commits' hashes.
func history(t *testing.T, counts ...float64) (string, []string) {
	t.Helper()
	repo := t.TempDir()
	gitIn := gitRunner(t, repo)
	gitIn("init", "-q")
	var commits []string
	for i, n := range counts {
		if err := os.WriteFile(filepath.Join(repo, "count.txt"), []byte(strconv.FormatFloat(n, 'f', 0, 64)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Every commit changes something: a note beside the program.
		if err := os.WriteFile(filepath.Join(repo, "notes.txt"), []byte(fmt.Sprintf("commit %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn("add", "-A")
		gitIn("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		commits = append(commits, gitIn("rev-parse", "HEAD"))
	}
	return repo, commits
}

// bisectCounts bisects the history of counts from its first commit to
// its last, the program a C++ one (an exact count) or a Go one, each run
// moved by jitter.
func bisectCounts(t *testing.T, goProgram bool, jitter float64, counts ...float64) ([]string, *answer.Answer, error) {
	t.Helper()
	repo, commits := history(t, counts...)
	profiler := "cc"
	if goProgram {
		profiler = "go"
	}
	spec := &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "stage"}, Binary: "program"},
		Program: &perfspec.Program{Profiler: profiler, Counted: &perfspec.Counted{Repetitions: 3}}}
	counter := &jitterCounter{jitter: jitter}
	m := &measurer{o: &Options{Benchmark: "stage", Builder: "files"}, wt: git(repo), builder: &fileBuilder{worktree: repo, out: t.TempDir(), spec: spec},
		tmp: t.TempDir(), log: io.Discard, count: counter.count}
	rep, err := m.bisect(commits[0], commits[len(commits)-1])
	return commits, rep, err
}

func TestBisectsHalfAPercentOfAnExactCount(t *testing.T) {
	// havlak6cc's instructions; the fifth commit of eight adds 0.5%.
	const n = 234584917
	commits, rep, err := bisectCounts(t, false, 0, n, n, n, n, n*1.005, n*1.005, n*1.005, n*1.005)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FirstBad.Commit != commits[4] || rep.Parent.Commit != commits[3] || rep.Figure != cachegrind.MetricInstructions {
		t.Errorf("first bad %s (parent %s, metric %s), want %s, the commit of +0.5%%", rep.FirstBad.Commit, rep.Parent.Commit, rep.Figure, commits[4])
	}
	if rep.Change < 0.0049 || rep.Change > 0.0051 || !strings.Contains(rep.Rule, "threshold 0.25% (the floor") {
		t.Errorf("change %v, rule %q: want +0.5%% judged at the exact count's floor", rep.Change, rep.Rule)
	}
	// Commits that change only the note build the same program.
	if rep.Saved == 0 {
		t.Errorf("no commit's measurement was saved by its identity")
	}
}

func TestBisectsHalfAPercentOfAGoCountOverItsFloor(t *testing.T) {
	// havlak7's own instructions, moving by 0.0012% run to run; the third
	// commit of six adds 0.6%, past the count floor of 0.5%.
	const n = 160300302
	commits, rep, err := bisectCounts(t, true, 0.000006, n, n, n*1.006, n*1.006, n*1.006, n*1.006)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FirstBad.Commit != commits[2] || rep.Figure != cachegrind.MetricOwnInstructions {
		t.Errorf("first bad %s of %s, want %s", rep.FirstBad.Commit, rep.Figure, commits[2])
	}
}

func TestNothingToBisectAtTheNewPrecision(t *testing.T) {
	const n = 234584917
	for _, tc := range []struct {
		name      string
		goProgram bool
		jitter    float64
		counts    []float64
	}{
		{"an exact count unchanged", false, 0, []float64{n, n, n, n}},
		{"an exact count +0.1%, under the floor", false, 0, []float64{n, n, n * 1.001, n * 1.001}},
		{"a Go count unchanged but for its noise", true, 0.000006, []float64{n, n, n, n}},
		{"a Go count moved by its noise", true, 0.000006, []float64{n, n, n * 1.000012, n * 1.000012}},
		{"a Go count moved by ten times its noise", true, 0.000006, []float64{n, n * 1.00012, n * 1.00012}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := bisectCounts(t, tc.goProgram, tc.jitter, tc.counts...)
			if !errors.Is(err, verdict.ErrNothingToBisect) || !strings.Contains(err.Error(), "within the gate's rule") {
				t.Errorf("%v, want nothing to bisect", err)
			}
		})
	}
}

// linesCounter is a jitterCounter that also writes each run's Cachegrind
// output: the program's count on one line of its own source, go/p/a.go:7
// in main.work.
type linesCounter struct{ jitterCounter }

func (c *linesCounter) count(run cachegrind.Run) (cachegrind.Counts, error) {
	counts, err := c.jitterCounter.count(run)
	if err != nil {
		return counts, err
	}
	out := fmt.Sprintf("events: Ir\nfl=./go/p/a.go\nfn=main.work\n7 %d\nsummary: %d\n", counts.Total, counts.Total)
	return counts, os.WriteFile(run.Out, []byte(out), 0o644)
}

// The answer keeps the line counts of the first bad commit's first run
// and of its parent's, named by the workspace's paths, for the alert that
// asked for the bisect; the answer's file does not hold them.
func TestKeepsTheFirstBadCommitsLineCounts(t *testing.T) {
	const n = 234584917
	repo, commits := history(t, n, n, n, n*1.005, n*1.005)
	spec := &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "stage"}, Binary: "program"},
		Program: &perfspec.Program{Profiler: "cc", Counted: &perfspec.Counted{Repetitions: 3}}}
	counter := &linesCounter{}
	m := &measurer{o: &Options{Benchmark: "stage", Builder: "files"}, wt: git(repo), builder: &fileBuilder{worktree: repo, out: t.TempDir(), spec: spec},
		tmp: t.TempDir(), log: io.Discard, count: counter.count}
	rep, err := m.bisect(commits[0], commits[len(commits)-1])
	if err != nil {
		t.Fatal(err)
	}
	if rep.FirstBad.Commit != commits[3] || rep.ParentLines == nil || rep.FirstBadLines == nil || rep.GoProgram {
		t.Fatalf("first bad %s, line counts %v and %v, Go %v; want %s's and its parent's, of a C++ program", rep.FirstBad.Commit, rep.ParentLines, rep.FirstBadLines, rep.GoProgram, commits[3])
	}
	for _, c := range []struct {
		f    *linecounts.File
		want uint64
	}{{rep.ParentLines, uint64(rep.Parent.Median)}, {rep.FirstBadLines, uint64(rep.FirstBad.Median)}} {
		if len(c.f.Records) != 1 || c.f.Records[0].File != "go/p/a.go" || c.f.Records[0].Function != "main.work" || c.f.Records[0].Events[cachegrind.Ir] != c.want {
			t.Errorf("line counts %+v, want go/p/a.go:7 main.work %d", c.f.Records, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "answer.json")
	if err := answer.Write(path, rep); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "main.work") {
		t.Errorf("the answer's file holds the line counts:\n%s", data)
	}
}
