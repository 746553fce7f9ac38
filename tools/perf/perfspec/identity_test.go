package perfspec

import (
	"os"
	"path/filepath"
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
