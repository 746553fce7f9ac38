package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/xtime/measure"
)

// countersLineRE matches the line of counts xtime prints after a run's.
var countersLineRE = regexp.MustCompile(`(?m)^[a-z-]+:u \d+( [a-z-]+:u \d+)*( \(scaled[^)]*\))?\n`)

// TestDefaultCounters runs xtime with its default, hardware counters. On a
// machine without a PMU (the lab's VMs) that is the degrade path: the
// same exit status and lines as without counting, and every run of the
// record says why there are no counts; on one with a PMU, every run has
// its counts.
func TestDefaultCounters(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	evs, _ := measure.ParseCounters(measure.DefaultCounters)
	unavailable := measure.Unavailable(evs)
	t.Logf("hardware counters on this machine: %q", unavailable)

	dir := t.TempDir()
	path, marker := filepath.Join(dir, "r.json"), filepath.Join(dir, "ran")
	status, _, stderr := xtime(t, "", "-n", "3", "-json", path, bin, "fail-again", marker)
	os.Remove(marker)
	_, _, plain := xtime(t, "", "-n", "3", "-counters", "", bin, "fail-again", marker)
	if status != 7 {
		t.Errorf("status %d, want the command's, 7", status)
	}
	rec := readReport(t, path)
	if len(rec.Runs) != 2 {
		t.Fatalf("%d runs recorded, want 2", len(rec.Runs))
	}
	if unavailable != "" {
		mask := regexp.MustCompile(`\d+\.\d\du \d+\.\d\ds \d+\.\d\dr \d+kB`)
		if a, b := mask.ReplaceAllString(stderr, "x"), mask.ReplaceAllString(plain, "x"); a != b {
			t.Errorf("stderr with counters unavailable:\n%s\nwithout counting:\n%s", a, b)
		}
		for i, run := range rec.Runs {
			if run.CountersUnavailable != unavailable || run.Counters != nil {
				t.Errorf("run %d: counters %v, counters_unavailable %q; want none and %q", i, run.Counters, run.CountersUnavailable, unavailable)
			}
		}
		if !strings.HasPrefix(unavailable, "perf_event_open instructions:u: E") {
			t.Errorf("reason %q: want perf_event_open's errno", unavailable)
		}
		return
	}
	if got := len(countersLineRE.FindAllString(stderr, -1)); got != 2 {
		t.Errorf("%d lines of counters, want one per run, 2", got)
	}
	for i, run := range rec.Runs {
		if run.CountersUnavailable != "" || run.Counters["instructions:u"] <= 0 || len(run.Counters) != 4 {
			t.Errorf("run %d: counters %v, counters_unavailable %q", i, run.Counters, run.CountersUnavailable)
		}
	}
}

// pageFaults runs the helper with args under xtime -counters page-faults:u
// and returns the page faults counted. The software event goes through the
// same machinery as the hardware ones, but works on any machine.
func pageFaults(t *testing.T, args ...string) int64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	status, _, stderr := xtime(t, "", append([]string{"-counters", "page-faults:u", "-json", path, testBinary(t)}, args...)...)
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	run := readReport(t, path).Runs[0]
	if run.CountersUnavailable != "" {
		t.Skipf("page-faults:u cannot be counted here: %s", run.CountersUnavailable)
	}
	n := run.Counters["page-faults:u"]
	if want := "page-faults:u " + strconv.FormatInt(n, 10) + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q", want)
	}
	return n
}

// The counters count the command, its threads and its children, all of
// them: a program that touches N pages shows at least N page faults.
func TestCountsPageFaults(t *testing.T) {
	t.Parallel()
	const n = 5000
	base := pageFaults(t, "exit", "0")
	t.Logf("page-faults:u of the helper doing nothing: %d", base)
	if base >= n {
		t.Fatalf("the helper alone makes %d page faults; the test needs fewer than %d", base, n)
	}
	for _, args := range [][]string{
		{"touch-pages", "5000"},
		{"touch-pages-thread", "5000"},            // another thread
		{"spawn", "touch-pages", "5000"},          // a child process
		{"spawn", "spawn", "touch-pages", "5000"}, // a grandchild
	} {
		got := pageFaults(t, args...)
		t.Logf("page-faults:u of %q: %d", args, got)
		if got < n {
			t.Errorf("%q: %d page faults counted, want at least %d", args, got, n)
		}
	}
}

// Counting does not change what the command sees or does: its exit
// status, its death by a signal, its standard streams.
func TestCountingIsTransparent(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	numbers := regexp.MustCompile(`\d+\.\d\du \d+\.\d\ds \d+\.\d\dr \d+kB`)
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"exit", "5"}},
		{"", []string{"kill", "9"}},
		{"", []string{"kill", "15"}},
		{"", []string{"spawn", "exit", "0"}},
		{"hello\nworld\n", []string{"cat"}},
		{"hello\n", []string{"spawn", "cat"}},
	} {
		argv := append([]string{bin}, tc.args...)
		status, stdout, stderr := xtime(t, tc.stdin, append([]string{"-counters", "page-faults:u"}, argv...)...)
		plainStatus, plainStdout, plainStderr := xtime(t, tc.stdin, append([]string{"-counters", ""}, argv...)...)
		if !countersLineRE.MatchString(stderr) {
			t.Errorf("%q: no line of counts in\n%s", tc.args, stderr)
		}
		stderr = numbers.ReplaceAllString(countersLineRE.ReplaceAllString(stderr, ""), "x")
		plainStderr = numbers.ReplaceAllString(plainStderr, "x")
		if status != plainStatus || stdout != plainStdout || stderr != plainStderr {
			t.Errorf("%q counted: status %d, stdout %q, stderr %q\nnot counted: %d, %q, %q",
				tc.args, status, stdout, stderr, plainStatus, plainStdout, plainStderr)
		}
	}
}
