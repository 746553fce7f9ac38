package perfrun

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/result"
)

// Count is the count action of a program's quick workload (perf_counts,
// tools/perf/private/counts.bzl): its exact counts alone (countMode), into
// the directory out, made only on a worker that is the one the action
// declares, whose counts it may stand for in any cache. place is the
// action's CountDir, from which the program runs (countFrom).
//
// A go_test's count action counts each of its benchmarks' own
// instructions per operation instead (goTestCountMode).
func (b *Benchmark) Count(place, out string, declared result.CountWorker) (*result.Result, error) {
	counted := b.b.Spec.Program != nil || b.b.Spec.GoTest != nil && b.b.Spec.GoTest.CountedRepetitions > 0
	if !counted {
		return nil, fmt.Errorf("%s: a benchmark of kind %q without counted runs has no count action", b.b.Benchmark.Name, b.b.Benchmark.Kind)
	}
	if err := declared.Check(result.CaptureCountWorker()); err != nil {
		return nil, err
	}
	if err := b.b.countFrom(place); err != nil {
		return nil, err
	}
	if b.b.Spec.GoTest != nil {
		return b.b.goTestCountMode(out)
	}
	return b.b.program().countMode(out)
}

// countFrom runs the program from a copy of it at place/program (place a
// CountDir), a path of the same length whatever the program's name: the
// program sees its path (its first argument, its real path, which the
// kernel also puts on its stack) and, under Cachegrind, a name longer by
// nine bytes moved havlak6cc's D1 misses by 1.9% and its LL misses by
// 1.2%, as a layout variant named havlak6cc_layout_1 (tools/perf/private/
// layout.bzl) would have been counted against havlak6cc. Set after rootAt,
// which points at the runfiles' copy again.
func (b *bench) countFrom(place string) error {
	staged := filepath.Join(place, "program")
	if err := atomicfile.CopyFile(b.binary, staged, 0, 0); err != nil {
		return fmt.Errorf("the program, into its count place: %w", err)
	}
	b.binary = staged
	return nil
}

// CountDir makes the directory of a count action's staged inputs and
// outputs, whose path has the same length on every worker:
// /tmp/havlak-count-<16 hex digits>. The counted program sees it (in its
// arguments' and outputs' paths, its working directory, the variables the
// runner adds to its environment) and lays out its stack after them; under
// Cachegrind, whose simulated caches see every address, the same count
// action in Bazel's sandbox here and on a Buildbarn worker, each under
// os.MkdirTemp (whose suffix is a number of varying length) and the
// environment each gave it, counted havlak6cc's instructions 24 apart and
// its LL misses 2.2% apart.
func CountDir() (string, error) {
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		dir := "/tmp/havlak-count-" + hex.EncodeToString(b[:])
		err := os.Mkdir(dir, 0o700)
		if !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
	}
	return "", errors.New("/tmp/havlak-count-*: no free name in 100 tries")
}

// CountEnvironment is the whole environment a count's runs start from:
// the action's PATH (declared, so the same on every worker: Bazel's strict
// action environment) and nothing of what a sandbox or a worker adds
// (TMPDIR, HOME, its own variables), whose sizes would move the counts as
// a path's length does (CountDir).
func CountEnvironment(environ []string) []string {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "PATH=") {
			return []string{kv}
		}
	}
	return nil
}

// maxInputsBytes bounds an inputs file: a line per file of a benchmark's
// run (its binary, data, xtime, pprof and their runfiles).
const maxInputsBytes = 4 << 20

// StageInputs lays out an action's inputs as the runfiles tree the spec's
// paths are relative to, and returns its root, under dir. The inputs file
// has a line per file, "RUNFILES_PATH\tPATH": the path as the spec gives
// it (File.short_path: "go/havlak6/havlak6_/havlak6", or
// "../repo/file" for another repository's), and where the action sees the
// file, relative to the working directory. Each is copied, not linked:
// the dynamic loader finds a program's libraries from its real path
// (/proc/self/exe), which would be the worker's, of any length (CountDir
// says why a length matters). A runfiles path that leaves the tree is
// refused.
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
		staged := filepath.Join(root, filepath.FromSlash(short))
		if err := os.MkdirAll(filepath.Dir(staged), 0o755); err != nil {
			return "", err
		}
		if err := atomicfile.CopyFile(target, staged, 0, 0); err != nil {
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
