package perfrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/result"
)

// timed returns the command of the program's timed runs: under xtime,
// with xtime's flags, the program's runtime figures (a Go program's)
// recorded in the file figures unless it is "", pinned and isolated as
// the spec asks (pin.go); and the setup result.json records.
func (p *program) timed(xtimeFlags []string, figures string) (*exec.Cmd, result.Setup) {
	// xtime runs the program by name, so that its report shows the command
	// line a user would type: "havlak6 -iterations=3", not the runfiles path.
	// Timings are not exact: they run the runfiles' copy, by its name.
	cmd := exec.Command(p.xtime, slices.Concat(xtimeFlags, []string{filepath.Base(p.named)}, p.args)...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(p.named)+string(filepath.ListSeparator)+os.Getenv("PATH"))
	if figures != "" {
		cmd.Env = append(cmd.Env, runtimemetrics.EnvVar+"="+figures)
	}
	if p.Profiler == "go" {
		cmd.Env = append(cmd.Env, exactSyscallsGODEBUG(os.Getenv("GODEBUG"))) // syscalls.go
	}
	return cmd, p.isolate(cmd)
}
