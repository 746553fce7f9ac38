package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func env(pairs ...string) map[string]value {
	m := map[string]value{}
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i]] = parseValue(pairs[i+1])
	}
	return m
}

func TestEvaluate(t *testing.T) {
	pr := env("build.source", "webhook", "build.branch", "feature/x",
		"build.pull_request.id", `"17"`, "build.pull_request.repository.fork", "true")
	push := env("build.source", "webhook", "build.branch", "main",
		"build.pull_request.id", "null", "build.pull_request.repository.fork", "null")
	for _, c := range []struct {
		cond string
		env  map[string]value
		want bool
	}{
		{`build.source == "schedule"`, push, false},
		{`build.source != 'schedule'`, push, true},
		// null is neither true nor false, as for builds that are no pull request.
		{`build.pull_request.repository.fork == true`, push, false},
		{`build.pull_request.repository.fork != true`, push, true},
		{`build.pull_request.repository.fork == false`, push, false},
		{`build.pull_request.repository.fork == true`, pr, true},
		{`!build.pull_request.repository.fork`, push, true},
		{`!build.pull_request.repository.fork`, pr, false},
		{`build.pull_request.id == null`, push, true},
		{`build.pull_request.id == "17"`, pr, true},
		{`build.pull_request.id == 17`, pr, false}, // a string is not an integer
		// && binds tighter than ||.
		{`true || false && false`, push, true},
		{`(true || false) && false`, push, false},
		{`!true || true`, push, true},
		{`!(true || true)`, push, false},
		{"build.branch =~ /^feature\\//", pr, true},
		{"build.branch !~ /^feature\\//", pr, false},
		{"build.branch =~ /^feature\\//", push, false},
		{"// only on main\nbuild.branch == \"main\"", push, true},
		{`build.source != "schedule" && build.pull_request.repository.fork != true`, pr, false},
		{`build.source != "schedule" && build.pull_request.repository.fork != true`, push, true},
	} {
		got, err := evaluate(c.cond, c.env)
		if err != nil || got != c.want {
			t.Errorf("evaluate(%q) = %v, %v; want %v", c.cond, got, err, c.want)
		}
	}
}

func TestEvaluateRefuses(t *testing.T) {
	e := env("build.source", "webhook")
	for _, c := range []struct{ cond, want string }{
		{`build.sorce == "schedule"`, "variable build.sorce is not given"},
		{`build.env("X") == null`, "not supported"},
		{`build.pull_request.labels includes "x"`, "not supported"},
		{`build.source == "schedule`, "unterminated string"},
		{`(build.source == "x"`, "missing )"},
		{`build.source == `, "unexpected end"},
		{`build.source = "x"`, "unexpected"},
		{`build.source =~ "x"`, "regular expression"},
		{`build.source == "x" build.source`, "unexpected"},
	} {
		_, err := evaluate(c.cond, e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("evaluate(%q): error %v, want one saying %q", c.cond, err, c.want)
		}
	}
	if _, err := evaluate(`build.env("X")`, e); !errors.Is(err, errUnsupported) {
		t.Errorf("build.env(): %v, want errUnsupported", err)
	}
}

func TestSelectSteps(t *testing.T) {
	pipeline := []byte(`{"steps": [
		{"key": "always", "command": "true"},
		{"key": "nightly", "if": "build.source == \"schedule\""},
		{"label": ":x: no key", "if": "build.source != \"schedule\""},
		{"wait": null}
	]}`)
	got, err := selectSteps(pipeline, env("build.source", "schedule"))
	if err != nil || !slices.Equal(got, []string{"always", "nightly", "step 4"}) {
		t.Errorf("schedule: %q, %v", got, err)
	}
	got, err = selectSteps(pipeline, env("build.source", "webhook"))
	if err != nil || !slices.Equal(got, []string{"always", ":x: no key", "step 4"}) {
		t.Errorf("webhook: %q, %v", got, err)
	}
	if _, err := selectSteps([]byte(`{"steps": [{"key": "k", "if": true}]}`), nil); err == nil {
		t.Error("a non-string if was accepted")
	}
	if _, err := selectSteps([]byte(`{"steps": [{"key": "k", "if": "x == 1"}]}`), nil); err == nil ||
		!strings.Contains(err.Error(), "k: if") {
		t.Errorf("an unknown variable: %v, want an error naming the step", err)
	}
}

func TestRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(file, []byte(`{"steps": [{"key": "a", "if": "build.pull_request.repository.fork == true"}, {"key": "b"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run([]string{"-pipeline", file, "-var", "build.pull_request.repository.fork=true"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "a\nb\n" {
		t.Errorf("output %q, want a and b", out.String())
	}
	if err := run([]string{"-pipeline", file}, &out); err == nil {
		t.Error("a condition on a variable not given passed")
	}
	if err := run([]string{"-var", "x"}, &out); err == nil {
		t.Error("a -var without = was accepted")
	}
}
