package main

import (
	"slices"
	"testing"
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
