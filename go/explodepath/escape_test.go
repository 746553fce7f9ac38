package explodepath

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestEscapeAnalysis runs escape.sh, which reads the compiler's -m report
// for wc3's counting loop and for Presized. It needs the go command and the
// module's sources, so it runs under plain `go test` (which puts its own go
// first on the PATH) and skips under Bazel, where the AllocsPerRun tests
// guard the same decisions by their effect.
func TestEscapeAnalysis(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("under Bazel: no go command or module here; TestAllocs and wc3's TestNoAllocs guard allocations")
	}
	if testing.Short() {
		t.Skip("-short: skipping a nested go build")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to ask for the compiler's -m report: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to run escape.sh: %v", err)
	}
	script, err := filepath.Abs("escape.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, script)
	cmd.Env = append(os.Environ(), "GO="+goCmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}
