package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/ci/stepdir/step"
)

const key = "made-up-key-d41d8cd98f00b204"

// The key reaches stepdir only through the environment: a key among the
// arguments is a usage error, and nothing is written.
func TestKeyComesFromTheEnvironmentOnly(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(step.KeyEnv, "")
	if err := run([]string{"key", dir, key}, new(bytes.Buffer)); cli.Status(err) != 2 {
		t.Errorf("stepdir key DIR KEY: %v, want a usage error", err)
	}
	if err := run([]string{"key", dir}, new(bytes.Buffer)); err == nil {
		t.Errorf("stepdir key DIR without $%s wrote a file", step.KeyEnv)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) > 0 {
		t.Errorf("wrote %v", entries)
	}
	t.Setenv(step.KeyEnv, key)
	var out bytes.Buffer
	if err := run([]string{"key", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), key) {
		t.Errorf("stepdir key printed the key: %q", out.String())
	}
	rc := strings.TrimSpace(out.String())
	if info, err := os.Stat(rc); filepath.Dir(rc) != dir || err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("stepdir key printed %q (%v), want the rc file it wrote into %s, mode 600", rc, err, dir)
	}
}
