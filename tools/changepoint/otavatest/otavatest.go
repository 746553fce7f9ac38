// Package otavatest gives tests Apache Otava's command, installed by the
// project's own script (tools/ci/tools.sh: once per cache, $HAVLAK_LAB_CACHE).
package otavatest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Command installs Otava with the tools.sh at script (a runfile under
// Bazel, a file of the checkout under go test: both relative to the test's
// package directory) and returns the path of its command.
func Command(t testing.TB, script string) string {
	t.Helper()
	script, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "otava")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s otava: %v\n%s", script, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("%s otava: %s", script, stderr.String())
	}
	return strings.TrimSpace(string(out))
}
