package firstbad

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"havlak-lab/tools/verdict"
)

var (
	goFlag       = flag.String("go", "", "the go command (default: go on PATH)")
	manifestFlag = flag.String("manifest", "", "the benchmarks' manifest, which names havlak6's quick test spec (bazel-bin/benchmarks/manifest.json)")
)

// runfile resolves a $(rootpath) argument: go_test runs in its package's
// directory, not in the runfiles root.
func runfile(p string) string {
	if p == "" || filepath.IsAbs(p) || os.Getenv("TEST_SRCDIR") == "" {
		return p
	}
	return filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"), p)
}

// The sources of havlak6's program, relative to the workspace root (the
// test's data): a copy of them is the throwaway history's module.
var havlak6Sources = []string{"go/havlak6", "go/internal/lab", "internal/cli", "internal/runtimemetrics"}

// TestNamesTheCommitOfTheExtraPass bisects a throwaway history of
// havlak6 in which one commit of ten adds a pass over the graph before
// every loop-finding pass; the others change comments and unrelated
// files. The benchmark is the lab's own declaration of havlak6 (its quick
// test's spec, as the manifest lists it), the build the go command's, the
// counts Cachegrind's.
func TestNamesTheCommitOfTheExtraPass(t *testing.T) {
	if *manifestFlag == "" {
		t.Fatal("-manifest: the benchmarks' manifest is needed (bazel test passes it)")
	}
	goCmd := runfile(*goFlag)
	if goCmd == "" {
		goCmd = "go"
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Fatal("valgrind not found: install Debian's valgrind (tools/bazel test does)")
	}
	repo := t.TempDir()
	gitIn := gitRunner(t, repo)
	write := func(path, content string) {
		t.Helper()
		full := filepath.Join(repo, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(path string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(repo, path))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	edit := func(path, old, new string) {
		t.Helper()
		s := read(path)
		if !strings.Contains(s, old) {
			t.Fatalf("%s has no %q to change", path, old)
		}
		write(path, strings.Replace(s, old, new, 1))
	}
	commit := func(subject string) string {
		gitIn("add", "-A")
		gitIn("commit", "-q", "-m", subject)
		return gitIn("rev-parse", "HEAD")
	}

	gitIn("init", "-q")
	workspace := runfile(".")
	if os.Getenv("TEST_SRCDIR") == "" {
		workspace = "../../.."
	}
	for _, dir := range havlak6Sources {
		files, _ := filepath.Glob(filepath.Join(workspace, dir, "*.go"))
		n := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(dir, filepath.Base(f)), string(data))
			n++
		}
		if n == 0 {
			t.Fatalf("no sources of %s under %s", dir, workspace)
		}
	}
	version := strings.Join(strings.SplitN(strings.TrimPrefix(runtime.Version(), "go"), ".", 3)[:2], ".")
	write("go.mod", "module havlak-lab\n\ngo "+version+"\n")
	write("README.md", "# A copy of havlak6\n")
	good := commit("havlak6, copied")

	const main = "go/havlak6/main.go"
	var culprit, commentsOnly string
	changes := []struct {
		subject string
		change  func()
	}{
		{"README: say what this is", func() { write("README.md", read("README.md")+"\nFor a bisection test.\n") }},
		{"cfg: a comment", func() { edit("go/havlak6/cfg.go", "// CFG is", "// CFG, the graph, is") }},
		{"docs: notes", func() { write("docs/notes.md", "Nothing to see.\n") }},
		{"lsg: comment the loop graph", func() { write("go/havlak6/lsg.go", read("go/havlak6/lsg.go")+"\n// The end of the loop graph.\n") }},
		{"main: look at every edge before each pass", func() {
			edit(main, "\treuseLoopGraph bool\n}", "\treuseLoopGraph bool\n\tedges          int\n}")
			edit(main, "func (f *finder) FindLoops() (int, error) {\n", `func (f *finder) FindLoops() (int, error) {
	f.edges = 0
	for _, bb := range f.cfg.Blocks {
		if bb == nil {
			continue
		}
		for _, e := range bb.OutEdges {
			f.edges += e.Name
		}
		for _, e := range bb.InEdges {
			f.edges -= e.Name
		}
	}
`)
		}},
		{"README: more", func() { write("README.md", read("README.md")+"\nMore.\n") }},
		{"havlak: a comment", func() { edit("go/havlak6/havlak.go", "// UnionFindNode is", "// UnionFindNode (a comment) is") }},
		{"docs: more notes", func() { write("docs/notes.md", read("docs/notes.md")+"Still nothing.\n") }},
		{"main: a comment", func() { edit(main, "// finder runs", "// finder (a comment) runs") }},
	}
	var bad string
	for _, c := range changes {
		c.change()
		bad = commit(c.subject)
		switch {
		case strings.HasPrefix(c.subject, "main: look at every edge"):
			culprit = bad
		case strings.HasPrefix(c.subject, "lsg: comment"):
			commentsOnly = bad
		}
	}
	head := gitIn("rev-parse", "HEAD")

	t.Setenv("GO", goCmd)
	// The Go SDK's std is compiled once into this cache, then reused.
	t.Setenv("GOCACHE", filepath.Join(t.TempDir(), "gocache"))
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOTOOLCHAIN", "local")
	o := Options{Good: good, Bad: bad, Benchmark: "havlak6", Builder: "go", Manifest: runfile(*manifestFlag),
		GoPackage: "./go/havlak6", Repo: repo, Cache: t.TempDir()}
	rep, err := Find(o, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if rep.FirstBad.Commit != culprit {
		t.Errorf("first bad commit %s %q, want %s, the extra pass\n%s", rep.FirstBad.Commit, rep.FirstBad.Subject, culprit, data)
	}
	if rep.Figure != "own_instructions" || rep.Parent.Commit != gitIn("rev-parse", culprit+"^") ||
		!(rep.FirstBad.Median > rep.Threshold && rep.Threshold > rep.Parent.Median) || rep.Change <= 0 {
		t.Errorf("report: metric %q, parent %s, first bad %v, threshold %v, parent %v, change %v; want own_instructions, the culprit's parent, more instructions",
			rep.Figure, rep.Parent.Commit, rep.FirstBad.Median, rep.Threshold, rep.Parent.Median, rep.Change)
	}
	// Commits of comments and docs build the binary of their parent: at
	// least one of the steps was not measured again.
	if rep.Saved == 0 {
		t.Errorf("no commit's measurement was saved by its identity:\n%s", data)
	}
	// git bisect's steps, no more: log2 of 9 commits.
	if len(rep.Steps) == 0 || len(rep.Steps) > 4 {
		t.Errorf("%d commits measured between GOOD and BAD, want 1 to 4", len(rep.Steps))
	}
	for _, s := range rep.Steps {
		if len(s.Values) < minRepetitions {
			t.Errorf("%s measured %d times, want at least %d", s.Commit, len(s.Values), minRepetitions)
		}
	}
	// The user's checkout is as it was, and the worktree is gone.
	if got := gitIn("rev-parse", "HEAD"); got != head {
		t.Errorf("the repository's HEAD moved from %s to %s", head, got)
	}
	if status := gitIn("status", "--porcelain"); status != "" {
		t.Errorf("the repository's checkout changed:\n%s", status)
	}
	if list := gitIn("worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktrees left:\n%s", list)
	}
	fmt.Fprintf(os.Stderr, "%s", data)

	// Between GOOD and a commit of comments, the counts differ by noise
	// only: the gate's rule says so, and bisect names no commit.
	o.Bad, o.Cache = commentsOnly, t.TempDir()
	_, err = Find(o, os.Stderr)
	if !errors.Is(err, verdict.ErrNothingToBisect) || !strings.Contains(err.Error(), "within the gate's rule") {
		t.Errorf("bisecting a change of comments: %v, want nothing to bisect", err)
	}
}

// gitRunner runs git in a throwaway repository as a fixed author, with no
// user configuration, and returns its output; a failure fails the test.
func gitRunner(t *testing.T, repo string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=lab", "GIT_AUTHOR_EMAIL=lab@example.com",
			"GIT_COMMITTER_NAME=lab", "GIT_COMMITTER_EMAIL=lab@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
