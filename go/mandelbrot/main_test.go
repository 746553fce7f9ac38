package main

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/go/mandelbrot/render"
	"havlak-lab/internal/cli"
)

func TestEveryModeWritesTheSameFile(t *testing.T) {
	dir := t.TempDir()
	var want []byte
	for _, m := range render.Modes {
		out := filepath.Join(dir, m.Name+".png")
		if err := run([]string{"-mode", m.Name, "-size", "48", "-iterations", "100", "-workers", "3", "-o", out}, io.Discard); err != nil {
			t.Fatalf("-mode %s: %v", m.Name, err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			img, err := png.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if b := img.Bounds(); b.Dx() != 48 || b.Dy() != 48 {
				t.Errorf("%s is %dx%d, want 48x48", out, b.Dx(), b.Dy())
			}
		} else if !bytes.Equal(got, want) {
			t.Errorf("-mode %s wrote other bytes than -mode %s", m.Name, render.Modes[0].Name)
		}
	}
}

func TestTraceAndProfile(t *testing.T) {
	dir := t.TempDir()
	tr, prof := filepath.Join(dir, "trace.out"), filepath.Join(dir, "cpu.prof")
	args := []string{"-mode", "workers", "-size", "64", "-trace", tr, "-cpuprofile", prof, "-o", filepath.Join(dir, "m.png")}
	if err := run(args, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	// A trace starts with a header naming the Go release that wrote it:
	// "go 1.23 trace\x00\x00\x00" and so on.
	if !bytes.HasPrefix(data, []byte("go 1.")) || len(data) <= 16 {
		t.Errorf("%s (%d bytes) does not look like an execution trace: starts %q", tr, len(data), data[:min(len(data), 16)])
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("CPU profile %s: %v, want a non-empty file", prof, err)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "fast"}, `-mode: unknown mode "fast"; the modes are seq, px, row, workers, workers-buffered`},
		{[]string{"-size", "0"}, "-size=0: must be between 1 and 16384"},
		{[]string{"-iterations", "-5"}, "-iterations=-5: must be between 1 and 1000000"},
		{[]string{"-workers", "0"}, "-workers=0: must be between 1 and 100000"},
		{[]string{"-o", filepath.Join(dir, "no", "m.png")}, "-o: create " + filepath.Join(dir, "no", "m.png")},
		{[]string{"-trace", filepath.Join(dir, "no", "t.out")}, "-trace: open " + filepath.Join(dir, "no", "t.out")},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-size", "big"}, `invalid value "big" for flag -size`},
	} {
		args := append([]string{"-size", "8", "-o", out}, c.args...)
		err := run(args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
		if !errors.As(err, new(cli.UsageError)) {
			t.Errorf("%q: %v is not a usage error (exit status 2)", c.args, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed runs left %d files behind", len(entries))
	}
}
