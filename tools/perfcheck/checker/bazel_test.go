package checker

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/perfcheck/check"
)

// Neither side's build may write a remote cache: a fork's code runs in
// both, whatever its checkout's settings say. Both build with the check's
// disk cache, when it has one.
func TestBazelArgs(t *testing.T) {
	for _, args := range [][]string{{"build", "//benchmarks:all"}, {"test", "--nocache_test_results", "//benchmarks:a_quick_test"}} {
		got := bazelArgs(args, "/cache/disk")
		if got[0] != args[0] || !slices.Contains(got, "--noremote_upload_local_results") || !slices.Contains(got, "--disk_cache=/cache/disk") || !slices.Contains(got, "--incompatible_remote_results_ignore_disk") || got[len(got)-1] != args[len(args)-1] {
			t.Errorf("bazelArgs(%q) = %q", args, got)
		}
		if got := bazelArgs(args, ""); len(got) != len(args)+1 {
			t.Errorf("without a disk cache: %q", got)
		}
	}
	// The counts' config (remote execution) takes no disk cache, which
	// Bazel 4 refuses beside it, and comes before the flag that keeps the
	// build from uploading, which it would otherwise override.
	got := bazelArgs([]string{"build", "--keep_going", "--config=buildbarn", "//benchmarks:a_counts"}, "/cache/disk")
	if want := []string{"build", "--config=buildbarn", "--noremote_upload_local_results", "--keep_going", "//benchmarks:a_counts"}; !slices.Equal(got, want) {
		t.Errorf("with the counts' config: %q, want %q", got, want)
	}
	for _, args := range [][]string{{"shutdown"}, {"query", "--output=xml", "//a:*"}} {
		if got := bazelArgs(args, "/cache/disk"); !slices.Equal(got, args) {
			t.Errorf("%q: %q", args, got)
		}
	}
}

// Each side builds with its own config, never the other's: the base (its
// runner and its count actions, trusted) with the counts' config, which may
// execute remotely and whose cache main's post-merge step filled; the
// change with the change's cache config alone, a cache it reads, its
// actions running here, its results never uploaded.
func TestEachSideBuildsWithItsOwnConfig(t *testing.T) {
	bazelLog := filepath.Join(t.TempDir(), "bazel.calls")
	t.Setenv("FAKE_BAZEL_LOG", bazelLog)
	c := &checker{change: t.TempDir(), base: t.TempDir(), log: &strings.Builder{}, countsConfig: "buildbarn", changeCacheConfig: "buildbarn-read"}
	for _, dir := range []string{c.change, c.base} {
		writeFiles(t, dir, map[string]string{"tools/bazel": fakeBazel, "WORKSPACE": "workspace(name = \"lab\")\n"})
		builtManifest(t, dir, map[string]string{"havlak6": "binary"})
	}
	var err error
	if c.bazelLog, err = os.Create(filepath.Join(t.TempDir(), "bazel.log")); err != nil {
		t.Fatal(err)
	}
	defer c.bazelLog.Close()
	if _, err := c.build([]string{"//benchmarks:havlak6_quick_test"}, manifestFile, check.Reach{Reached: map[string]string{"havlak6": "//benchmarks:havlak6_quick_test"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bazelLog)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		c.change: "build --config=buildbarn-read --noremote_upload_local_results //benchmarks:havlak6_quick_test",
		c.base:   "build --config=buildbarn --noremote_upload_local_results //benchmarks:havlak6_quick_test " + strings.Join(check.HarnessTargets, " "),
	}
	calls := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, call := range calls {
		dir, args, _ := strings.Cut(call, " ")
		if args != want[dir] {
			t.Errorf("in %s: bazel %s, want bazel %s", dir, args, want[dir])
		}
	}
	if len(calls) != 2 {
		t.Errorf("Bazel's calls:\n%s\nwant a build of each side", data)
	}
}
