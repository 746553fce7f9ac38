package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
)

// history alerts lists the alerts as a table and changes their states,
// refusing unknown alerts, states and flags clearly: 2 for usage, 1 for
// what the history refuses.
func TestAlerts(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	d, err := history.Create(ctx, dsn, history.Shared)
	if err != nil {
		t.Fatal(err)
	}
	night := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	series := alert.Series{Benchmark: "havlak6", Figure: "own_instructions", Unit: "instructions", Workload: "standard", EnvKey: "e1"}
	_, err = d.RecordAlerts(ctx, alert.Night{Time: night, Commit: "9b8e7d6c5a4f", By: "nightly"}, []alert.Finding{
		{Kind: alert.Regression, Series: series, Size: 0.031, Before: 169025503, After: 174265294,
			Range: alert.Range{From: "3f2a9c1e0712", To: "9b8e7d6c5a4f", FromTime: night.AddDate(0, 0, -1), ToTime: night}},
		{Kind: alert.Missing, Series: alert.Series{Benchmark: "havlak7", Workload: "standard", EnvKey: "e1"}, LastPoint: night.AddDate(0, 0, -1)},
	}, nil)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("USER", "ann")

	out, errs, status := runHistory(t, "alerts", dsn)
	for _, want := range []string{"ID  STATE  KIND        SERIES", "2   new    missing     havlak7 (standard)",
		"1   new    regression  havlak6 own_instructions (standard)  +3.10% (169,025,503 → 174,265,294 instructions)  3f2a9c1e0712..9b8e7d6c5a4f"} {
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("alerts DSN: exit status %d, want 0 and a row %q:\n%s%s", status, want, out, errs)
		}
	}
	for _, c := range []struct {
		args   []string
		status int
		says   string
	}{
		{[]string{"alerts", dsn, "ack", "1"}, 2, "alerts ack needs --note TEXT or --issue URL"},
		{[]string{"alerts", dsn, "ack", "x1", "--note", "n"}, 2, `alert ID "x1": want a number`},
		{[]string{"alerts", dsn, "close", "1"}, 2, `unknown action "close": want list, show, ack, accept, ignore, fix, reopen`},
		{[]string{"alerts", dsn, "--state", "open"}, 2, `--state: state "open": want one of new, acknowledged, accepted, ignored, fixed`},
		{[]string{"alerts", dsn, "ignore", "1"}, 2, "alerts ignore needs --reason TEXT"},
		{[]string{"alerts", dsn, "ack", "1", "--reason", "r"}, 2, "alerts ack takes --note TEXT, not --reason TEXT"},
		{[]string{"alerts", dsn, "ack", "7", "--note", "n"}, 1, "alert 7: no such alert"},
		{[]string{"alerts", dsn, "accept", "2", "--reason", "gone"}, 1, "only a change of level (regression, change point) is accepted"},
		{[]string{"alerts", dsn, "reopen", "1"}, 1, "alert 1 (regression havlak6 own_instructions (standard), new): not allowed in its state"},
		{[]string{"alerts", dsn, "ack", "1", "--issue", "file:///etc/passwd"}, 1, "want the issue's http(s) link"},
		{[]string{"alerts", dsn, "ack", "1", "--issue", "https://example.com/issues/123"}, 0, "alert 1 is acknowledged: regression havlak6 own_instructions (standard)"},
	} {
		out, errs, status := runHistory(t, c.args...)
		if status != c.status || !strings.Contains(out+errs, c.says) {
			t.Errorf("%s: exit status %d, want %d and %q:\n%s%s", strings.Join(c.args[2:], " "), status, c.status, c.says, out, errs)
		}
	}
	out, _, _ = runHistory(t, "alerts", dsn, "list", "--state", "acknowledged")
	if !strings.Contains(out, "1   acknowledged  regression") || !strings.Contains(out, "https://example.com/issues/123 (ann, ") ||
		strings.Contains(out, "havlak7") {
		t.Errorf("--state acknowledged:\n%s", out)
	}
	out, _, status = runHistory(t, "alerts", dsn, "show", "1")
	if status != 0 || !strings.Contains(out, "acknowledged by ann https://example.com/issues/123") || !strings.Contains(out, "new          by nightly") {
		t.Errorf("show 1: exit status %d:\n%s", status, out)
	}
	// Assigned from the command line as from the dashboard, recorded by
	// who did it; a bad ID or a missing assignee is bad usage.
	for _, c := range []struct {
		args   []string
		status int
		says   string
	}{
		{[]string{"alerts", dsn, "assign", "1"}, 2, "alerts assign wants one alert ID and the assignee"},
		{[]string{"alerts", dsn, "assign", "x", "bob"}, 2, `alert ID "x": want a number`},
		{[]string{"alerts", dsn, "assign", "7", "bob"}, 1, "alert 7: no such alert"},
		{[]string{"alerts", dsn, "assign", "1", "bob"}, 0, "alert 1 is assigned to bob: regression havlak6 own_instructions (standard)"},
		{[]string{"alerts", dsn, "assign", "1", "bob\x1b[31m"}, 1, "alert 1"},
	} {
		out, errs, status := runHistory(t, c.args...)
		if status != c.status || !strings.Contains(out+errs, c.says) {
			t.Errorf("%s: exit status %d, want %d and %q:\n%s%s", strings.Join(c.args[2:], " "), status, c.status, c.says, out, errs)
		}
	}
	if out, _, _ := runHistory(t, "alerts", dsn, "show", "1"); !strings.Contains(out, "bob") || !strings.Contains(out, "ann") {
		t.Errorf("show 1 after the assignment:\n%s", out)
	}
	if out, _, _ := runHistory(t, "alerts", dsn, "assign", "1", "", "--by", "carl"); !strings.Contains(out, "alert 1 is assigned to nobody") {
		t.Errorf("assign 1 to nobody: %s", out)
	}
	if out, _, _ := runHistory(t, "alerts", dsn, "fix", "1", "--note", "reverted in 4d5e6f"); !strings.Contains(out, "alert 1 is fixed") {
		t.Errorf("fix 1: %s", out)
	}
	if out, _, _ := runHistory(t, "alerts", dsn); strings.Contains(out, "havlak6") {
		t.Errorf("a fixed alert is listed without --all:\n%s", out)
	}
	if out, _, _ := runHistory(t, "alerts", dsn, "--all"); !strings.Contains(out, "fixed") {
		t.Errorf("--all does not list the fixed alert:\n%s", out)
	}
}

// The help is made from tools/alert's rules and tools/exports' registry:
// each action a line with the words it takes, every state and kind, every
// export format.
func TestHelpFromTheRegistries(t *testing.T) {
	_, errs, status := runHistory(t, "alerts", "-h")
	for _, want := range []string{
		"history alerts DSN ack ID (--note TEXT | --issue URL) [--by NAME]",
		"history alerts DSN accept ID --reason TEXT [--by NAME]",
		"history alerts DSN reopen ID [--note TEXT] [--by NAME]",
		"States: new, acknowledged, accepted, ignored, fixed (docs/triage.md).",
		"regression, change_point, missing, stale, environment_change",
		"the issue that tracks it (ack)", "(accept, ignore): TEXT",
	} {
		if status != 0 || !strings.Contains(errs, want) {
			t.Errorf("history alerts -h: exit status %d, want 0 and %q in:\n%s", status, want, errs)
		}
	}
	_, errs, status = runHistory(t, "export", "-h")
	for _, want := range []string{"history export DSN --format gobench|bmf|gab|gab-bigger|openmetrics ",
		"history alerts DSN [list|show|ack|accept|ignore|fix|reopen ...]"} {
		if status != 0 || !strings.Contains(errs, want) {
			t.Errorf("history export -h: exit status %d, want 0 and %q in:\n%s", status, want, errs)
		}
	}
}
