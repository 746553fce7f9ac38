// Command gentext writes the wordcount benchmark's input: a deterministic
// pseudo-random text of an exact size (see package textgen). The same -seed
// and -size always give the same bytes. The file appears at -o only when
// complete.
//
//	gentext -size 30MB -seed 1 -o words.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"havlak-lab/go/wordcount/textgen"
	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
)

// maxSize keeps a typo from filling the disk.
const maxSize = 64 << 30

func main() {
	cli.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gentext", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizeFlag := fs.String("size", "30MB", "text `size`: bytes, or a number with a suffix kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024)")
	seed := fs.Uint64("seed", 1, "pseudo-random `seed`")
	ascii := fs.Bool("ascii", false, "ASCII words only, no UTF-8 ones")
	out := fs.String("o", "", "write the text to `file` (required)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		return cli.Usagef("-o is required")
	}
	size, err := parseSize(*sizeFlag)
	if err != nil {
		return cli.Usagef("-size=%s: %v", *sizeFlag, err)
	}

	f, err := atomicfile.Create(*out)
	if err != nil {
		return cli.UsageError{Err: fmt.Errorf("-o: %w", err)}
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := textgen.Write(w, textgen.Options{Size: size, Seed: *seed, ASCII: *ascii}); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return f.Commit()
}

var units = []struct {
	suffix string
	scale  int64
}{
	// Longest suffixes first, so that "MiB" is not taken for "B".
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"B", 1},
}

// parseSize reads a size in bytes: digits, then an optional unit.
func parseSize(s string) (int64, error) {
	digits, scale := s, int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			digits, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("want a whole number of bytes, optionally with a unit kB, MB, GB, KiB, MiB or GiB")
	}
	if n > maxSize/uint64(scale) {
		return 0, fmt.Errorf("more than the limit of %d bytes", int64(maxSize))
	}
	return int64(n) * scale, nil
}
