package main

import (
	"slices"
	"testing"
)

// Neither side's build may write a remote cache: a fork's code runs in
// both, whatever its checkout's settings say.
func TestNoUploads(t *testing.T) {
	for _, args := range [][]string{{"build", "//benchmarks:all"}, {"test", "--nocache_test_results", "//benchmarks:a_quick_test"}} {
		got := noUploads(args)
		if got[0] != args[0] || !slices.Contains(got, "--noremote_upload_local_results") || !slices.Contains(got, args[len(args)-1]) {
			t.Errorf("noUploads(%q) = %q", args, got)
		}
	}
	if got := noUploads([]string{"shutdown"}); !slices.Equal(got, []string{"shutdown"}) {
		t.Errorf("shutdown: %q", got)
	}
}
