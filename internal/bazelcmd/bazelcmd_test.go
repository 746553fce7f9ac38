package bazelcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	lab := t.TempDir()
	wrapper := filepath.Join(lab, "tools", "bazel")
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notRunnable := t.TempDir()
	if err := os.MkdirAll(filepath.Join(notRunnable, "tools", "bazel"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, want string
	}{
		{"a workspace with its own wrapper", lab, wrapper},
		{"a workspace without one", t.TempDir(), "bazel"},
		{"tools/bazel a directory", notRunnable, "bazel"},
	} {
		if got := Path(c.dir); got != c.want {
			t.Errorf("%s: Path = %q, want %q", c.name, got, c.want)
		}
	}
	if cmd := Command(lab, "info", "output_base"); cmd.Path != wrapper || cmd.Dir != lab || len(cmd.Args) != 3 || cmd.Args[1] != "info" {
		t.Errorf("Command: path %q, dir %q, args %q", cmd.Path, cmd.Dir, cmd.Args)
	}
}

func TestRunner(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(dir, filepath.FromSlash(Wrapper))
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"out $* in $(pwd)\"\necho err >&2\nexit 3\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, log bytes.Buffer
	err := Runner(dir, &log)(&stdout, "info", "output_base")
	if want := "out info output_base in " + dir + "\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
	if log.String() != "err\n" {
		t.Errorf("log = %q, want Bazel's standard error", log.String())
	}
	if err == nil {
		t.Error("a failed Bazel command returned no error")
	}
}
