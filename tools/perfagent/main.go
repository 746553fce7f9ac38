// Command perfagent prepares a perf agent's machine for quiet
// measurements, once (and again after every reboot: sysfs settings do not
// persist): it sets every CPU's frequency governor to performance, turns
// turbo (boost) off and SMT off, all through sysfs. The benchmarks' runner
// records that state in every result (result.CPUState), and the nightly
// job starts a new baseline when it changes.
//
// Usage:
//
//	tools/bazel run //tools/perfagent -- -dry-run
//	tools/bazel build //tools/perfagent && sudo bazel-bin/tools/perfagent/perfagent_/perfagent
//
// It says, for every file, what it writes there and why, what is already
// as wanted, and what this machine lacks. It needs root, unless -dry-run,
// which writes nothing and prints exactly what it would write.
//
// It cannot be exercised on the lab's VMs, which have no cpufreq and no
// SMT control: its tests run it against fake sysfs trees (-sysfs).
//
// Flags:
//
//	-dry-run        print what would be written, write nothing
//	-sysfs DIR      the sysfs root (default /sys)
//	-governor NAME  the governor to set (default performance)
//
// Exit status: 0 when everything wanted was written or already so (what
// the machine lacks is reported, not an error); 1 when a write failed or
// it is not root without -dry-run; 2 for a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/internal/cli"
)

func main() {
	os.Exit(cli.Report(os.Stderr, "perfagent", run(os.Args[1:], os.Stdout, os.Stderr, os.Geteuid())))
}

// cpuDir is where sysfs describes the CPUs.
const cpuDir = "devices/system/cpu"

// Why each setting helps, for the output.
const (
	whyGovernor = "a fixed, highest frequency: no ramp-up after idle, no frequency change during a run"
	whyTurbo    = "turbo frequencies depend on temperature, power and how many cores are busy, so they vary from run to run"
	whySMT      = "a sibling hardware thread shares the core's caches and pipeline with the benchmark"
)

// A write is one value to write to one sysfs file.
type write struct {
	path, value, now, why string
}

// A plan is what to write, what is already as wanted, and what the
// machine lacks.
type plan struct {
	writes           []write
	already, missing []string
}

// makePlan looks at the sysfs under root.
func makePlan(root, governor string) plan {
	var p plan
	cpu := filepath.Join(root, cpuDir)

	govs, _ := filepath.Glob(filepath.Join(cpu, "cpu[0-9]*", "cpufreq", "scaling_governor"))
	if len(govs) == 0 {
		p.missing = append(p.missing, fmt.Sprintf("governor: no %s: no frequency scaling driver (a VM?)",
			filepath.Join(cpu, "cpu*", "cpufreq", "scaling_governor")))
	}
	for _, path := range govs {
		now, err := readSysfs(path)
		availablePath := filepath.Join(filepath.Dir(path), "scaling_available_governors")
		available, aerr := readSysfs(availablePath)
		switch {
		case err != nil:
			p.missing = append(p.missing, fmt.Sprintf("governor: %v", err))
		case now == governor:
			p.already = append(p.already, fmt.Sprintf("%s is %q", path, now))
		case aerr == nil && !slices.Contains(strings.Fields(available), governor):
			p.missing = append(p.missing, fmt.Sprintf("governor: %s offers %q, not %q", availablePath, available, governor))
		default:
			p.writes = append(p.writes, write{path, governor, now, whyGovernor})
		}
	}

	noTurbo := filepath.Join(cpu, "intel_pstate", "no_turbo")
	boost := filepath.Join(cpu, "cpufreq", "boost")
	if now, err := readSysfs(noTurbo); err == nil {
		p.want(noTurbo, "1", now, whyTurbo) // intel_pstate: 1 is no turbo
	} else if now, err := readSysfs(boost); err == nil {
		p.want(boost, "0", now, whyTurbo) // acpi-cpufreq, amd-pstate: 0 is no boost
	} else {
		p.missing = append(p.missing, fmt.Sprintf("turbo: neither %s nor %s: no turbo control (a VM?)", noTurbo, boost))
	}

	control := filepath.Join(cpu, "smt", "control")
	switch now, err := readSysfs(control); {
	case err != nil:
		p.missing = append(p.missing, fmt.Sprintf("SMT: no %s (a kernel without SMT control)", control))
	case now == "off" || now == "forceoff":
		p.already = append(p.already, fmt.Sprintf("%s is %q", control, now))
	case now == "notsupported" || now == "notimplemented":
		p.missing = append(p.missing, fmt.Sprintf("SMT: %s is %q: no sibling threads the kernel can turn off", control, now))
	default:
		p.writes = append(p.writes, write{control, "off", now, whySMT})
	}
	return p
}

// want adds a write of value to path unless it holds it now.
func (p *plan) want(path, value, now, why string) {
	if now == value {
		p.already = append(p.already, fmt.Sprintf("%s is %q", path, now))
		return
	}
	p.writes = append(p.writes, write{path, value, now, why})
}

// readSysfs reads a one-line sysfs file.
func readSysfs(path string) (string, error) {
	data, err := os.ReadFile(path)
	return strings.TrimSpace(string(data)), err
}

func run(args []string, stdout, stderr io.Writer, euid int) error {
	flags := flag.NewFlagSet("perfagent", flag.ContinueOnError)
	flags.SetOutput(stderr)
	dryRun := flags.Bool("dry-run", false, "print what would be written, write nothing")
	sysfs := flags.String("sysfs", "/sys", "the sysfs root `dir`")
	governor := flags.String("governor", "performance", "the frequency governor to set")
	if help, err := cli.ParseFlags(flags, args); help || err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q", flags.Args())
	}
	if euid != 0 && !*dryRun {
		return errors.New("writing sysfs needs root: run it with sudo, or look first with -dry-run")
	}

	p := makePlan(*sysfs, *governor)
	verb := "write"
	if *dryRun {
		fmt.Fprintln(stdout, "dry run: nothing is written")
		verb = "would write"
	}
	var failed []error
	for _, w := range p.writes {
		fmt.Fprintf(stdout, "%s %q to %s (now %q): %s\n", verb, w.value, w.path, w.now, w.why)
		if *dryRun {
			continue
		}
		// sysfs files exist already; O_TRUNC is what the shell's > does.
		if err := os.WriteFile(w.path, []byte(w.value+"\n"), 0o644); err != nil {
			failed = append(failed, err)
		}
	}
	for _, a := range p.already {
		fmt.Fprintf(stdout, "already: %s\n", a)
	}
	for _, m := range p.missing {
		fmt.Fprintf(stdout, "missing on this machine: %s\n", m)
	}
	return errors.Join(failed...)
}
