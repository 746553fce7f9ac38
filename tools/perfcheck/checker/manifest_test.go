package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The check reads the manifest the workspace declares, wherever it stands
// and whatever its name: a change of a BUILD file builds its package at
// both sides, and each side's benchmarks are read from its file. A
// workspace of two manifests is refused, both named, unless
// --manifest-target names one.
func TestTheWorkspacesManifest(t *testing.T) {
	t.Setenv("HAVLAK_LAB_CACHE", t.TempDir())
	queryFile := filepath.Join(t.TempDir(), "query.xml")
	t.Setenv("FAKE_QUERY", queryFile)
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	writeFiles(t, repo, map[string]string{"tools/bazel": fakeBazel, ".gitignore": "/bazel-*\n",
		"WORKSPACE": "workspace(name = \"lab\")\n", "perf/BUILD.bazel": "# the benchmarks\n"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "the consumer")
	base := git(t, repo, "rev-parse", "HEAD")
	baseCheckout := filepath.Join(t.TempDir(), "base")
	git(t, repo, "worktree", "add", "-q", "--detach", baseCheckout, base)
	writeFiles(t, repo, map[string]string{"perf/BUILD.bazel": "# the benchmarks, but gone\n"})
	git(t, repo, "commit", "-q", "-am", "perf: gone")
	builtManifestOf(t, baseCheckout, "//perf:suite", map[string]string{"gone": "binary", "kept": "same"})
	builtManifestOf(t, repo, "//perf:suite", map[string]string{"kept": "same"})
	t.Setenv("BUILD_WORKSPACE_DIRECTORY", repo)

	manifest := func(label string) string {
		return `<rule class="_benchmark_manifest" name="` + label + `"><list name="specs"/></rule>`
	}
	check := func(given string, manifests ...string) (int, string, []string) {
		t.Helper()
		query := `<?xml version="1.1" encoding="UTF-8" standalone="no"?>` + "\n<query version=\"2\">" + strings.Join(manifests, "") + "</query>\n"
		if err := os.WriteFile(queryFile, []byte(query), 0o644); err != nil {
			t.Fatal(err)
		}
		bazelLog := filepath.Join(t.TempDir(), "bazel.calls")
		t.Setenv("FAKE_BAZEL_LOG", bazelLog)
		dir := filepath.Join(t.TempDir(), "own-view")
		var log strings.Builder
		o := Options{OwnView: dir, Repo: repo, Base: base, BaseCheckout: baseCheckout, DiskCache: "none", ManifestTarget: given}
		status := cli.Report(&log, "perfcheck", Run(o, &log))
		if status == 0 {
			s, err := summary.Read(filepath.Join(dir, summary.FileName))
			if err != nil || len(s.Benchmarks) != 1 || s.Benchmarks[0].Name != "gone" || s.Benchmarks[0].Outcome != verdict.Missing {
				t.Errorf("its summary: %+v, %v:\n%s", s, err, log.String())
			}
		}
		calls, _ := os.ReadFile(bazelLog)
		return status, log.String(), strings.Split(strings.TrimSpace(string(calls)), "\n")
	}

	status, log, calls := check("", manifest("//perf:suite"))
	if status != 0 || len(calls) != 3 {
		t.Fatalf("one manifest: exit status %d, Bazel's calls %q:\n%s", status, calls, log)
	}
	for _, call := range calls[1:] {
		if !strings.Contains(call, " build ") || !strings.Contains(call, " //perf:all") {
			t.Errorf("%s: want a build of the manifest's package", call)
		}
	}

	status, log, calls = check("", manifest("//other:manifest"), manifest("//perf:suite"))
	if status != 2 || !strings.Contains(log, "2 benchmark manifests, //other:manifest, //perf:suite") || !strings.Contains(log, "--manifest-target") || len(calls) != 1 {
		t.Errorf("two manifests: exit status %d, Bazel's calls %q:\n%s", status, calls, log)
	}
	if status, log, _ = check("//perf:suite", manifest("//other:manifest"), manifest("//perf:suite")); status != 0 {
		t.Errorf("two manifests, --manifest-target //perf:suite: exit status %d:\n%s", status, log)
	}
}
