package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// TestMatchesGNUTime runs the same commands under GNU time -f
// '%Uu %Ss %er %MkB %C' and under xtime, and compares their stderr with the
// numbers masked. xtime adds the signal's name to GNU time's note.
func TestMatchesGNUTime(t *testing.T) {
	const gnuTime = "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		t.Skipf("no GNU time: %v", err)
	}
	t.Parallel()
	numbers := regexp.MustCompile(`(?m)^\d+\.\d\du \d+\.\d\ds \d+\.\d\dr \d+kB `)
	signalName := regexp.MustCompile(`(?m)^(Command terminated by signal \d+) \(SIG[A-Z0-9]+\)$`)
	mask := func(stderr string) string {
		stderr = countersLineRE.ReplaceAllString(stderr, "") // a machine with a PMU: xtime's own line
		stderr = numbers.ReplaceAllString(stderr, "Uu Ss Er MkB ")
		return signalName.ReplaceAllString(stderr, "$1")
	}
	bin := testBinary(t)
	for _, args := range [][]string{
		{"sleep", "10ms"},
		{"sleep", "10ms", "", "a  b", "-n"},
		{"exit", "3"},
		{"kill", "9"},
		{"kill", "15"},
	} {
		argv := append([]string{bin}, args...)
		gnu := exec.Command(gnuTime, append([]string{"-f", "%Uu %Ss %er %MkB %C"}, argv...)...)
		var gnuStderr bytes.Buffer
		gnu.Stderr = &gnuStderr
		gnuErr := gnu.Run()
		gnuStatus := gnu.ProcessState.ExitCode()

		status, _, stderr := xtime(t, "", argv...)
		if mask(stderr) != mask(gnuStderr.String()) || status != gnuStatus {
			t.Errorf("%q:\nGNU time (status %d, %v):\n%s\nxtime (status %d):\n%s", args, gnuStatus, gnuErr, gnuStderr.String(), status, stderr)
		}
	}
}
