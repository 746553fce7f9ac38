package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCountWorkerCheck(t *testing.T) {
	declared := CountWorker{System: "Linux", Kernel: "6.1.0-18-amd64", Machine: "x86_64",
		Libc: "ldd (Debian GLIBC 2.36-9+deb12u4) 2.36", Valgrind: "valgrind-3.19.0"}
	patch := declared
	patch.Kernel = "6.1.0-27-amd64"
	if err := declared.Check(patch); err != nil {
		t.Errorf("another patch level of the same kernel series: %v", err)
	}
	for _, tc := range []struct {
		field  string
		change func(*CountWorker)
	}{
		{"kernel", func(w *CountWorker) { w.Kernel = "6.12.1-amd64" }},
		{"machine", func(w *CountWorker) { w.Machine = "aarch64" }},
		{"libc", func(w *CountWorker) { w.Libc = "ldd (Debian GLIBC 2.41-1) 2.41" }},
		{"valgrind", func(w *CountWorker) { w.Valgrind = "valgrind-3.24.0" }},
		{"system", func(w *CountWorker) { w.System = "FreeBSD" }},
	} {
		here := declared
		tc.change(&here)
		err := declared.Check(here)
		if err == nil || !strings.Contains(err.Error(), tc.field+":") {
			t.Errorf("a worker of another %s: %v, want an error naming it", tc.field, err)
		}
	}
}

func TestReadCountWorker(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `{"system": "Linux", "kernel": "6.1.0-18-amd64", "machine": "x86_64", "libc": "ldd 2.36", "valgrind": "valgrind-3.19.0"}`)
	w, err := ReadCountWorker(good)
	if err != nil || w.Valgrind != "valgrind-3.19.0" || w.Machine != "x86_64" {
		t.Fatalf("ReadCountWorker: %+v, %v", w, err)
	}
	for name, content := range map[string]string{
		"empty.json":   `{"system": "Linux", "kernel": "6.1.0", "machine": "x86_64", "libc": "", "valgrind": "valgrind-3.19.0"}`,
		"missing.json": `{"system": "Linux", "kernel": "6.1.0", "machine": "x86_64", "libc": "ldd 2.36"}`,
		"unknown.json": `{"system": "Linux", "kernel": "6.1.0", "machine": "x86_64", "libc": "ldd 2.36", "valgrind": "v", "cpu": "x"}`,
		"huge.json":    strings.Repeat(" ", maxWorkerBytes+1) + "{}",
	} {
		if _, err := ReadCountWorker(write(name, content)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

func TestCaptureCountWorkerChecksItself(t *testing.T) {
	here := CaptureCountWorker()
	if here.System == "" || here.Kernel == "" || here.Machine == "" {
		t.Fatalf("uname: %+v", here)
	}
	if err := here.Check(CaptureCountWorker()); err != nil {
		t.Error(err)
	}
}
