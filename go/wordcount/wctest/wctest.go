// Package wctest checks the wordcount stages: it holds the inputs they are
// tested on, runs the real `wc -w` on each in the C locale for the expected
// count, and checks each stage's command line the same way.
package wctest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"havlak-lab/go/wordcount/textgen"
	"havlak-lab/go/wordcount/wcmain"
	"havlak-lab/internal/cli"
)

// A Case is one test input.
type Case struct {
	Name string
	Data []byte
}

// Block is the buffer size the Straddle case is built around: 64 KiB, the
// size of wc3's buffer, and a multiple of bufio's default 4 KiB.
const Block = 64 << 10

// Cases returns the inputs every stage is tested on.
func Cases() []Case {
	utf8 := textgen.Bytes(textgen.Options{Size: 300_000, Seed: 12})
	utf8 = append(utf8, "\ncafé naïve 日本語 a\u00a0b c\u2003d \u00a0 \xff\xfe \x80abc 😀x\n"...)

	longLine := textgen.Bytes(textgen.Options{Size: 3 << 20, Seed: 13, ASCII: true})
	for i, c := range longLine {
		if c == '\n' || c == '\r' {
			longLine[i] = ' '
		}
	}

	var whitespace []byte
	for i := 0; i < 2000; i++ { // runs of 1 to 4 of each kind
		whitespace = append(whitespace, bytes.Repeat([]byte{" \t\n\v\f\r"[i%6]}, 1+i%4)...)
	}

	// Every byte value on its own, at the start of a word, inside one and
	// at its end.
	var allBytes []byte
	for b := 0; b < 256; b++ {
		c := byte(b)
		allBytes = append(allBytes, c, ' ', c, 'a', ' ', 'a', c, 'b', ' ', 'a', c, '\n', c, c, '\t')
	}

	exactBlock := bytes.Repeat([]byte("block "), Block/6+1)[:Block]
	exactBlock[Block-1] = 'w' // ends in a word
	twoBlocks := append(bytes.Clone(exactBlock), bytes.Repeat([]byte("ab"), Block/2)...)
	twoBlocks[2*Block-1] = ' '

	return []Case{
		{"ascii", textgen.Bytes(textgen.Options{Size: 300_000, Seed: 11, ASCII: true})},
		{"utf8", utf8},
		{"empty", nil},
		{"no-trailing-newline", []byte("the last line\nhas no newline at its end")},
		{"only-whitespace", whitespace},
		{"long-line", longLine},
		{"long-word", bytes.Repeat([]byte("x"), 256<<10)},
		{"leading-trailing-whitespace", []byte("\n\t  leading and  trailing\t \r\n  \n")},
		{"every-whitespace", []byte(" a b\tc\nd\ve\ff\rg  h\t\ti\n\nj\v\vk\f\fl\r\rm \t\n\v\f\rn\t")},
		{"every-byte", allBytes},
		{"crlf", []byte("dos\r\nline\r\nends\r\n\r\n")},
		{"straddle", Straddle(Block, 3)},
		{"exact-block", exactBlock},
		{"word-across-blocks", twoBlocks},
	}
}

// Straddle returns a text of blocks*block + 1001 bytes (not a multiple of
// block) with a word across every multiple of block and of 4096, so that a
// reader with such a buffer size sees a word cut in two at each refill.
func Straddle(block, blocks int) []byte {
	size := blocks*block + 1001
	b := bytes.Repeat([]byte("ab cde "), size/7+1)[:size]
	for at := 4096; at < size; at += 4096 {
		put(b, at)
	}
	for at := block; at < size; at += block {
		put(b, at)
	}
	return b
}

// put writes " straddle " so that the word's middle is at offset at.
func put(b []byte, at int) {
	const word = " straddle "
	if start := at - len(word)/2; start >= 0 && start+len(word) <= len(b) {
		copy(b[start:], word)
	}
}

// WriteCases writes the cases to dir, one file each, named after the case,
// and returns their paths in the order of Cases.
func WriteCases(t testing.TB, dir string) []string {
	t.Helper()
	var paths []string
	for _, c := range Cases() {
		path := filepath.Join(dir, c.Name+".txt")
		if err := os.WriteFile(path, c.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

var wcVersion = sync.OnceValues(func() (string, error) {
	if _, err := exec.LookPath("wc"); err != nil {
		return "", err
	}
	out, err := exec.Command("wc", "--version").Output()
	if err != nil {
		return "wc of unknown version", nil
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first, nil
})

// WC returns the word count of the file at path by the real `wc -w`, run
// with LC_ALL=C so that the count does not depend on the caller's locale.
// It skips the test when there is no wc on the PATH.
func WC(t testing.TB, path string) int64 {
	t.Helper()
	version, err := wcVersion()
	if err != nil {
		t.Skipf("no wc to compare with: %v", err)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command("wc", "-w")
	cmd.Stdin = in
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("LC_ALL=C wc -w < %s: %v: %s", path, err, stderr.Bytes())
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("LC_ALL=C wc -w < %s: output %q: %v", path, out, err)
	}
	t.Logf("%s: %d words by %s", filepath.Base(path), n, version)
	return n
}

// CheckFiles compares count with the real wc -w on every case.
func CheckFiles(t *testing.T, count wcmain.Count) {
	for _, path := range WriteCases(t, t.TempDir()) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			want := WC(t, path)
			got, err := wcmain.CountFile(path, count)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: %d words, wc -w says %d (wc's rule for bytes outside printable ASCII changed in coreutils 9.5; see package wordrule)", path, got, want)
			}
		})
	}
}

// A Run is a stage's command line: the command's arguments, without the
// program name, and where it prints its result and its usage.
type Run func(args []string, stdout, stderr io.Writer) error

// CheckCommand checks a stage's command line: its output line, its
// profiles, and its usage errors (exit status 2) and other errors (1).
func CheckCommand(t *testing.T, run Run) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(text, []byte("one two\tthree\nfour"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("output", func(t *testing.T) {
		var out bytes.Buffer
		if err := run([]string{text}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if want := "4 " + text + "\n"; out.String() != want {
			t.Errorf("output %q, want %q (as wc -w FILE prints)", out.String(), want)
		}
	})

	t.Run("profiles", func(t *testing.T) {
		cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
		var out bytes.Buffer
		if err := run([]string{"-cpuprofile", cpu, "-memprofile", mem, text}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if want := "4 " + text + "\n"; out.String() != want {
			t.Errorf("output %q, want %q", out.String(), want)
		}
		for _, p := range []string{cpu, mem} {
			if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
				t.Errorf("profile %s: %v, want a non-empty file", p, err)
			}
		}
	})

	missing := filepath.Join(dir, "missing.txt")
	for _, c := range []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"missing-file", []string{missing}, "open " + missing + ": no such file or directory", true},
		{"no-file", nil, "want one FILE argument, got 0", true},
		{"two-files", []string{text, text}, "want one FILE argument, got 2", true},
		{"bad-flag", []string{"-bogus", text}, "flag provided but not defined: -bogus", true},
		{"bad-profile", []string{"-cpuprofile", filepath.Join(dir, "no", "cpu.prof"), text}, "-cpuprofile: open " + dir, true},
		{"directory", []string{dir}, "read " + dir + ": is a directory", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(c.args, &out, io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if got := errors.As(err, new(cli.UsageError)); got != c.usage {
				t.Errorf("%v: usage error (exit status 2) %v, want %v", err, got, c.usage)
			}
			if out.Len() > 0 {
				t.Errorf("printed %q before failing", out.String())
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a run created %s", missing)
	}
}
