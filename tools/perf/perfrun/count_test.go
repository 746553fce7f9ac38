package perfrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStageInputs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"bin/go/prog", "ext/tool"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inputs := filepath.Join(dir, "inputs")
	os.WriteFile(inputs, []byte("go/prog\t"+filepath.Join(dir, "bin/go/prog")+"\n../repo/tool\t"+filepath.Join(dir, "ext/tool")+"\n"), 0o644)
	root, err := StageInputs(inputs, filepath.Join(dir, "stage"))
	if err != nil {
		t.Fatal(err)
	}
	for short, want := range map[string]string{"go/prog": "bin/go/prog", "../repo/tool": "ext/tool"} {
		if got, err := os.ReadFile(filepath.Join(root, short)); err != nil || string(got) != want {
			t.Errorf("%s in the staged tree: %q, %v; want %q", short, got, err, want)
		}
		// A copy: the program's real path is the staged one.
		if info, err := os.Lstat(filepath.Join(root, short)); err != nil || !info.Mode().IsRegular() {
			t.Errorf("%s in the staged tree: %v, %v; want a regular file", short, info, err)
		}
	}
	for _, bad := range []string{"../../etc/passwd", "/etc/passwd", "a/../../b", "..", "no-tab", "./x", "../"} {
		os.WriteFile(inputs, []byte(bad+"\t"+filepath.Join(dir, "ext/tool")+"\n"), 0o644)
		if bad == "no-tab" {
			os.WriteFile(inputs, []byte(bad+"\n"), 0o644)
		}
		_, err := StageInputs(inputs, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), inputs+":1:") {
			t.Errorf("runfiles path %q: %v, want an error naming the file and line", bad, err)
		}
	}
}

func TestCountDirHasOneLength(t *testing.T) {
	a, err := CountDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(a)
	b, err := CountDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(b)
	if a == b || len(a) != len(b) || !strings.HasPrefix(a, "/tmp/havlak-count-") {
		t.Errorf("two count directories %q and %q: want two paths of one length under /tmp/havlak-count-", a, b)
	}
}

func TestCountEnvironmentIsPathAlone(t *testing.T) {
	got := CountEnvironment([]string{"HOME=/root", "PATH=/bin:/usr/bin:/usr/local/bin", "TMPDIR=/sandbox/tmp", "PATHEXT=x"})
	if len(got) != 1 || got[0] != "PATH=/bin:/usr/bin:/usr/local/bin" {
		t.Errorf("CountEnvironment = %q, want PATH alone", got)
	}
}
