package perfspec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/tools/result"
)

// Identity is what a benchmark of this spec measures, exactly, its paths
// relative to root (the runfiles root): the sha256 of its binary, and of
// its declared run — the spec itself, but for the build's status (the
// commit, which a change of a comment moves), and the files its arguments
// name. Two builds of the same identity run the same program the same
// way, so that a difference between their measurements is noise.
func (s *Spec) Identity(root string) (result.Identity, error) {
	return s.IdentityWith(filepath.Join(root, s.Binary), root)
}

// IdentityWith is Identity with binary in place of the spec's own: a build
// of the benchmark outside the runfiles (bisect's go build of a commit),
// run as the spec declares under root.
func (s *Spec) IdentityWith(binary, root string) (result.Identity, error) {
	binarySum, err := FileSHA256(binary)
	if err != nil {
		return result.Identity{}, fmt.Errorf("the identity of %s: %w", s.Benchmark.Name, err)
	}
	run, err := s.RunSHA256(root)
	if err != nil {
		return result.Identity{}, err
	}
	return result.Identity{BinarySHA256: binarySum, RunSHA256: run}, nil
}

// LabSHA256 is the version of the lab that measures a benchmark of this
// spec (Identity's third sum, result.Identity.LabSHA256): the sha256 of
// the sums of the measuring tools' binaries, runner (the runner that runs,
// the one executing: its own binary) and, for a program, the xtime its spec
// names under root. It is the one owner of what "the lab's version" is.
//
// Those two and nothing else: the runner makes every run, drives
// Cachegrind, reads and computes every figure, and in its count mode is
// the count action's whole code (the count worker's, whose machine,
// worker.json, the environment records and compares field by field:
// result.CountDifferences); xtime times the runs and counts their system
// calls. Either can move a figure that the benchmark's code did not.
// pprof and the rules' Starlark move no figure (what the rules pass the
// runner is the spec, in run_sha256), and the machine's Valgrind, C library
// and kernel are the environment's.
//
// It is a pure function of the build, like the binary's sum: a
// consumer that moves its pin of the lab gets another version only when
// the tools' code moved, and then every result is "measured by another
// version of the lab: re-baselined" (tools/verdict), never judged
// against one measured by the old tools. In this repository, where the lab
// and the benchmarks are one, a commit that changes the runner or xtime
// re-baselines the next night's every benchmark on purpose: results
// measured by different tools are not comparable. The pull request's perf
// check measures both sides with the base's tools, so it judges that
// commit's own code all the same (docs/noise.md).
func (s *Spec) LabSHA256(runner, root string) (string, error) {
	tools := [][2]string{{"runner", runner}}
	if s.Program != nil {
		tools = append(tools, [2]string{"xtime", filepath.Join(root, s.Program.XTime)})
	}
	h := sha256.New()
	for _, tool := range tools {
		sum, err := FileSHA256(tool[1])
		if err != nil {
			return "", fmt.Errorf("the lab's version that measures %s: %w", s.Benchmark.Name, err)
		}
		fmt.Fprintf(h, "%s %s\n", tool[0], sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RunSHA256 is the sha256 of the spec's declared run (Identity's second
// half), its data files under root.
func (s *Spec) RunSHA256(root string) (string, error) {
	run := *s
	run.Status = ""
	doc, err := json.Marshal(run)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(doc)
	for _, name := range s.dataFiles(root) {
		sum, err := FileSHA256(filepath.Join(root, name))
		if err != nil {
			return "", fmt.Errorf("the identity of %s: %w", s.Benchmark.Name, err)
		}
		fmt.Fprintf(h, "\n%s %s", name, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// dataFiles are the files under root that the spec's arguments name, as
// an argument or a flag's value (-cfg=FILE): the run's inputs.
func (s *Spec) dataFiles(root string) []string {
	args := s.Args
	if s.Program != nil && s.Program.Counted != nil {
		args = append(args[:len(args):len(args)], s.Program.Counted.Args...)
	}
	var files []string
	for _, arg := range args {
		if _, value, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "-") {
			arg = value
		}
		if arg == "" || strings.Contains(arg, "{outputs}") || filepath.IsAbs(arg) || !filepath.IsLocal(arg) {
			continue
		}
		if info, err := os.Stat(filepath.Join(root, arg)); err == nil && info.Mode().IsRegular() {
			files = append(files, arg)
		}
	}
	return files
}

// FileSHA256 is the sha256 of a file, in hex.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
