package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
)

// fakeSysfs makes a sysfs root holding files (paths under
// devices/system/cpu) with their contents. perfagent cannot be exercised
// on the lab's VMs, which have none of these files.
func fakeSysfs(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, cpuDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// contents reads back the fake files.
func contents(t *testing.T, root string, files map[string]string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for name := range files {
		data, err := os.ReadFile(filepath.Join(root, cpuDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = strings.TrimSpace(string(data))
	}
	return got
}

func perfagent(t *testing.T, euid int, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(args, &stdout, &stderr, euid)
	t.Logf("perfagent %q (euid %d): %v\n%s%s", args, euid, err, stdout.String(), stderr.String())
	return stdout.String(), err
}

var intel = map[string]string{
	"cpu0/cpufreq/scaling_governor":            "powersave",
	"cpu0/cpufreq/scaling_available_governors": "performance powersave",
	"cpu1/cpufreq/scaling_governor":            "performance",
	"cpu1/cpufreq/scaling_available_governors": "performance powersave",
	"intel_pstate/no_turbo":                    "0",
	"smt/control":                              "on",
}

func TestDryRun(t *testing.T) {
	root := fakeSysfs(t, intel)
	cpu := filepath.Join(root, cpuDir)
	out, err := perfagent(t, 1000, "-dry-run", "-sysfs", root) // no root needed
	if err != nil {
		t.Fatal(err)
	}
	want := "dry run: nothing is written\n" +
		`would write "performance" to ` + cpu + `/cpu0/cpufreq/scaling_governor (now "powersave"): ` + whyGovernor + "\n" +
		`would write "1" to ` + cpu + `/intel_pstate/no_turbo (now "0"): ` + whyTurbo + "\n" +
		`would write "off" to ` + cpu + `/smt/control (now "on"): ` + whySMT + "\n" +
		`already: ` + cpu + `/cpu1/cpufreq/scaling_governor is "performance"` + "\n"
	if out != want {
		t.Errorf("dry run printed\n%s\nwant\n%s", out, want)
	}
	for name, content := range contents(t, root, intel) {
		if content != intel[name] {
			t.Errorf("dry run changed %s to %q", name, content)
		}
	}
}

// What this VM lacks, the dry run says; and so on other machines.
func TestDryRunMissing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"a VM", map[string]string{"cpu0/uevent": "", "smt/control": "notsupported"}, []string{
			"missing on this machine: governor: no " + "ROOT/cpu*/cpufreq/scaling_governor: no frequency scaling driver (a VM?)",
			"missing on this machine: turbo: neither ROOT/intel_pstate/no_turbo nor ROOT/cpufreq/boost: no turbo control (a VM?)",
			`missing on this machine: SMT: ROOT/smt/control is "notsupported": no sibling threads the kernel can turn off`,
		}},
		{"AMD without performance", map[string]string{
			"cpu0/cpufreq/scaling_governor":            "schedutil",
			"cpu0/cpufreq/scaling_available_governors": "schedutil",
			"cpufreq/boost":                            "1",
		}, []string{
			`missing on this machine: governor: ROOT/cpu0/cpufreq/scaling_available_governors offers "schedutil", not "performance"`,
			`would write "0" to ROOT/cpufreq/boost (now "1"): ` + whyTurbo,
			"missing on this machine: SMT: no ROOT/smt/control (a kernel without SMT control)",
		}},
	} {
		root := fakeSysfs(t, tc.files)
		out, err := perfagent(t, 0, "-dry-run", "-sysfs", root)
		out = strings.ReplaceAll(out, filepath.Join(root, cpuDir), "ROOT")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		for _, line := range tc.want {
			if !strings.Contains(out, line+"\n") {
				t.Errorf("%s: no line %q in\n%s", tc.name, line, out)
			}
		}
	}
	// This machine, for the record.
	perfagent(t, 0, "-dry-run")
}

func TestRefusesWithoutRoot(t *testing.T) {
	root := fakeSysfs(t, intel)
	out, err := perfagent(t, 1000, "-sysfs", root)
	if err == nil || cli.Status(err) != 1 || out != "" || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("without root: %q, %v; want a refusal and nothing done", out, err)
	}
	for name, content := range contents(t, root, intel) {
		if content != intel[name] {
			t.Errorf("refused, yet changed %s to %q", name, content)
		}
	}
	if _, err := perfagent(t, 0, "-sysfs", root, "extra"); cli.Status(err) != 2 {
		t.Errorf("an extra argument: %v, want a usage error", err)
	}
}

// As root, against the fake tree: the writes land, and a second run finds
// everything already so.
func TestWrites(t *testing.T) {
	root := fakeSysfs(t, intel)
	if _, err := perfagent(t, 0, "-sysfs", root); err != nil {
		t.Fatal(err)
	}
	got := contents(t, root, intel)
	for name, want := range map[string]string{
		"cpu0/cpufreq/scaling_governor": "performance",
		"cpu1/cpufreq/scaling_governor": "performance",
		"intel_pstate/no_turbo":         "1",
		"smt/control":                   "off",
	} {
		if got[name] != want {
			t.Errorf("%s is %q, want %q", name, got[name], want)
		}
	}
	out, err := perfagent(t, 0, "-dry-run", "-sysfs", root)
	if err != nil || strings.Contains(out, "would write") || strings.Count(out, "already: ") != 4 {
		t.Errorf("after the writes, a dry run says\n%s(%v); want everything already so", out, err)
	}
}
