package perfrun

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/result"
)

// ManifestInputs writes the inputs file StageInputs reads
// (RUNFILES_PATH<tab>PATH) from a runfiles tree's MANIFEST, whose lines
// name the workspace's files under workspace/ and other repositories'
// under theirs: what a test's runfiles hold, staged as a count action
// stages its inputs.
func ManifestInputs(manifest, workspace, inputs string) error {
	in, err := os.Open(manifest)
	if err != nil {
		return fmt.Errorf("the runfiles of a test: %w", err)
	}
	defer in.Close()
	var lines strings.Builder
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 64<<10)
	for line := 1; sc.Scan(); line++ {
		rel, target, ok := strings.Cut(sc.Text(), " ")
		switch {
		case !ok || rel == "":
			return fmt.Errorf("%s:%d: want RUNFILES_PATH PATH: %q", manifest, line, sc.Text())
		case target == "":
			continue // an empty file Bazel makes (__init__.py): nothing to stage
		}
		short, ours := strings.CutPrefix(rel, workspace+"/")
		if !ours {
			short = "../" + rel
		}
		fmt.Fprintf(&lines, "%s\t%s\n", short, target)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", manifest, err)
	}
	return os.WriteFile(inputs, []byte(lines.String()), 0o644)
}

// inCountPlace makes a test's measurement, measure, where the count
// action makes its counts: the test's runfiles copied into a CountDir, its
// working directory, and the outputs in that directory too, then moved to
// out. A test runs in Bazel's sandbox, whose paths (in the program's
// arguments, its working directory and real path, the runner's
// environment) change length from one invocation to the next; under
// Cachegrind they moved an unchanged havlak1cc's exact instructions by 595
// and its D1 misses by 1.07% between two invocations of its quick test,
// which a night would judge an inconsistent measurement of the same
// binary. Here, as in the count action, they do not move.
func (p *program) inCountPlace(out string, measure func() (*result.Result, error)) (r *result.Result, err error) {
	srcdir, workspace := os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE")
	if srcdir == "" || workspace == "" {
		return nil, fmt.Errorf("no runfiles tree or workspace name (TEST_SRCDIR, TEST_WORKSPACE): not run by bazel test")
	}
	dir, err := CountDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	inputs := filepath.Join(dir, "inputs")
	if err := treeInputs(srcdir, workspace, inputs); err != nil {
		return nil, err
	}
	root, err := StageInputs(inputs, dir)
	if err != nil {
		return nil, err
	}
	outputs := filepath.Join(dir, "outputs")
	if err := os.Mkdir(outputs, 0o755); err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(root); err != nil {
		return nil, err
	}
	// The program, its data and the runs' outputs all under dir: the
	// runs see its paths only.
	runfiles := p.runfiles
	p.rootAt(root)
	p.out = outputs
	defer func() {
		p.out = out
		p.rootAt(runfiles)
		if cerr := os.Chdir(wd); err == nil {
			err = cerr
		}
		// What a failed measurement left says why: moved all the same.
		if merr := moveTree(outputs, out); err == nil {
			err = merr
		}
	}()
	if err := p.countFrom(dir); err != nil {
		return nil, err
	}
	return measure()
}

// treeInputs writes the inputs file StageInputs reads from a runfiles
// tree, srcdir, as a test's sandbox has it: its links followed (a sandbox
// has no MANIFEST beside them), the workspace's files under workspace/,
// other repositories' under theirs.
func treeInputs(srcdir, workspace, inputs string) error {
	var lines strings.Builder
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		if depth > 64 {
			return fmt.Errorf("%s: runfiles nested over 64 levels (a link loop?)", dir)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			path, name := filepath.Join(dir, e.Name()), filepath.ToSlash(filepath.Join(rel, e.Name()))
			info, err := os.Stat(path) // through the link
			switch {
			case err != nil:
				return fmt.Errorf("the runfiles of a test: %w", err)
			case info.IsDir():
				if err := walk(path, name, depth+1); err != nil {
					return err
				}
			case rel == "" || !info.Mode().IsRegular():
				// MANIFEST and the like at the top, or no file: nothing to stage.
			default:
				short, ours := strings.CutPrefix(name, workspace+"/")
				if !ours {
					short = "../" + name
				}
				fmt.Fprintf(&lines, "%s\t%s\n", short, path)
			}
		}
		return nil
	}
	if err := walk(srcdir, "", 0); err != nil {
		return err
	}
	return os.WriteFile(inputs, []byte(lines.String()), 0o644)
}

// moveTree moves the files under from into to, keeping their relative
// paths: renamed when they can be, copied across file systems (/tmp and a
// test's outputs seldom share one).
func moveTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file among a test's outputs", path)
		}
		if os.Rename(path, target) == nil {
			return nil
		}
		return atomicfile.CopyFile(path, target, 0, 0)
	})
}
