package perfrun

import (
	"os"
	"path/filepath"
	"testing"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// The result a runner writes records the lab's version that measured it:
// this runner's own binary (here the test's) and the spec's xtime.
func TestResultRecordsTheLabsVersion(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	for name, data := range map[string]string{"bin/prog": "a program", "tools/xtime": "an xtime"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec := &perfspec.Spec{SchemaVersion: perfspec.SchemaVersion, Common: perfspec.Common{
		Benchmark: result.Benchmark{Name: "prog", Kind: result.KindProgram, Study: "A study", Stage: 1, Language: "Go",
			Workload: result.Workload{Name: result.WorkloadQuick}, Repetitions: 1},
		Binary: "bin/prog",
	}, Program: &perfspec.Program{XTime: "tools/xtime"}}
	b := &bench{Spec: spec, out: out}
	b.rootAt(root)
	r, err := b.writeResult(&result.Result{Environment: result.Environment{Build: result.Build{Config: result.ConfigCounts}}})
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, err := spec.LabSHA256(self, root)
	if err != nil {
		t.Fatal(err)
	}
	read, _, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Identity == nil || read.Identity == nil || read.Identity.LabSHA256 != want || read.Lacks() != nil {
		t.Errorf("result.json's identity %+v, lacks %q; want lab_sha256 %s", read.Identity, read.Lacks(), want)
	}
}
