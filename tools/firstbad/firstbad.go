// Package firstbad finds the commit that changed a benchmark's low-noise
// figure: the first bad commit between a good and a bad one, measured in a
// worktree of its own under Cachegrind and judged by the gate's rule for
// counts (verdict.Boundary). The bisect command and the nightly's gate
// call it (Find); //tools/bisect documents the method.
package firstbad

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/gosdk"
	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// minRepetitions is the fewest runs per commit by default: a C or C++
// program's count is exact, a Go program's own count moves by less than
// 0.01% (docs/noise.md), and three runs show that spread.
const minRepetitions = 3

// Describe is a measurement's median and range, as bisect prints them.
func Describe(values []float64) string { return verdict.SampleText(result.NewSample(values)) }

// git runs git commands in one directory.
type git = gitwork.Repo

// Find measures GOOD and BAD and the commits git bisect picks between them,
// and answers with the first bad one; progress goes to log.
func Find(o Options, log io.Writer) (*answer.Answer, error) {
	if err := o.complete(log); err != nil {
		return nil, err
	}
	repo := git(o.Repo)
	top, err := repo.Output("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, cli.Usagef("%s: not a git repository: %v", o.Repo, err)
	}
	repo = git(top)
	resolve := func(what, rev string) (string, error) {
		hash, err := repo.Output("rev-parse", "--verify", "--quiet", rev+"^{commit}")
		if err != nil || hash == "" {
			return "", cli.Usagef("%s %q: not a commit of %s", what, rev, top)
		}
		return hash, nil
	}
	good, err := resolve("GOOD", o.Good)
	if err != nil {
		return nil, err
	}
	bad, err := resolve("BAD", o.Bad)
	if err != nil {
		return nil, err
	}
	if good == bad {
		return nil, cli.Usagef("GOOD and BAD are the same commit, %s", good)
	}
	if _, err := repo.Output("merge-base", "--is-ancestor", good, bad); err != nil {
		return nil, cli.Usagef("GOOD %s is not an ancestor of BAD %s", o.Good, o.Bad)
	}

	worktree, err := repo.AddWorktree("bisection", o.Cache, good)
	if err != nil {
		return nil, err
	}
	wt := worktree.Dir
	defer func() {
		fmt.Fprintf(log, "bisect: removing the worktree %s\n", wt)
		worktree.Close()
	}()
	tmp, err := os.MkdirTemp("", "bisect")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var b builder
	switch o.Builder {
	case "bazel":
		// The user's cache settings make each commit's build cheap.
		if data, err := os.ReadFile(filepath.Join(top, "user.bazelrc")); err == nil {
			if err := os.WriteFile(filepath.Join(wt, "user.bazelrc"), data, 0o644); err != nil {
				return nil, err
			}
		}
		b = &bazelBuilder{worktree: wt, target: o.Target, log: log}
	case "go":
		spec, err := perfspec.Read(o.SpecFile)
		if err != nil {
			return nil, cli.UsageError{Err: err}
		}
		goCmd := o.GoCommand
		if goCmd == "" {
			goCmd = gosdk.Command()
		}
		b = &goBuilder{worktree: wt, pkg: o.GoPackage, goCmd: goCmd, out: tmp, spec: spec, log: log}
	}
	defer b.close()
	// Without Valgrind every commit would be skipped as broken.
	if _, err := cachegrind.Valgrind(); err != nil {
		return nil, err
	}
	m := &measurer{o: &o, wt: git(wt), builder: b, tmp: tmp, log: log, count: underValgrind}
	return m.bisect(good, bad)
}

// underValgrind counts a run under the Valgrind on PATH.
func underValgrind(run cachegrind.Run) (cachegrind.Counts, error) {
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		return cachegrind.Counts{}, err
	}
	run.Valgrind = valgrind
	return run.Count()
}

// bisect measures GOOD and BAD in m's worktree, then the commits git
// bisect picks between them, and answers with the first bad one.
func (m *measurer) bisect(good, bad string) (*answer.Answer, error) {
	o, log := m.o, m.log
	fmt.Fprintf(log, "bisect: %s between GOOD %s and BAD %s, in the worktree %s (built with %s)\n", o.Benchmark, gitwork.Short(good), gitwork.Short(bad), m.wt, o.Builder)
	goodM, err := m.measureAt(good, "GOOD")
	if err != nil {
		return nil, err
	}
	badM, err := m.measureAt(bad, "BAD")
	if err != nil {
		return nil, err
	}
	// The gate's rule for counts decides whether GOOD and BAD differ at
	// all, its threshold calibrated from GOOD's runs: a bisect of a change
	// the gate calls noise names no commit.
	boundary, err := verdict.Lab.NewBoundary(m.figure, result.UnitInstructions, m.exact, goodM.Values, badM.Values)
	if err != nil {
		return nil, err
	}
	goodM.Verdict, badM.Verdict = "good", "bad"
	fmt.Fprintf(log, "bisect: %s\n", boundary.Rule())
	rep := &answer.Answer{
		Benchmark: o.Benchmark, Figure: m.figure, Unit: result.UnitInstructions, Builder: o.Builder,
		Repetitions: m.repetitions, Rule: boundary.Rule(), Threshold: boundary.Threshold, Good: goodM, Bad: badM,
	}
	measured := map[string]answer.Measurement{good: goodM, bad: badM}

	wtGit := m.wt
	out, err := wtGit.Output("bisect", "start", bad, good)
	for err == nil {
		if answer := firstBad.FindStringSubmatch(out); answer != nil {
			rep.FirstBad = measured[answer[1]]
			break
		}
		if strings.Contains(out, "only 'skip'ped commits left") {
			return nil, fmt.Errorf("no answer: the commits that did not build or run hide it:\n%s", out)
		}
		if line, _, _ := strings.Cut(out, "\n"); strings.HasPrefix(line, "Bisecting:") {
			fmt.Fprintf(log, "bisect: %s\n", line)
		}
		var head string
		if head, err = wtGit.Output("rev-parse", "HEAD"); err != nil {
			break
		}
		step, merr := m.measure(head, "")
		switch {
		case errors.Is(merr, errBroken):
			step.Verdict, step.Note = "skip", merr.Error()
			fmt.Fprintf(log, "bisect: %s skipped: %v\n", gitwork.Short(head), merr)
		case merr != nil:
			return nil, merr
		default:
			bad, clear := boundary.Bad(step.Values)
			if !clear {
				fmt.Fprintf(log, "bisect: %s: its runs straddle the threshold; measuring it %d times more\n", gitwork.Short(head), m.repetitions)
				more, err := m.measureAgain(head)
				if err != nil {
					return nil, err
				}
				step.Values = append(step.Values, more.Values...)
				step.Median = result.NewSample(step.Values).Median
				if bad, clear = boundary.Bad(step.Values); !clear {
					step.Note = "its runs straddle the threshold: judged by their median"
				}
			}
			step.Verdict = map[bool]string{true: "bad", false: "good"}[bad]
		}
		fmt.Fprintf(log, "bisect: %s is %s\n", gitwork.Short(head), step.Verdict)
		measured[head] = step
		rep.Steps = append(rep.Steps, step)
		out, err = wtGit.Output("bisect", step.Verdict)
	}
	if err != nil {
		return nil, err
	}
	parent, err := wtGit.Output("rev-parse", rep.FirstBad.Commit+"^1")
	if err != nil {
		return nil, err
	}
	var ok bool
	if rep.Parent, ok = measured[parent]; !ok {
		// A merge's first parent need not have been measured.
		if rep.Parent, err = m.measureAt(parent, "the first bad commit's parent"); err != nil {
			return nil, err
		}
	}
	rep.Change = rep.FirstBad.Median/rep.Parent.Median - 1
	rep.ParentLines, rep.FirstBadLines, rep.GoProgram = m.lines[rep.Parent.Commit], m.lines[rep.FirstBad.Commit], m.goProgram
	rep.Saved = m.saved
	fmt.Fprintf(log, "bisect: %d commits had the binary and run of a commit measured before: %d runs under Cachegrind saved\n",
		m.saved, m.saved*m.repetitions)
	return rep, nil
}

// firstBad is git bisect's answer.
var firstBad = regexp.MustCompile(`(?m)^([0-9a-f]{40,64}) is the first bad commit`)
