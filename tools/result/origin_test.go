package result

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestOriginTrusted(t *testing.T) {
	nightly := map[string]string{
		"BUILDKITE":              "true",
		"BUILDKITE_SOURCE":       "schedule",
		"BUILDKITE_REPO":         "git@example.com:lab/havlak-lab.git",
		"BUILDKITE_BRANCH":       "main",
		"BUILDKITE_PULL_REQUEST": "false",
		"BUILDKITE_BUILD_URL":    "https://buildkite.example/lab/builds/7",
	}
	with := func(changes map[string]string) func(string) string {
		env := map[string]string{}
		for k, v := range nightly {
			env[k] = v
		}
		for k, v := range changes {
			env[k] = v
		}
		return func(k string) string { return env[k] }
	}
	for _, tc := range []struct {
		name    string
		env     func(string) string
		trusted bool
		why     string // a part of the reason
	}{
		{"nightly of main", with(nil), true, ""},
		{"workstation", func(string) string { return "" }, false, "outside CI"},
		{"push to main", with(map[string]string{"BUILDKITE_SOURCE": "webhook"}), false, `started by "webhook"`},
		{"schedule of a branch", with(map[string]string{"BUILDKITE_BRANCH": "tuning"}), false, `branch "tuning"`},
		{"fork pull request", with(map[string]string{
			"BUILDKITE_SOURCE": "webhook", "BUILDKITE_PULL_REQUEST": "42",
			"BUILDKITE_PULL_REQUEST_REPO": "git://example.com/mallory/havlak-lab.git",
		}), false, "pull request #42 from the fork git://example.com/mallory/havlak-lab.git"},
		// A pull request claiming the schedule and main is still a pull request.
		{"pull request claiming the schedule", with(map[string]string{
			"BUILDKITE_PULL_REQUEST": "43", "BUILDKITE_PULL_REQUEST_REPO": "git@example.com:lab/havlak-lab.git",
		}), false, "pull request #43"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := CaptureOrigin(tc.env)
			ok, why := o.Trusted()
			if ok != tc.trusted || !strings.Contains(why, tc.why) {
				t.Errorf("%+v: Trusted() = %v, %q; want %v, containing %q", o, ok, why, tc.trusted, tc.why)
			}
		})
	}
}

// The benchmark tests get exactly the variables CaptureOrigin reads.
func TestBazelrcPassesOriginEnv(t *testing.T) {
	path := os.Getenv("BAZELRC") // relative to the runfiles' root under Bazel
	if srcdir := os.Getenv("TEST_SRCDIR"); srcdir != "" {
		path = filepath.Join(srcdir, os.Getenv("TEST_WORKSPACE"), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("BAZELRC: %v", err)
	}
	var passed []string
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "test:perf --test_env="); ok {
			passed = append(passed, name)
		}
	}
	if !slices.Equal(passed, OriginEnv) {
		t.Errorf(".bazelrc's test:perf --test_env names are %q; result.OriginEnv is %q", passed, OriginEnv)
	}
}
