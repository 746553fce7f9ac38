package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/go/wordcount/textgen"
	"havlak-lab/internal/cli"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"123", 123}, {"123B", 123}, {"30MB", 30_000_000}, {"2kB", 2000}, {"2KB", 2000},
		{"1GB", 1e9}, {"1KiB", 1024}, {"3MiB", 3 << 20}, {"1GiB", 1 << 30}, {"64GiB", 64 << 30},
	} {
		got, err := parseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "MB", "-1", "+1", "1.5MB", "1 MB", "30mb", "1TB", "65GiB", "99999999999999999999"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "words.txt")
	if err := run([]string{"-size", "2MiB", "-seed", "3", "-o", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := textgen.Bytes(textgen.Options{Size: 2 << 20, Seed: 3})
	if !bytes.Equal(got, want) {
		t.Errorf("file differs from textgen's text (%d bytes, want %d)", len(got), len(want))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the text", len(entries))
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-size", "10"}, "-o is required"},
		{[]string{"-size", "lots", "-o", filepath.Join(dir, "x")}, "-size=lots: want a whole number"},
		{[]string{"-o", filepath.Join(dir, "no", "x")}, "-o: create " + filepath.Join(dir, "no", "x") + ": no such file"},
		{[]string{"-o", filepath.Join(dir, "x"), "extra"}, `unexpected argument "extra"`},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
	} {
		err := run(c.args, io.Discard)
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
