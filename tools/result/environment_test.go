package result

import (
	"slices"
	"testing"
)

// fields names the fields of diffs.
func fields(diffs []Difference) []string {
	var names []string
	for _, d := range diffs {
		names = append(names, d.Field)
	}
	return names
}

// Another machine of the same system leaves exact counts comparable, not
// timings; another toolchain, libc or Valgrind leaves neither.
func TestDifferencesFor(t *testing.T) {
	base := example().Environment
	base.Toolchains.Libc, base.Toolchains.Valgrind = "ldd (Debian GLIBC 2.36-9+deb12u4) 2.36", "valgrind-3.19.0"
	base.Machine.Kernel, base.Machine.CPUModel, base.Machine.CPUState.Turbo = "6.1.0-18-amd64", "Intel(R) Xeon(R) CPU @ 2.20GHz", "on"
	for _, c := range []struct {
		name        string
		edit        func(e *Environment)
		count, time []string // the fields each finds different
	}{
		{"another CPU model", func(e *Environment) { e.Machine.CPUModel = "AMD EPYC 9654" }, nil, []string{"machine.cpu_model"}},
		{"more cores", func(e *Environment) { e.Machine.Cores = 64 }, nil, []string{"machine.cores"}},
		{"another machine, the same system", func(e *Environment) {
			e.Machine.Hostname, e.Machine.MemoryBytes, e.Machine.CPUState.Turbo = "perf-2", 1<<40, "off"
		}, nil, []string{"machine.hostname", "machine.memory_bytes", "machine.cpu_state.turbo"}},
		{"a kernel patch", func(e *Environment) { e.Machine.Kernel = "6.1.0-21-amd64" }, nil, []string{"machine.kernel"}},
		{"a kernel series", func(e *Environment) { e.Machine.Kernel = "6.12.9-amd64" }, []string{"machine.kernel"}, []string{"machine.kernel"}},
		{"another Go SDK", func(e *Environment) { e.Toolchains.Go = "go1.28" }, []string{"toolchains.go"}, []string{"toolchains.go"}},
		{"another gcc", func(e *Environment) { e.Toolchains.GCC = "gcc 13" }, []string{"toolchains.gcc"}, []string{"toolchains.gcc"}},
		{"another compilation mode", func(e *Environment) { e.Build.CompilationMode = "dbg" },
			[]string{"build.compilation_mode"}, []string{"build.compilation_mode"}},
		// Recorded for counts; for timings the machine stands for them.
		{"another Valgrind", func(e *Environment) { e.Toolchains.Valgrind = "valgrind-3.24.0" }, []string{"toolchains.valgrind"}, nil},
		{"another libc", func(e *Environment) { e.Toolchains.Libc = "ldd (GNU libc) 2.41" }, []string{"toolchains.libc"}, nil},
		// A result from before libc and Valgrind were recorded: the
		// machine stands for them.
		{"another machine, libc unknown", func(e *Environment) { e.Machine.Hostname, e.Toolchains.Libc = "perf-2", "" },
			[]string{"machine.hostname"}, []string{"machine.hostname"}},
		{"the same machine, libc unknown", func(e *Environment) { e.Toolchains.Libc = "" }, nil, nil},
		{"what a comparison is about", func(e *Environment) {
			e.Source.Commit, e.Started, e.Build.Config, e.Setup.ASLROff = "abc", "later", ConfigPerf, true
		}, nil, nil},
	} {
		moved := base
		c.edit(&moved)
		if got := fields(DifferencesFor(base, moved, true)); !slices.Equal(got, c.count) {
			t.Errorf("%s: exact counts differ in %v, want %v", c.name, got, c.count)
		}
		if got := fields(DifferencesFor(base, moved, false)); !slices.Equal(got, c.time) {
			t.Errorf("%s: timings differ in %v, want %v", c.name, got, c.time)
		}
		if got, want := fields(DifferencesFor(base, moved, false)), fields(Differences(base, moved)); !slices.Equal(got, want) {
			t.Errorf("%s: timings differ in %v, Differences in %v", c.name, got, want)
		}
	}
}

func TestKernelSeries(t *testing.T) {
	for release, want := range map[string]string{
		"6.1.0-18-amd64": "6.1",
		"6.1.76":         "6.1",
		"5.15":           "5.15",
		"6":              "6",
		"custom-6.1":     "custom-6.1",
		".1":             ".1",
		"":               "",
	} {
		if got := kernelSeries(release); got != want {
			t.Errorf("kernelSeries(%q) = %q, want %q", release, got, want)
		}
	}
}
