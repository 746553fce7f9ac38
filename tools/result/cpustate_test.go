package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSysfs makes a sysfs root holding files (paths under
// devices/system/cpu) with their contents.
func fakeSysfs(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, CPUDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCaptureCPUState(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  CPUState
	}{
		{"tuned Intel", map[string]string{
			"cpu0/cpufreq/scaling_governor": "performance\n",
			"cpu1/cpufreq/scaling_governor": "performance\n",
			"intel_pstate/no_turbo":         "1\n",
			"cpufreq/boost":                 "1\n", // intel_pstate's word wins
			"smt/control":                   "off\n",
		}, CPUState{Governor: "performance", Turbo: "off", SMT: "off"}},
		{"untuned AMD", map[string]string{
			"cpu0/cpufreq/scaling_governor":  "schedutil\n",
			"cpu11/cpufreq/scaling_governor": "performance\n",
			"cpu2/cpufreq/scaling_governor":  "schedutil\n",
			"cpufreq/boost":                  "1\n",
			"smt/control":                    "on\n",
		}, CPUState{Governor: "performance,schedutil", Turbo: "on", SMT: "on"}},
		{"a VM", map[string]string{
			"cpu0/uevent":   "",
			"smt/control":   "notsupported\n",
			"cpufreq/.keep": "",
		}, CPUState{SMT: "notsupported"}},
	} {
		got := CaptureCPUState(fakeSysfs(t, tc.files))
		if got.Governor != tc.want.Governor || got.Turbo != tc.want.Turbo || got.SMT != tc.want.SMT {
			t.Errorf("%s: CaptureCPUState = %+v, want %+v", tc.name, got, tc.want)
		}
		for _, f := range []struct{ value, note, what string }{
			{got.Governor, got.GovernorNote, "scaling_governor"},
			{got.Turbo, got.TurboNote, "boost"},
			{got.SMT, got.SMTNote, "smt/control"},
		} {
			if (f.value == "") != (f.note != "") || (f.note != "" && !strings.Contains(f.note, f.what)) {
				t.Errorf("%s: value %q, note %q: want a note naming %s exactly when there is no value", tc.name, f.value, f.note, f.what)
			}
		}
	}
	t.Logf("this machine: %+v", CaptureCPUState("/sys"))
}

func TestDifferencesCPUState(t *testing.T) {
	old := example().Environment
	old.Machine.CPUState = CPUState{Governor: "performance", Turbo: "off", SMT: "off"}
	changed := old
	changed.Machine.CPUState = CPUState{Governor: "powersave", Turbo: "on", SMT: "on"}
	d := Differences(old, changed)
	if len(d) != 3 || d[0].String() != `machine.cpu_state.governor: "performance" → "powersave"` ||
		d[1].Field != "machine.cpu_state.turbo" || d[2].Field != "machine.cpu_state.smt" {
		t.Errorf("Differences = %v, want governor, turbo and SMT", d)
	}
	// A result from before the fields existed compares with any state.
	older := example().Environment
	if d := Differences(older, changed); len(d) != 0 {
		t.Errorf("Differences from a result without cpu_state = %v, want none", d)
	}
	// A machine that does not say, twice, is no change.
	vm := old
	vm.Machine.CPUState = CPUState{GovernorNote: "no cpufreq", TurboNote: "none", SMT: "notsupported"}
	if d := Differences(vm, vm); len(d) != 0 {
		t.Errorf("Differences of a VM with itself = %v", d)
	}
	// Pinning and ASLR are how the runs were made, not the machine.
	pinned := old
	cpu := 1
	pinned.Setup = Setup{PinnedCPU: &cpu, ASLROff: true}
	if d := Differences(old, pinned); len(d) != 0 {
		t.Errorf("Differences with pinning = %v, want none", d)
	}
}

func TestEnvironmentKey(t *testing.T) {
	base := example().Environment
	base.Machine.CPUState = CPUState{GovernorNote: "no cpufreq", TurboNote: "none", SMT: "notsupported"}
	key := EnvironmentKey(base)
	if len(key) != 16 {
		t.Fatalf("EnvironmentKey = %q, want 16 hex digits", key)
	}
	// What a comparison is about does not change the key.
	same := base
	same.Source.Commit, same.Source.Dirty, same.Started, same.Build.Config = "abc", false, "later", ConfigPerf
	cpu := 1
	same.Setup = Setup{PinnedCPU: &cpu}
	if got := EnvironmentKey(same); got != key {
		t.Errorf("key of the same environment at another commit = %s, want %s", got, key)
	}
	// Every field Differences compares changes it.
	for _, edit := range []func(e *Environment){
		func(e *Environment) { e.Machine.Hostname = "perf-2" },
		func(e *Environment) { e.Machine.Kernel = "6.1" },
		func(e *Environment) { e.Machine.Cores = 8 },
		func(e *Environment) { e.Machine.MemoryBytes = 1 << 30 },
		func(e *Environment) { e.Machine.CPUState.Governor = "performance" },
		func(e *Environment) { e.Machine.CPUState.SMT = "off" },
		func(e *Environment) { e.Toolchains.Go = "go1.28" },
		func(e *Environment) { e.Toolchains.GCC = "gcc 13" },
		func(e *Environment) { e.Build.CompilationMode = "dbg" },
	} {
		moved := base
		edit(&moved)
		if len(Differences(base, moved)) != 1 {
			t.Fatalf("edit %+v: Differences %v, want one", moved, Differences(base, moved))
		}
		if EnvironmentKey(moved) == key {
			t.Errorf("environment %+v keys like %+v", moved, base)
		}
	}
}
