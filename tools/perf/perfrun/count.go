package perfrun

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"havlak-lab/tools/result"
)

// Count is the count action of a program's quick workload (perf_counts,
// tools/perf/private/counts.bzl): its exact counts alone (countMode), into
// the directory out, made only on a worker that is the one the action
// declares, whose counts it may stand for in any cache.
func (b *Benchmark) Count(out string, declared result.CountWorker) (*result.Result, error) {
	if b.b.Spec.Program == nil {
		return nil, fmt.Errorf("%s: a benchmark of kind %q has no count action", b.b.Benchmark.Name, b.b.Benchmark.Kind)
	}
	if err := declared.Check(result.CaptureCountWorker()); err != nil {
		return nil, err
	}
	return b.b.program().countMode(out)
}

// maxInputsBytes bounds an inputs file: a line per file of a benchmark's
// run (its binary, data, xtime, pprof and their runfiles).
const maxInputsBytes = 4 << 20

// StageInputs lays out an action's inputs as the runfiles tree the spec's
// paths are relative to, and returns its root, under dir. The inputs file
// has a line per file, "RUNFILES_PATH\tPATH": the path as the spec gives
// it (File.short_path: "go/havlak6/havlak6_/havlak6", or
// "../repo/file" for another repository's), and where the action sees the
// file, relative to the working directory. Each becomes a symbolic link;
// a runfiles path that leaves the tree is refused.
func StageInputs(inputs, dir string) (string, error) {
	data, err := result.ReadFileLimited(inputs, maxInputsBytes)
	if err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root := filepath.Join(dir, "runfiles", "main")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<10)
	for line := 1; sc.Scan(); line++ {
		short, target, ok := strings.Cut(sc.Text(), "\t")
		if !ok || !stagedPath(short) || target == "" {
			return "", fmt.Errorf("%s:%d: want RUNFILES_PATH<tab>PATH, a runfiles path inside the tree: %q", inputs, line, sc.Text())
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(wd, target)
		}
		link := filepath.Join(root, filepath.FromSlash(short))
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return "", err
		}
		if err := os.Symlink(target, link); err != nil {
			return "", fmt.Errorf("%s:%d: %w", inputs, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", inputs, err)
	}
	return root, nil
}

// stagedPath is whether a runfiles path stays in the tree: clean and
// relative, in this workspace's directory or, after one "../", another
// repository's.
func stagedPath(p string) bool {
	rest := strings.TrimPrefix(p, "../")
	return p != "" && path.Clean(p) == p && !path.IsAbs(p) && rest != "" &&
		!strings.HasPrefix(rest, "../") && rest != ".." && rest != "."
}
