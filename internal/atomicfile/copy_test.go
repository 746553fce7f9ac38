package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "from")
	if err := os.WriteFile(from, []byte("twelve bytes"), 0o755); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, "a", "b", "to")
	if err := CopyFile(from, to, 0, 0); err != nil {
		t.Fatal(err)
	}
	assertWritten(t, to, "twelve bytes", 0o755)
	assertOnly(t, filepath.Join(dir, "a", "b"), "to")

	if err := CopyFile(from, to, 0o640, 12); err != nil {
		t.Fatal(err)
	}
	assertWritten(t, to, "twelve bytes", 0o640)
}

func TestCopyFileRefuses(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "from")
	if err := os.WriteFile(from, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, "to")
	if err := os.WriteFile(to, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var big *TooLargeError
	if err := CopyFile(from, to, 0, 11); !errors.As(err, &big) || big.Size != 12 || big.Limit != 11 || big.Path != from {
		t.Errorf("a file of 12 bytes, limit 11: %v, want a TooLargeError naming it", err)
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip(err)
	}
	if err := CopyFile(pipe, to, 0, 0); err == nil {
		t.Error("a named pipe copied, want it refused")
	}
	if err := CopyFile(dir, to, 0, 0); err == nil {
		t.Error("a directory copied, want it refused")
	}
	assertWritten(t, to, "old", 0o644)
	assertOnly(t, dir, "from", "pipe", "to")
}
