package firstbad

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"havlak-lab/internal/bazelcmd"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// errBroken marks a commit that cannot be measured: it does not build, or
// its program fails or prints a wrong answer. git bisect skips it.
var errBroken = errors.New("broken commit")

// A program is a commit's benchmark, built.
type program struct {
	binary string // absolute
	dir    string // where it runs: the spec's paths are relative to it
	spec   *perfspec.Spec
}

// A builder builds the benchmark of the commit checked out in the
// worktree.
type builder interface {
	build() (*program, error)
	close()
}

// A measurer measures commits in the worktree.
type measurer struct {
	o           *Options
	wt          git
	builder     builder
	tmp         string
	log         io.Writer
	figure      string // after the first measurement
	exact       bool   // after the first measurement: the figure is an exact count
	repetitions int    // after the first measurement
	// count runs the program once under Cachegrind (underValgrind).
	count func(cachegrind.Run) (cachegrind.Counts, error)
	runs  int
	// measured are the measurements by the identity of what was measured
	// (its binary's and its run's sums); saved counts the commits that had
	// the identity of one measured before.
	measured map[result.Identity]answer.Measurement
	saved    int
	again    bool // measureAgain: no measurement of the cache
	// lines are the line counts of each measured commit's first run
	// (keepLines), by commit and by identity; goProgram, after the first
	// measurement: the program is a Go one.
	lines     map[string]*linecounts.File
	linesByID map[result.Identity]*linecounts.File
	goProgram bool
}

// measureAt checks commit out, then measures it; what names it in errors.
func (m *measurer) measureAt(commit, what string) (answer.Measurement, error) {
	if _, err := m.wt.Output("checkout", "--quiet", "--detach", commit); err != nil {
		return answer.Measurement{}, err
	}
	meas, err := m.measure(commit, what)
	if err != nil && what != "" {
		return meas, fmt.Errorf("%s %s: %w", what, gitwork.Short(commit), err)
	}
	return meas, err
}

// measureAgain measures the checked-out commit once more, though its
// identity was measured before: its runs were not clear enough.
func (m *measurer) measureAgain(commit string) (answer.Measurement, error) {
	m.again = true
	defer func() { m.again = false }()
	return m.measure(commit, "")
}

// measure builds the checked-out commit and counts its runs, unless a
// build of the same identity was measured before.
func (m *measurer) measure(commit, what string) (answer.Measurement, error) {
	meas := answer.Measurement{Commit: commit}
	meas.Subject, _ = m.wt.Output("log", "-1", "--format=%s", commit)
	label := gitwork.Short(commit) + " " + meas.Subject
	if what != "" {
		label = what + " " + label
	}
	fmt.Fprintf(m.log, "bisect: building %s\n", label)
	prog, err := m.builder.build()
	if err != nil {
		return meas, fmt.Errorf("%w: %v", errBroken, err)
	}
	spec := prog.spec
	id, err := prog.spec.IdentityWith(prog.binary, prog.dir)
	if err != nil {
		return meas, fmt.Errorf("%w: %v", errBroken, err)
	}
	if same, ok := m.measured[id]; ok && m.figure != "" && !m.again {
		m.saved++
		meas.Values, meas.Median = same.Values, same.Median
		if f := m.linesByID[id]; f != nil {
			m.lines[commit] = f
		}
		fmt.Fprintf(m.log, "bisect: %s %s: the binary and run of %s, measured before: %s %s, not measured again\n",
			gitwork.Short(commit), meas.Subject, gitwork.Short(same.Commit), m.figure, Describe(meas.Values))
		return meas, nil
	}
	defer func() {
		if len(meas.Values) > 0 && !m.again {
			if m.measured == nil {
				m.measured = map[result.Identity]answer.Measurement{}
			}
			m.measured[id] = meas
		}
	}()
	switch {
	case spec.Benchmark.Name != m.o.Benchmark:
		return meas, fmt.Errorf("%w: its spec is of benchmark %q, not %q", errBroken, spec.Benchmark.Name, m.o.Benchmark)
	case spec.Program == nil || spec.Program.Counted == nil:
		return meas, fmt.Errorf("%w: benchmark %s declares no runs under Cachegrind (a program with counted_repetitions > 0)", errBroken, m.o.Benchmark)
	}
	goProgram := spec.Program.Profiler == "go"
	m.goProgram = goProgram
	if m.figure == "" {
		if err := m.chooseFigure(spec.Program.Counted.Repetitions, goProgram); err != nil {
			return meas, err
		}
	}
	var expect *regexp.Regexp
	if spec.Program.Counted.Expect != "" {
		if expect, err = regexp.Compile(spec.Program.Counted.Expect); err != nil {
			return meas, fmt.Errorf("%w: counted expect: %v", errBroken, err)
		}
	}
	outputs, err := os.MkdirTemp(m.tmp, "outputs")
	if err != nil {
		return meas, err
	}
	args := make([]string, len(spec.Program.Counted.Args))
	for i, arg := range spec.Program.Counted.Args {
		args[i] = strings.ReplaceAll(arg, "{outputs}", outputs)
	}
	perRun := -1
	for i := 1; i <= m.repetitions; i++ {
		m.runs++
		var stdout bytes.Buffer
		out := filepath.Join(m.tmp, fmt.Sprintf("cachegrind.%d.out", m.runs))
		c, err := m.count(cachegrind.Run{
			Program: prog.binary, Args: args, GoProgram: goProgram, Dir: prog.dir, Out: out, Stdout: &stdout,
		})
		if err != nil {
			return meas, fmt.Errorf("%w: %v", errBroken, err)
		}
		if i == 1 && !m.again {
			m.keepLines(commit, id, out, prog.dir)
		}
		if expect != nil {
			n := matchingLines(stdout.Bytes(), expect)
			if n == 0 || perRun >= 0 && n != perRun {
				return meas, fmt.Errorf("%w: run %d printed %d lines matching %q, want as many as run 1's, at least 1:\n%s", errBroken, i, n, spec.Program.Counted.Expect, stdout.String())
			}
			perRun = n
		}
		v, _ := c.Metric(m.figure)
		meas.Values = append(meas.Values, float64(v))
	}
	meas.Median = result.NewSample(meas.Values).Median
	fmt.Fprintf(m.log, "bisect: %s %s: %s %s (spread %.4f%%)\n", gitwork.Short(commit), meas.Subject, m.figure, Describe(meas.Values), 100*result.NewSample(meas.Values).Spread())
	return meas, nil
}

// chooseFigure sets, at the first commit measured, the figure the bisect
// counts (the asked one, else the program's gated count) and how many
// runs a commit gets (the asked number, else the spec's counted runs, at
// least minRepetitions).
func (m *measurer) chooseFigure(specRepetitions int, goProgram bool) error {
	m.figure = m.o.Figure
	if m.figure == "" {
		m.figure = cachegrind.GatedMetric(goProgram)
	}
	if _, err := (cachegrind.Counts{}).Metric(m.figure); err != nil {
		return err
	}
	// A C or C++ program's count is exact (cachegrind.Metrics), a Go
	// program's is not.
	m.exact = !goProgram
	m.repetitions = m.o.Repetitions
	if m.repetitions == 0 {
		m.repetitions = max(specRepetitions, minRepetitions)
	}
	return nil
}

// keepLines keeps the line counts of commit's first run, whose
// Cachegrind output is at out, its sources' paths made the workspace's
// (dir, where it ran: linecounts.FromCachegrind). They are information
// for the alert that asked for the bisect: line counts that do not read
// are said in the log and not kept, and fail nothing.
func (m *measurer) keepLines(commit string, id result.Identity, out, dir string) {
	f, err := readLines(out, dir)
	if err != nil {
		fmt.Fprintf(m.log, "bisect: %s: its line counts are not kept: %v\n", gitwork.Short(commit), err)
		return
	}
	if m.lines == nil {
		m.lines, m.linesByID = map[string]*linecounts.File{}, map[result.Identity]*linecounts.File{}
	}
	m.lines[commit], m.linesByID[id] = f, f
}

// readLines reads the Cachegrind output at path as line counts.
func readLines(path, dir string) (*linecounts.File, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return linecounts.FromCachegrind(in, path, []string{dir})
}

func matchingLines(data []byte, re *regexp.Regexp) int {
	n := 0
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(nil, 1<<30)
	for s.Scan() {
		if re.Match(s.Bytes()) {
			n++
		}
	}
	return n
}

// childEnv is the environment of the builds: ours without what bazel run
// set for this program, which would mislead a nested Bazel or go command.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "BUILD_WORKSPACE_DIRECTORY", name == "BUILD_WORKING_DIRECTORY",
			strings.HasPrefix(name, "RUNFILES_"), name == "JAVA_RUNFILES", name == "PYTHON_RUNFILES":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// runBuild runs a build command in dir, its output on log.
func runBuild(cmd *exec.Cmd, dir string, log io.Writer, env ...string) error {
	cmd.Dir, cmd.Env = dir, append(childEnv(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	return nil
}

// A bazelBuilder builds the benchmark's test target with the worktree's
// own Bazel (bazelcmd) and runs the program in its runfiles.
type bazelBuilder struct {
	worktree, target string
	log              io.Writer
}

func (b *bazelBuilder) build() (*program, error) {
	pkg, name, ok := strings.Cut(strings.TrimPrefix(b.target, "//"), ":")
	if !ok || !strings.HasPrefix(b.target, "//") {
		return nil, fmt.Errorf("--target %q: want //PACKAGE:NAME", b.target)
	}
	if err := runBuild(bazelcmd.Command(b.worktree, "build", b.target), b.worktree, b.log); err != nil {
		return nil, err
	}
	// perf_benchmark names a test's spec NAME_spec (tools/perf/private/
	// benchmark.bzl); the runfiles hold it under the workspace's name.
	runfiles := filepath.Join(b.worktree, "bazel-bin", pkg, name+".runfiles")
	specs, _ := filepath.Glob(filepath.Join(runfiles, "*", pkg, name+"_spec.json"))
	if len(specs) != 1 {
		return nil, fmt.Errorf("%s: want one %s/%s_spec.json in its runfiles %s, found %d", b.target, pkg, name, runfiles, len(specs))
	}
	spec, err := perfspec.Read(specs[0])
	if err != nil {
		return nil, err
	}
	root := filepath.Join(filepath.Dir(specs[0]), strings.Repeat("../", strings.Count(pkg, "/")+1))
	return &program{binary: filepath.Join(root, spec.Binary), dir: filepath.Clean(root), spec: spec}, nil
}

func (b *bazelBuilder) close() {
	// The worktree's Bazel server would linger for hours; its output base
	// stays for the next bisection.
	runBuild(bazelcmd.Command(b.worktree, "shutdown"), b.worktree, io.Discard)
}

// A goBuilder builds a Go main package with the go command; the spec is
// the current checkout's.
type goBuilder struct {
	worktree, pkg, goCmd, out string
	spec                      *perfspec.Spec
	log                       io.Writer
	builds                    int
}

func (b *goBuilder) build() (*program, error) {
	b.builds++
	binary := filepath.Join(b.out, fmt.Sprintf("program.%d", b.builds))
	var output bytes.Buffer
	// No VCS stamp: a commit that changes nothing of the program builds
	// the same binary, and is not measured again.
	cmd := exec.Command(b.goCmd, "build", "-buildvcs=false", "-trimpath", "-o", binary, b.pkg)
	// A go.work around the cache directory is not the worktree's.
	if err := runBuild(cmd, b.worktree, &output, "GOWORK=off"); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, output.String())
	}
	return &program{binary: binary, dir: b.worktree, spec: b.spec}, nil
}

func (b *goBuilder) close() {}
