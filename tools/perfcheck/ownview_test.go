package main

import (
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// The own view's flags: what the change's tools must never be given is
// refused as bad usage, before anything runs.
func TestOwnViewFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--own-view", "/tmp/v"}, "--own-view needs --base-checkout"},
		{[]string{"--base-checkout", "/tmp/b"}, "--base-checkout is for --own-view only"},
		{[]string{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b", "--disk-cache", "/cache/disk"}, "no disk cache"},
		{[]string{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b", "--counts-config", "buildbarn"}, "no --counts-config"},
		{[]string{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b", "--change-cache-config", "buildbarn-read"}, "no --change-cache-config"},
		{[]string{"--change-cache-config", "a b"}, `--change-cache-config "a b": want the name of a config`},
		{[]string{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b", "--out", "/tmp/o"}, "no --out"},
		{[]string{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b", "--shutdown"}, "no --shutdown"},
	} {
		var log strings.Builder
		if status := cli.Report(&log, "perfcheck", run(c.args, &log)); status != 2 || !strings.Contains(log.String(), c.want) {
			t.Errorf("%q: exit status %d, %q: want 2 and %q", c.args, status, log.String(), c.want)
		}
	}
	for _, args := range [][]string{
		{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b"},
		{"--own-view", "/tmp/v", "--base-checkout", "/tmp/b", "--disk-cache", "none"},
		{"--base", "main", "--disk-cache", "/cache/disk", "--counts-config", "buildbarn", "--change-cache-config", "buildbarn-read", "--shutdown"},
	} {
		if _, _, err := parseFlags(args, &strings.Builder{}); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// counts is havlak6cc's instructions, as a runner declares them with
// threshold.
func counts(threshold float64, values ...float64) *result.Result {
	return &result.Result{Benchmark: result.Benchmark{Name: "havlak6cc", Study: "s", Language: "C++"},
		Metrics: []result.Metric{{Name: "instructions", Unit: "instructions", Values: values, Gated: true, Threshold: threshold, Exact: true}}}
}

// judged is the perf check's summary of havlak6cc measured at both sides.
func judged(t *testing.T, base, change *result.Result) *summary.Summary {
	t.Helper()
	out, err := result.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := check.Compare("abc", map[string]check.Measured{"havlak6cc": {Result: base, Outputs: out}},
		map[string]check.Measured{"havlak6cc": {Result: change, Outputs: out}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChecks's reading of the comment's own view (ownViewSays) reads the
// comment as WriteComment writes it, for its two gate-editing changes:
// floors of 100%, which the change's tools pass, and a runner that scales
// both sides' counts, which they find regressed as the base's do.
func TestChecksReadTheOwnView(t *testing.T) {
	base := judged(t, counts(0.01, 1e9), counts(0.01, 1.0536e9))
	plan := check.Plan{Changed: []check.Target{{Benchmark: "havlak6cc"}}, GateEdits: []string{"tools/verdict/calibrate.go"}}
	comment := func(own *summary.Summary) string {
		plan.OwnView = &check.OwnView{Summary: own}
		var b strings.Builder
		check.WriteComment(&b, base, plan, summary.Pair{}, check.CommentLimit)
		return b.String()
	}
	floors := comment(judged(t, counts(1, 1e9), counts(1, 1.0536e9)))
	if !ownViewSays(floors, "Its own tools would say: no regression — deciding nothing.\n", true) || ownViewSays(floors, "Its own tools would say: 1 regressed (havlak6cc ", false) {
		t.Errorf("floors of 100%%:\n%s", floors)
	}
	scaled := comment(judged(t, counts(0.01, 0.9e9), counts(0.01, 0.9*1.0536e9)))
	if !ownViewSays(scaled, "Its own tools would say: 1 regressed (havlak6cc ", false) || ownViewSays(scaled, "Its own tools would say: no regression — deciding nothing.\n", true) {
		t.Errorf("a runner that scales its counts:\n%s", scaled)
	}
}
