package buildkite

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// An agent on PATH that logs its arguments and input.
func fakeAgent(t *testing.T) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "agent.log")
	script := "#!/bin/sh\necho \"$*\" >'" + log + "'\ncat >>'" + log + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "buildkite-agent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	return log
}

func TestAnnotatorInAJob(t *testing.T) {
	log := fakeAgent(t)
	t.Setenv("BUILDKITE", "true")
	annotate := Annotator("perf-check", &bytes.Buffer{}, &bytes.Buffer{})
	if annotate == nil {
		t.Fatal("no annotator in a Buildkite job with the agent on PATH")
	}
	if err := annotate("error", "### :x: regressed"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(log)
	if want := "annotate --style error --context perf-check\n### :x: regressed\n"; err != nil || string(got) != want {
		t.Errorf("the agent got %q, %v; want %q", got, err, want)
	}
}

func TestNoAnnotatorOutsideAJob(t *testing.T) {
	fakeAgent(t)
	t.Setenv("BUILDKITE", "")
	if Annotator("perf-check", nil, nil) != nil {
		t.Error("an annotator outside a Buildkite job")
	}
	t.Setenv("BUILDKITE", "true")
	t.Setenv("PATH", t.TempDir())
	if Annotator("perf-check", nil, nil) != nil {
		t.Error("an annotator without buildkite-agent on PATH")
	}
}
