package labrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lab's targets in the lab, and in a workspace that loads the lab as
// the external repository havlak_lab.
func TestWhereTheLabIs(t *testing.T) {
	for _, c := range []struct {
		repository, name, label, dir, bin string
	}{
		{"@", "", "//tools/perf/runner", "", "/ws/bazel-bin/tools/perf/runner/runner_/runner"},
		{"@havlak_lab", "havlak_lab", "@havlak_lab//tools/perf/runner", "external/havlak_lab",
			"/ws/bazel-bin/external/havlak_lab/tools/perf/runner/runner_/runner"},
	} {
		t.Run(c.repository, func(t *testing.T) {
			was := repository
			repository = c.repository
			t.Cleanup(func() { repository = was })
			if got := Name(); got != c.name {
				t.Errorf("Name = %q, want %q", got, c.name)
			}
			if got := Label("//tools/perf/runner"); got != c.label {
				t.Errorf("Label = %q, want %q", got, c.label)
			}
			if got := Label("@count_worker//:worker.json"); got != "@count_worker//:worker.json" {
				t.Errorf("another repository's label became %q", got)
			}
			if got := Dir(); got != c.dir {
				t.Errorf("Dir = %q, want %q", got, c.dir)
			}
			if got := BinPath("/ws", "tools/perf/runner/runner_/runner"); got != filepath.FromSlash(c.bin) {
				t.Errorf("BinPath = %q, want %q", got, c.bin)
			}
		})
	}
}

// Under bazel test, the repository Bazel built the package in is the
// test's own: "" in the lab, the lab's name where a workspace that loads
// it runs the test (bazel test @havlak_lab//internal/labrepo:all).
func TestBuiltIn(t *testing.T) {
	target := os.Getenv("TEST_TARGET")
	if target == "" {
		t.Skip("not under bazel test: built without Bazel, the lab is the main repository")
	}
	want := ""
	if repo, _, ok := strings.Cut(target, "//"); ok && repo != "" {
		want = strings.TrimPrefix(repo, "@")
	}
	if got := Name(); got != want {
		t.Errorf("the test %s: Name = %q, want %q", target, got, want)
	}
}
