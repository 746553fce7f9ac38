package suite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/internal/bazelcmd"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// A Runner runs cases in a scratch copy of a checkout: a git repository of
// its own whose one commit is the checkout as it is (the base). Each
// benchmark of the cases is measured at the base by its quick test (the
// runner: result.json), again and again; each case is its patch applied to
// the base, the quick tests of its benchmarks built and run, and their gated
// figures judged against the base's first run by the lab's one comparison
// with the perf check's options (summary.Counted), which the nightly gate's
// comparison shares.
type Runner struct {
	// Scratch is the copy's directory, at a fixed place so that its Bazel
	// output base serves the next run.
	Scratch string
	Log     io.Writer
	// ManifestTarget is the label of the benchmarks' manifest ("": the
	// one the workspace declares, perfspec.QueryManifest).
	ManifestTarget string
	base           string
	// manifest is the base's manifest (loadManifest): each benchmark's
	// quick test and layout variants.
	manifest *perfspec.Manifest
	// baseline is each benchmark's first run at the base, baseLines its
	// line counts (nil: none kept).
	baseline  map[string]summary.Side
	baseLines map[string]*linecounts.File
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

// toBase puts the scratch copy back to the base, whatever a case changed.
func (r *Runner) toBase() error {
	if _, err := r.git("checkout", "-q", "--force", r.base); err != nil {
		return err
	}
	_, err := r.git("clean", "-q", "-f", "-d")
	return err
}

// Baseline measures the quick tests of benchmarks at the base, reruns+1
// times each (Bazel's --runs_per_test, one at a time): the first run of
// each is the base the cases are judged against, and every later one is
// judged against it too, by the same rule: a regression there is a false
// alarm.
func (r *Runner) Baseline(benchmarks []string, reruns int) []FalseAlarms {
	r.baseline, r.baseLines = map[string]summary.Side{}, map[string]*linecounts.File{}
	if err := r.toBase(); err != nil {
		return []FalseAlarms{{Benchmark: strings.Join(benchmarks, ", "), Err: err.Error()}}
	}
	if err := r.loadManifest(); err != nil {
		return []FalseAlarms{{Benchmark: strings.Join(benchmarks, ", "), Err: err.Error()}}
	}
	runs := reruns + 1
	fmt.Fprintf(r.Log, "regression suite: measuring %s at the base, %d times each\n", strings.Join(benchmarks, ", "), runs)
	results := r.measure(benchmarks, runs)
	for _, b := range benchmarks {
		if first := results[b]; len(first) > 0 && first[0].err == nil {
			r.baseline[b], r.baseLines[b] = first[0].side, first[0].lines
		}
	}
	layouts := r.layouts(benchmarks)
	var all []FalseAlarms
	for _, b := range benchmarks {
		fa := FalseAlarms{Benchmark: b}
		if err := layouts[b]; err != nil {
			fa.Err = err.Error()
			all = append(all, fa)
			continue
		}
		for i, res := range results[b] {
			if res.err != nil {
				fa.Err = res.err.Error()
				break
			}
			if i == 0 {
				continue // the base, r.baseline[b]
			}
			fa.Comparisons++
			// A rerun is the same binary and run: judged as a change all
			// the same, for what its noise alone would set off.
			opts := summary.Counted(nil)
			opts.IgnoreIdentity = true
			judged, err := summary.CompareOne(r.baseline[b], res.side, opts)
			if err != nil {
				fa.Err = err.Error()
				break
			}
			if judged.Fails() {
				var figures []string
				for _, f := range judged.Figures {
					if f.Fails() {
						figures = append(figures, f.String())
					}
				}
				fa.Alarms = append(fa.Alarms, fmt.Sprintf("run %d: %s", i+1, strings.Join(figures, ", ")))
			}
		}
		all = append(all, fa)
	}
	return all
}

// Run applies the case's patch to the base, builds and runs the quick
// tests of its benchmarks, and judges each against the base's first run.
func (r *Runner) Run(c Case) Outcome {
	o := Outcome{Case: c}
	for _, b := range c.Benchmarks {
		if _, ok := r.baseline[b]; !ok {
			o.Err = "the base of " + b + " was not measured"
			return o
		}
	}
	patch, err := filepath.Abs(c.Path)
	if err == nil {
		err = r.toBase()
	}
	if err == nil {
		if _, err = r.git("apply", patch); err != nil {
			err = fmt.Errorf("the patch does not apply: %w", err)
		}
	}
	if err != nil {
		o.Err = err.Error()
		return o
	}
	defer r.toBase()
	results := r.measure(c.Benchmarks, 1)
	var judged []summary.Benchmark
	first := map[string]measured{}
	for _, b := range c.Benchmarks {
		res := results[b][0]
		first[b] = res
		if res.err != nil {
			o.Err = b + ": " + res.err.Error()
			return o
		}
		j, err := summary.CompareOne(r.baseline[b], res.side, summary.Counted(nil))
		if err != nil {
			o.Err = b + ": " + err.Error()
			return o
		}
		judged = append(judged, j)
	}
	o.Benchmarks = judged
	o.Where = r.where(c, first)
	return o
}

// layouts counts the base's layout variants of benchmarks (the count
// actions the base's manifest lists, loadManifest) and gives each base side
// its layout noise (summary.ReadLayout), as the perf check gives its
// base's: a case is another binary, whose code and data land elsewhere. It
// returns, by benchmark, why it could not.
func (r *Runner) layouts(benchmarks []string) map[string]error {
	failed := map[string]error{}
	fail := func(err error) map[string]error {
		for _, b := range benchmarks {
			failed[b] = fmt.Errorf("its base's layout variants: %w", err)
		}
		return failed
	}
	m := r.manifest
	paths := map[string][]string{}
	labels := []string{"build", "--noremote_upload_local_results"}
	for _, b := range benchmarks {
		mb, err := m.Benchmark(b)
		if err != nil {
			failed[b] = err
			continue
		}
		for _, v := range mb.LayoutVariants {
			labels = append(labels, v.Label)
			paths[b] = append(paths[b], perfspec.Built(r.Scratch, v.Output))
		}
	}
	if len(labels) > 2 {
		fmt.Fprintf(r.Log, "regression suite: counting %d layout variants of the base\n", len(labels)-2)
		if err := r.bazel(labels...); err != nil {
			return fail(err)
		}
	}
	for _, b := range benchmarks {
		side, ok := r.baseline[b]
		if failed[b] != nil || !ok || len(paths[b]) == 0 {
			continue
		}
		layout, _, err := summary.ReadLayout(side, paths[b])
		if err != nil {
			failed[b] = err
			continue
		}
		side.Layout = layout
		r.baseline[b] = side
	}
	return failed
}

// loadManifest asks Bazel which manifest the scratch copy declares (or
// takes ManifestTarget's), builds it at the base and reads it.
func (r *Runner) loadManifest() error {
	label, _, err := perfspec.QueryManifest(r.bazelTo, r.ManifestTarget)
	if err != nil {
		return err
	}
	file, err := perfspec.ManifestFile(label)
	if err != nil {
		return err
	}
	if err := r.bazel("build", "--noremote_upload_local_results", label); err != nil {
		return fmt.Errorf("building the benchmarks' manifest %s: %w", label, err)
	}
	r.manifest, err = perfspec.ReadManifest(perfspec.Built(r.Scratch, file))
	return err
}

// quickTest is the label of a benchmark's quick test and its directory
// under bazel-testlogs, as the base's manifest names them.
func (r *Runner) quickTest(benchmark string) (label, dir string, err error) {
	if r.manifest == nil {
		return "", "", fmt.Errorf("no manifest of the benchmarks read")
	}
	b, err := r.manifest.Benchmark(benchmark)
	if err != nil {
		return "", "", err
	}
	quick, err := b.Target(result.ConfigQuick)
	if err != nil {
		return "", "", err
	}
	dir, err = perfspec.LabelPath(quick.Label)
	return quick.Label, dir, err
}

// measured is one run's result as a side of the comparison, or why there
// is none.
type measured struct {
	side summary.Side
	err  error
	// lines are the result's line counts (nil: none kept, or unreadable);
	// goProgram tells whether it counts a Go program's own instructions.
	lines     *linecounts.File
	goProgram bool
}

// measure builds and runs the quick tests of benchmarks, runs times each,
// and reads their results.
func (r *Runner) measure(benchmarks []string, runs int) map[string][]measured {
	args := []string{"test", "--noremote_upload_local_results", "--nocache_test_results", "--local_test_jobs=1",
		fmt.Sprintf("--runs_per_test=%d", runs), "--test_output=errors"}
	all, zips := map[string][]measured{}, map[string][]string{}
	var known []string
	for _, b := range benchmarks {
		label, testDir, err := r.quickTest(b)
		if err != nil {
			all[b] = slices.Repeat([]measured{{err: err}}, runs)
			continue
		}
		args = append(args, label)
		known = append(known, b)
		for i := 1; i <= runs; i++ {
			dir := testDir
			if runs > 1 {
				dir = path.Join(dir, fmt.Sprintf("run_%d_of_%d", i, runs))
			}
			zips[b] = append(zips[b], result.TestZip(r.Scratch, dir))
		}
	}
	if len(known) == 0 {
		return all
	}
	benchmarks = known
	// The test logs of an earlier case are still there when this case's
	// build fails: read, they would judge that case's binary as this one's.
	var stale error
	for _, b := range benchmarks {
		for _, zip := range zips[b] {
			if err := os.Remove(zip); err != nil && !errors.Is(err, fs.ErrNotExist) {
				stale = fmt.Errorf("the last case's result is still there: %w", err)
			}
		}
	}
	var built error
	if stale == nil {
		// A failing test is read all the same: its result says why, or
		// its absence does.
		built = r.bazel(args...)
	}
	for _, b := range benchmarks {
		for _, zip := range zips[b] {
			m := measured{err: stale}
			if stale == nil {
				m = readSide(zip)
			}
			if errors.Is(m.err, fs.ErrNotExist) {
				m.err = fmt.Errorf("its quick test left no result (bazel test: %v; the log says why)", built)
			}
			all[b] = append(all[b], m)
		}
	}
	return all
}

// readSide reads a quick test's result as a side of the comparison, and
// closes its files: the side holds all the comparison reads.
func readSide(zip string) measured {
	res, out, err := result.Read(zip)
	if err != nil {
		return measured{err: err}
	}
	defer out.Close()
	side, err := summary.NewSide(res, out, zip)
	m := measured{side: side, err: err, goProgram: cachegrind.CountsGoProgram(res)}
	if lines, err := linecounts.Open(res, out); err == nil {
		m.lines = lines
	}
	return m
}

// Close shuts the scratch copy's Bazel server down: it would linger for
// hours. The copy and its output base stay for the next run.
func (r *Runner) Close() {
	r.bazel("shutdown")
}

// bazel runs the scratch copy's Bazel (bazelcmd), its output going to
// the log. Nothing is uploaded to a remote cache: patched code is not to be trusted
// with it.
func (r *Runner) bazel(args ...string) error {
	return r.bazelTo(r.Log, args...)
}

// bazelTo runs the scratch copy's Bazel (bazelcmd), its standard output
// going to stdout, its standard error to the log.
func (r *Runner) bazelTo(stdout io.Writer, args ...string) error {
	return bazelcmd.Runner(r.Scratch, r.Log)(stdout, args...)
}
