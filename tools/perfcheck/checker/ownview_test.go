package checker

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// fakeBazel is a tools/bazel that builds nothing: it logs each call's
// directory and arguments to $FAKE_BAZEL_LOG, and answers a query with
// the file $FAKE_QUERY, else a graph whose manifest, //benchmarks:manifest,
// declares no quick test.
const fakeBazel = `#!/bin/sh
echo "$PWD $*" >>"$FAKE_BAZEL_LOG"
case "$1" in
query) if [ -n "$FAKE_QUERY" ]; then cat "$FAKE_QUERY"; else echo '<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2"><rule class="_benchmark_manifest" location="/w/benchmarks/BUILD.bazel:1:1" name="//benchmarks:manifest"><list name="specs"/></rule></query>'; fi ;;
esac
exit "${FAKE_BAZEL_STATUS:-0}"
`

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@localhost"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes files (path: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// manifestFile is where the fake query's manifest, //benchmarks:manifest,
// is built under bazel-bin.
const manifestFile = "benchmarks/manifest.json"

// builtManifest writes what a build of //benchmarks:all leaves in dir's
// bazel-bin: the manifest, and each benchmark's quick test's spec and
// runfiles, with the binary's bytes given.
func builtManifest(t *testing.T, dir string, binaries map[string]string) {
	t.Helper()
	builtManifestOf(t, dir, "//benchmarks:manifest", binaries)
}

// builtManifestOf writes what a build of the package of the manifest
// rule label leaves in dir's bazel-bin (builtManifest).
func builtManifestOf(t *testing.T, dir, label string, binaries map[string]string) {
	t.Helper()
	pkg, _, _ := strings.Cut(strings.TrimPrefix(label, "//"), ":")
	path, err := perfspec.ManifestFile(label)
	if err != nil {
		t.Fatal(err)
	}
	manifest := perfspec.Manifest{SchemaVersion: perfspec.ManifestSchemaVersion, Path: path}
	files := map[string]string{}
	for name, binary := range binaries {
		test := name + perfspec.QuickSuffix
		spec := perfspec.Spec{SchemaVersion: perfspec.SchemaVersion, Common: perfspec.Common{
			Benchmark: result.Benchmark{Name: name, Kind: result.KindProgram, Study: "s", Language: "Go",
				Workload: result.Workload{Name: result.WorkloadQuick}, Repetitions: 1},
			Binary: "bin/" + name, PProf: "bin/pprof",
		}, Program: &perfspec.Program{Profiler: "go", XTime: "bin/xtime", Heap: perfspec.HeapFlag, Profiles: []string{"cpu"}}}
		data, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		specPath := pkg + "/" + test + "_spec.json"
		files["bazel-bin/"+specPath] = string(data)
		files["bazel-bin/"+pkg+"/"+test+".runfiles/lab/bin/"+name] = binary
		manifest.Benchmarks = append(manifest.Benchmarks, perfspec.ManifestBenchmark{
			Name: name, Kind: result.KindProgram, Study: "s", Language: "Go",
			Targets: map[string]perfspec.ManifestTarget{result.ConfigQuick: {Label: "//" + pkg + ":" + test, Spec: specPath}},
		})
	}
	data, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	files["bazel-bin/"+manifest.Path] = string(data)
	writeFiles(t, dir, files)
}

// The own view (--own-view) is the change's own check, which the base's
// runs: it never hands over to the base's perf check, though it runs in
// a change's checkout, where a check would; it builds with the change's
// runner, no disk cache and no remote one; and it writes its summary
// alone and exits 0, though what it found fails: a benchmark of the base
// gone missing.
func TestOwnViewDoesNotHandOver(t *testing.T) {
	cache, bazelLog := t.TempDir(), filepath.Join(t.TempDir(), "bazel.calls")
	t.Setenv("HAVLAK_LAB_CACHE", cache)
	t.Setenv("FAKE_BAZEL_LOG", bazelLog)
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	writeFiles(t, repo, map[string]string{"tools/bazel": fakeBazel, ".gitignore": "/bazel-*\n",
		"WORKSPACE": "workspace(name = \"lab\")\n", "benchmarks/BUILD.bazel": "# the benchmarks\n"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "the lab")
	base := git(t, repo, "rev-parse", "HEAD")
	baseCheckout := filepath.Join(t.TempDir(), "base")
	git(t, repo, "worktree", "add", "-q", "--detach", baseCheckout, base)
	// The change removes the benchmark gone, in a BUILD file: every
	// benchmark is built; kept stays as it was.
	writeFiles(t, repo, map[string]string{"benchmarks/BUILD.bazel": "# the benchmarks, but gone\n"})
	git(t, repo, "commit", "-q", "-am", "benchmarks: gone")
	builtManifest(t, baseCheckout, map[string]string{"gone": "binary", "kept": "same"})
	builtManifest(t, repo, map[string]string{"kept": "same"})
	// Where a check typed in the change's checkout hands over.
	t.Setenv("BUILD_WORKSPACE_DIRECTORY", repo)

	dir := filepath.Join(t.TempDir(), "own-view")
	var log strings.Builder
	o := Options{OwnView: dir, Repo: repo, Base: base, BaseCheckout: baseCheckout, DiskCache: "none"}
	if status := cli.Report(&log, "perfcheck", Run(o, &log)); status != 0 {
		t.Fatalf("exit status %d, want 0 whatever it finds:\n%s", status, log.String())
	}
	s, err := summary.Read(filepath.Join(dir, summary.FileName))
	if err != nil || len(s.Benchmarks) != 1 || s.Benchmarks[0].Name != "gone" || s.Benchmarks[0].Outcome != verdict.Missing || s.Status() != verdict.StatusRegressed {
		t.Fatalf("its summary: %+v, %v:\n%s", s, err, log.String())
	}
	for _, name := range []string{filepath.Join(dir, "pr-comment.md"), filepath.Join(repo, "perf-check"), filepath.Join(cache, "perfcheck")} {
		if _, err := os.Stat(name); err == nil {
			t.Errorf("%s: written by the own view", name)
		}
	}
	data, err := os.ReadFile(bazelLog)
	if err != nil {
		t.Fatal(err)
	}
	calls := strings.Split(strings.TrimSpace(string(data)), "\n")
	var dirs []string
	for _, call := range calls {
		where, what, _ := strings.Cut(call, " ")
		dirs = append(dirs, where)
		if strings.Contains(what, "--disk_cache") || strings.Contains(what, "--config") || strings.Contains(what, "//tools/perfcheck") {
			t.Errorf("%s: a cache, or the base's perf check built", call)
		}
		// The change's runner, built in the change's checkout, measures;
		// the base's is not built.
		if runner := strings.Contains(what, "//tools/perf/runner"); strings.HasPrefix(what, "build ") && runner != (where == repo) {
			t.Errorf("%s: the runner built, or not, in the wrong checkout", call)
		}
	}
	if len(calls) != 3 || !strings.HasPrefix(calls[0], repo+" query ") || !slices.Contains(dirs, baseCheckout) {
		t.Errorf("Bazel's calls:\n%s\nwant a query of the change, a build of each side", data)
	}

	// The base checkout must be the base, nothing changed.
	o = Options{OwnView: dir, Repo: repo, Base: base, BaseCheckout: repo}
	log.Reset()
	if status := cli.Report(&log, "perfcheck", Run(o, &log)); status != 2 || !strings.Contains(log.String(), "not a checkout of the base") {
		t.Errorf("the change's checkout as the base's: exit status %d:\n%s", status, log.String())
	}
}

// In the own view the change's runner counts the base too: the base's
// count actions, its runner's counts, are neither built nor read.
func TestOwnViewCountsTheBaseItself(t *testing.T) {
	bazelLog := filepath.Join(t.TempDir(), "bazel.calls")
	t.Setenv("FAKE_BAZEL_LOG", bazelLog)
	base := t.TempDir()
	writeFiles(t, base, map[string]string{"tools/bazel": fakeBazel, "WORKSPACE": "workspace(name = \"lab\")\n"})
	target := check.Target{Test: "//benchmarks:havlak6cc_quick_test", Benchmark: "havlak6cc",
		Counts: "//benchmarks:havlak6cc_counts", CountsOutput: "benchmarks/havlak6cc_counts.zip"}
	for _, ownView := range []bool{false, true} {
		os.Remove(bazelLog)
		c := &checker{change: t.TempDir(), base: base, log: io.Discard, ownView: ownView}
		var err error
		if c.bazelLog, err = os.Create(filepath.Join(t.TempDir(), "bazel.log")); err != nil {
			t.Fatal(err)
		}
		var unreadable []string
		h := check.NewHarness(c.harness(), t.TempDir(), c.bazelLog)
		c.measure(h, []check.Target{target}, nil, base, t.TempDir(), "the base", &unreadable)
		c.bazelLog.Close()
		calls, _ := os.ReadFile(bazelLog)
		if built := strings.Contains(string(calls), "//benchmarks:havlak6cc_counts"); built == ownView || len(unreadable) != 1 {
			t.Errorf("own view %v: the base's count action built: %v; unreadable %q", ownView, built, unreadable)
		}
		// Nothing is counted here: the count action's zip is not there,
		// or the runner has no runfiles to count in.
		if want := map[bool]string{false: "havlak6cc_counts.zip", true: "the runfiles of a test"}[ownView]; len(unreadable) == 1 && !strings.Contains(unreadable[0], want) {
			t.Errorf("own view %v: %q, want %q", ownView, unreadable, want)
		}
	}
}

// fakeOwnView is a change's perf check as its build leaves it: it records
// its workspace and arguments in $FAKE_OWN_ARGS and does in its --own-view
// DIR what $FAKE_OWN says.
const fakeOwnView = `#!/bin/sh
echo "$BUILD_WORKSPACE_DIRECTORY $*" >"$FAKE_OWN_ARGS"
dir="$2"
case "$FAKE_OWN" in
ok) cp "$FAKE_SUMMARY" "$dir/summary.json" ;;
fail) echo "the change's check broke" >&2; exit 1 ;;
fifo) mkfifo "$dir/summary.json" ;;
zero) ln -s /dev/zero "$dir/summary.json" ;;
big) head -c 17000000 /dev/zero >"$dir/summary.json" ;;
garbage) echo '{"schema_version": 1, "tool": "perfcheck", "benchmarks": [], "verdict": "trust me"}' >"$dir/summary.json" ;;
esac
`

// The base's check asks the change's own perf check, built in the
// change's checkout, what it would say: on the base's checkout, with no
// cache, whatever the base's check builds with; what it writes is read
// bounded and parsed, and any failure is a reason, never the check's.
func TestAskOwnView(t *testing.T) {
	tmp := t.TempDir()
	change, base := filepath.Join(tmp, "change"), filepath.Join(tmp, "base")
	writeFiles(t, change, map[string]string{"tools/bazel": fakeBazel, "bazel-bin/tools/perfcheck/perfcheck_/perfcheck": fakeOwnView})
	argsFile, summaryFile := filepath.Join(tmp, "args"), filepath.Join(tmp, "summary.json")
	t.Setenv("FAKE_BAZEL_LOG", filepath.Join(tmp, "bazel.calls"))
	t.Setenv("FAKE_OWN_ARGS", argsFile)
	t.Setenv("FAKE_SUMMARY", summaryFile)
	data, err := summary.Marshal(&summary.Summary{Tool: "perfcheck", Baseline: "abc", Benchmarks: []summary.Benchmark{{Name: "havlak6cc", Outcome: verdict.Unchanged}}})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, tmp, map[string]string{"summary.json": string(data)})
	c := &checker{change: change, base: base, log: io.Discard, diskCache: "/cache/disk", countsConfig: "buildbarn"}
	if c.bazelLog, err = os.Create(filepath.Join(tmp, "bazel.log")); err != nil {
		t.Fatal(err)
	}
	defer c.bazelLog.Close()

	t.Setenv("FAKE_OWN", "ok")
	own := c.askOwnView("abc")
	if own.Summary == nil || len(own.Summary.Benchmarks) != 1 || own.Summary.Benchmarks[0].Name != "havlak6cc" {
		t.Fatalf("its summary: %+v", own)
	}
	args, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	prefix, suffix := change+" --own-view "+filepath.Dir(c.bazelLog.Name())+"/own-view-", " --repo "+change+" --base abc --base-checkout "+base+" --disk-cache none\n"
	if !strings.HasPrefix(string(args), prefix) || !strings.HasSuffix(string(args), suffix) {
		t.Errorf("its workspace and arguments: %q, want %q…%q", args, prefix, suffix)
	}

	for what, want := range map[string]string{
		"fail":    "the change's perf check: exit status 1",
		"fifo":    "summary.json: a named pipe: not a regular file",
		"zero":    "summary.json: a character device: not a regular file",
		"big":     "summary.json: not a summary: more than 16777216 bytes, larger than a summary may be",
		"garbage": `json: unknown field "verdict"`,
		"":        "summary.json: no such file or directory",
	} {
		t.Setenv("FAKE_OWN", what)
		if own := c.askOwnView("abc"); own.Summary != nil || !strings.Contains(own.Reason, want) {
			t.Errorf("%s: %+v, want the reason %q", what, own, want)
		}
	}
	t.Setenv("FAKE_BAZEL_STATUS", "1")
	if own := c.askOwnView("abc"); own.Summary != nil || !strings.HasPrefix(own.Reason, "building the change's perf check: exit status 1") {
		t.Errorf("its build failing: %+v", own)
	}
	// Its directory goes with it.
	if left, _ := filepath.Glob(filepath.Join(tmp, "own-view-*")); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}
