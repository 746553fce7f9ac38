package perfspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

func TestIdentity(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bin/wc1", "a binary")
	write("data/words.txt", "some words")
	spec := func() *Spec {
		return &Spec{SchemaVersion: SchemaVersion, Common: Common{
			Benchmark: result.Benchmark{Name: "wc1", Kind: result.KindProgram},
			Status:    "STABLE_GIT_COMMIT abc", Binary: "bin/wc1",
			Args: []string{"-in=data/words.txt", "-o={outputs}/x", "-n=3"},
		}, Program: &Program{}}
	}
	identity := func(s *Spec) result.Identity {
		t.Helper()
		id, err := s.Identity(root)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	base := identity(spec())

	other := spec()
	other.Status = "STABLE_GIT_COMMIT def"
	if identity(other) != base {
		t.Error("another commit of the same binary and run changed the identity")
	}
	other.Args = append(other.Args, "-iterations=5")
	if got := identity(other); got.RunSHA256 == base.RunSHA256 || got.BinarySHA256 != base.BinarySHA256 {
		t.Errorf("another argument: %+v, base %+v; want the run's sum changed, the binary's not", got, base)
	}
	write("data/words.txt", "other words")
	if got := identity(spec()); got.RunSHA256 == base.RunSHA256 {
		t.Error("another data file did not change the run's sum")
	}
	write("bin/wc1", "another binary")
	if got := identity(spec()); got.BinarySHA256 == base.BinarySHA256 {
		t.Error("another binary did not change the binary's sum")
	}
	if got, err := spec().IdentityWith(filepath.Join(root, "bin/wc1"), root); err != nil || got != identity(spec()) {
		t.Errorf("IdentityWith the spec's own binary: %+v, %v; want Identity's %+v", got, err, identity(spec()))
	}
	write("elsewhere/wc1", "a binary")
	if got, err := spec().IdentityWith(filepath.Join(root, "elsewhere/wc1"), root); err != nil || got.BinarySHA256 != base.BinarySHA256 || got.RunSHA256 != identity(spec()).RunSHA256 {
		t.Errorf("IdentityWith another path of the first binary: %+v, %v; want its sum %s", got, err, base.BinarySHA256)
	}
	missing := spec()
	missing.Binary = "bin/gone"
	if _, err := missing.Identity(root); err == nil {
		t.Error("a missing binary has an identity")
	}
}

func TestLabSHA256(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) string {
		t.Helper()
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	runner := write("lab/runner", "a runner")
	write("lab/xtime", "an xtime")
	write("bin/wc1", "a binary")
	program := &Spec{SchemaVersion: SchemaVersion, Common: Common{
		Benchmark: result.Benchmark{Name: "wc1", Kind: result.KindProgram}, Binary: "bin/wc1",
	}, Program: &Program{XTime: "lab/xtime"}}
	goTest := &Spec{SchemaVersion: SchemaVersion, Common: Common{
		Benchmark: result.Benchmark{Name: "gotest", Kind: result.KindGoTest}, Binary: "bin/wc1",
	}, GoTest: &GoTest{}}
	lab := func(s *Spec) string {
		t.Helper()
		sum, err := s.LabSHA256(runner, root)
		if err != nil {
			t.Fatal(err)
		}
		if !result.IsSHA256(sum) {
			t.Fatalf("LabSHA256 = %q, not a sha256", sum)
		}
		return sum
	}
	base, baseGo := lab(program), lab(goTest)
	if base == baseGo {
		t.Error("a program's lab (runner and xtime) is a go_test's (runner alone)")
	}
	write("bin/wc1", "another binary")
	if lab(program) != base {
		t.Error("another binary moved the lab's version: it is the identity's binary_sha256, not the lab's")
	}
	write("lab/xtime", "another xtime")
	if lab(program) == base || lab(goTest) != baseGo {
		t.Error("another xtime: want a program's lab version moved, a go_test's not (it runs no xtime)")
	}
	xtimeMoved := lab(program)
	write("lab/runner", "another runner")
	if lab(program) == xtimeMoved || lab(goTest) == baseGo {
		t.Error("another runner did not move the lab's version")
	}
	if _, err := program.LabSHA256(filepath.Join(root, "no-runner"), root); err == nil || !strings.Contains(err.Error(), "wc1") {
		t.Errorf("no runner: %v, want an error naming the benchmark", err)
	}
}
