package suite

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// A Runner runs cases in a scratch copy of a checkout: a git repository of
// its own whose first commit is the checkout as it is (the base); each
// case is its patch committed on the base, checked by the perf check
// (tools/perfcheck) against the base, which builds both sides, measures
// the benchmarks whose identity changed with the runner, and judges their
// gated figures by the gate's rule (check.Compare, tools/verdict).
type Runner struct {
	// Scratch is the copy's directory, at a fixed place so that its Bazel
	// output base (and perfcheck's worktree's) serve the next run.
	Scratch string
	// Perfcheck is the perfcheck command.
	Perfcheck string
	Log       io.Writer
	base      string
}

// Prepare makes the scratch copy of the checkout source and commits it.
func (r *Runner) Prepare(source string) (string, error) {
	if err := os.RemoveAll(r.Scratch); err != nil {
		return "", err
	}
	if err := gitwork.CopyCheckout(source, r.Scratch); err != nil {
		return "", fmt.Errorf("copying %s: %w", source, err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "the lab, as the regression suite found it"}} {
		if _, err := r.git(args...); err != nil {
			return "", err
		}
	}
	base, err := r.git("rev-parse", "HEAD")
	r.base = base
	return base, err
}

// git runs git in the scratch copy, as a throwaway identity.
func (r *Runner) git(args ...string) (string, error) {
	return gitwork.Repo(r.Scratch).Output(append([]string{"-c", "user.name=regression suite", "-c", "user.email=lab@localhost"}, args...)...)
}

// Run applies the case's patch to the base, commits it and has the perf
// check judge it; out receives perfcheck's summary.json and comment.
func (r *Runner) Run(c Case, out string) Outcome {
	o := Outcome{Case: c}
	patch, err := filepath.Abs(c.Path)
	if err == nil {
		_, err = r.git("checkout", "-q", "--force", "--detach", r.base)
	}
	if err == nil {
		if _, err = r.git("apply", "--index", patch); err != nil {
			err = fmt.Errorf("the patch does not apply: %w", err)
		}
	}
	if err == nil {
		_, err = r.git("commit", "-q", "-m", c.Name+": "+c.What)
	}
	if err != nil {
		o.Err = err.Error()
		return o
	}
	cmd := exec.Command(r.Perfcheck, "--repo", r.Scratch, "--base", r.base, "--out", out)
	cmd.Stdout, cmd.Stderr = r.Log, r.Log
	// Its exit status is 1 when it finds a regression: the summary says.
	cmd.Run()
	s, err := summary.Read(filepath.Join(out, summary.FileName))
	if err != nil {
		o.Err = fmt.Sprintf("perfcheck wrote no summary: %v", err)
		return o
	}
	for i, b := range s.Benchmarks {
		if b.Name == c.Benchmark {
			o.Benchmark = &s.Benchmarks[i]
		}
	}
	if o.Benchmark == nil {
		o.Err = fmt.Sprintf("perfcheck did not measure %s (is the patch a change of it?)", c.Benchmark)
		if len(s.Unreadable) > 0 {
			o.Err += ": " + strings.Join(s.Unreadable, "; ")
		}
	}
	return o
}

// Reruns measures the quick tests of benchmarks, at the base, reruns+1
// times each (Bazel's --runs_per_test, one at a time), and judges every
// rerun against the first by the perf check's rule.
func (r *Runner) Reruns(benchmarks []string, reruns int) []FalseAlarms {
	if _, err := r.git("checkout", "-q", "--force", "--detach", r.base); err != nil {
		return []FalseAlarms{{Benchmark: strings.Join(benchmarks, ", "), Err: err.Error()}}
	}
	runs := reruns + 1
	args := []string{"test", "--noremote_upload_local_results", "--nocache_test_results", "--local_test_jobs=1",
		fmt.Sprintf("--runs_per_test=%d", runs), "--test_output=errors"}
	for _, b := range benchmarks {
		args = append(args, "//benchmarks:"+b+check.QuickSuffix)
	}
	fmt.Fprintf(r.Log, "regression suite: measuring %s %d times each, unchanged\n", strings.Join(benchmarks, ", "), runs)
	// A failing run is judged all the same: its result says why.
	r.bazel(args...)
	var all []FalseAlarms
	for _, b := range benchmarks {
		fa := FalseAlarms{Benchmark: b}
		var first *result.Result
		for i := 1; i <= runs; i++ {
			zip := filepath.Join(r.Scratch, "bazel-testlogs", "benchmarks", b+check.QuickSuffix,
				fmt.Sprintf("run_%d_of_%d", i, runs), "test.outputs", result.ZipName)
			res, _, err := result.Read(zip)
			if err != nil {
				fa.Err = err.Error()
				break
			}
			if first == nil {
				first = res
				continue
			}
			fa.Comparisons++
			if judged := check.Compare(first, res, nil); judged.Fails() {
				var figures []string
				for _, f := range judged.Figures {
					if f.Fails() {
						figures = append(figures, f.String())
					}
				}
				fa.Alarms = append(fa.Alarms, fmt.Sprintf("run %d: %s", i, strings.Join(figures, ", ")))
			}
		}
		all = append(all, fa)
	}
	return all
}

// Close shuts the scratch copy's Bazel server down: it would linger for
// hours. The copy and its output base stay for the next run.
func (r *Runner) Close() {
	r.bazel("shutdown")
}

func (r *Runner) bazel(args ...string) error {
	cmd := exec.Command(filepath.Join(r.Scratch, "tools", "bazel"), args...)
	cmd.Dir = r.Scratch
	cmd.Stdout, cmd.Stderr = r.Log, r.Log
	return cmd.Run()
}
