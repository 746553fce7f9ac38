package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// recipe names this file's way of building; change it when the steps
// change, so that binaries built the old way are not reused.
const recipe = "vendor+patch+build v1"

// programs are the binaries a cluster needs, in the order it starts them.
var programs = []string{"bb_storage", "bb_scheduler", "bb_runner", "bb_worker"}

// probes are the module's own programs, built with Buildbarn's
// dependencies: clients that show what the cluster lets a client do.
var probes = []string{"acwrite"}

// dropped lists directories that `go mod vendor` leaves out (it copies
// only packages and the files they embed by name, not embedded
// directories), to be copied back from the module cache.
var dropped = []struct{ module, dir string }{
	{"github.com/buildbarn/bb-remote-execution", "cmd/bb_scheduler/templates"},
}

// builder builds the pinned Buildbarn once per cache.
type builder struct {
	goCmd string    // the go command
	src   string    // tools/buildbarn: module/, patches/
	cache string    // $HAVLAK_LAB_CACHE
	log   io.Writer // progress and failures
}

// key identifies a build: what it is built from and how.
func (b *builder) key() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n", recipe, runtime.GOOS, runtime.GOARCH)
	patches, err := b.patches()
	if err != nil {
		return "", err
	}
	sources, err := b.moduleFiles()
	if err != nil {
		return "", err
	}
	for _, file := range append(sources, patches...) {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(b.src, file)
		fmt.Fprintf(h, "%s %d\n", rel, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// moduleFiles are the files of module/ that the build reads: go.mod,
// go.sum and the Go files of the module's own programs (probes).
func (b *builder) moduleFiles() ([]string, error) {
	dir := filepath.Join(b.src, "module")
	files := []string{filepath.Join(dir, "go.mod"), filepath.Join(dir, "go.sum")}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return err
	})
	return files, err
}

// patches are the patch files, in the order they apply.
func (b *builder) patches() ([]string, error) {
	patches, err := filepath.Glob(filepath.Join(b.src, "patches", "*.patch"))
	sort.Strings(patches)
	return patches, err
}

// ensure builds the binaries unless the cache has them; it returns their
// directory.
func (b *builder) ensure() (string, error) {
	key, err := b.key()
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", b.src, err)
	}
	dir := filepath.Join(b.cache, "buildbarn-"+key)
	if complete(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(b.cache, 0o755); err != nil {
		return "", err
	}
	// One install at a time per cache, as tools/ci/tools.sh does.
	unlock, err := lockFile(filepath.Join(b.cache, ".lock"), 30*time.Minute)
	if err != nil {
		return "", err
	}
	defer unlock()
	if complete(dir) {
		return dir, nil
	}
	fmt.Fprintf(b.log, "buildbarn: building Buildbarn into %s (once, minutes on 2 cores)\n", dir)
	start := time.Now()
	tmp := dir + ".tmp"
	if err := removeAll(tmp); err != nil {
		return "", err
	}
	if err := b.build(tmp); err != nil {
		return "", err
	}
	if err := removeAll(filepath.Join(tmp, "src")); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	fmt.Fprintf(b.log, "buildbarn: built in %s\n", time.Since(start).Round(time.Second))
	return dir, nil
}

// complete reports whether dir holds every program.
func complete(dir string) bool {
	for _, p := range append(slices.Clone(programs), probes...) {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	return true
}

// build makes the binaries in dir, working in dir/src: the module copied,
// vendored, patched, built.
func (b *builder) build(dir string) error {
	work := filepath.Join(dir, "src")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	sources, err := b.moduleFiles()
	if err != nil {
		return err
	}
	for _, file := range sources {
		rel, err := filepath.Rel(filepath.Join(b.src, "module"), file)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, rel)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(work, rel), data, 0o644); err != nil {
			return err
		}
	}
	goMod, err := os.ReadFile(filepath.Join(work, "go.mod"))
	if err != nil {
		return err
	}
	tools := parseTools(goMod)
	if len(tools) == 0 {
		return fmt.Errorf("%s: no tool directives", filepath.Join(b.src, "module", "go.mod"))
	}
	logFile := dir + ".log"

	// -e: go mod vendor stops at the embed patterns that only the
	// patches below satisfy.
	if _, err := b.goRun(work, logFile, "-mod=mod", "mod", "vendor", "-e"); err != nil {
		return err
	}
	for _, d := range dropped {
		out, err := b.goRun(work, logFile, "-mod=mod", "list", "-m", "-json", d.module)
		if err != nil {
			return err
		}
		var m struct{ Dir string }
		if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
			return fmt.Errorf("go list -m -json %s: no module directory in %q", d.module, out)
		}
		if err := copyTree(filepath.Join(m.Dir, d.dir), filepath.Join(work, "vendor", d.module, d.dir)); err != nil {
			return err
		}
	}
	patches, err := b.patches()
	if err != nil {
		return err
	}
	for _, p := range patches {
		cmd := exec.Command("patch", "-p1", "--batch", "--forward", "--silent",
			"-d", filepath.Join(work, "vendor"), "-i", p)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("applying %s: %v\n%s", p, err, out)
		}
	}
	args := append([]string{"build", "-trimpath", "-o", dir + string(filepath.Separator)}, tools...)
	if _, err := b.goRun(work, logFile, "-mod=vendor", args...); err != nil {
		return err
	}
	if !complete(dir) {
		return fmt.Errorf("go build made no %s in %s", strings.Join(append(slices.Clone(programs), probes...), ", "), dir)
	}
	return nil
}

// goRun runs the go command in dir with the environment Buildbarn needs,
// its output appended to logFile; on failure the error carries the output.
func (b *builder) goRun(dir, logFile, goflags string, args ...string) ([]byte, error) {
	cmd := exec.Command(b.goCmd, args...)
	cmd.Dir = dir
	cmd.Env = goEnv(os.Environ(), goflags)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if f, ferr := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); ferr == nil {
		fmt.Fprintf(f, "$ go %s\n%s%s", strings.Join(args, " "), stdout.Bytes(), stderr.Bytes())
		f.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, tail(stderr.String(), 30))
	}
	return stdout.Bytes(), nil
}

// goEnv is env for the go command building Buildbarn: the user's go
// settings (proxy, module cache) kept, except what would change the
// build; GONOSUMDB extended to Buildbarn, whose pseudo-versions the
// checksum database does not know (go.sum pins them).
func goEnv(env []string, goflags string) []string {
	var out []string
	nosumdb := ""
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "GOFLAGS", "GOTOOLCHAIN", "GOWORK", "GO111MODULE":
			continue
		case "GONOSUMDB":
			nosumdb = value
			continue
		}
		out = append(out, kv)
	}
	if nosumdb != "" {
		nosumdb += ","
	}
	return append(out,
		"GOFLAGS="+goflags,
		"GOTOOLCHAIN=local",
		"GOWORK=off",
		"GO111MODULE=on",
		"GONOSUMDB="+nosumdb+"github.com/buildbarn",
	)
}

// parseTools returns the packages of a go.mod's tool directives, in
// either form: `tool PKG` or a `tool ( ... )` block.
func parseTools(goMod []byte) []string {
	var tools []string
	inBlock := false
	sc := bufio.NewScanner(bytes.NewReader(goMod))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case inBlock && fields[0] == ")":
			inBlock = false
		case inBlock:
			tools = append(tools, fields[0])
		case fields[0] == "tool" && len(fields) == 2 && fields[1] == "(":
			inBlock = true
		case fields[0] == "tool" && len(fields) == 2:
			tools = append(tools, fields[1])
		}
	}
	return tools
}

// lockFile takes an exclusive flock on path, waiting up to wait.
func lockFile(path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("waited %s for %s: %v", wait, path, err)
		}
		time.Sleep(time.Second)
	}
}

// copyTree copies the regular files of the tree src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// removeAll removes a tree that may hold read-only directories (the
// module cache's copies, actions' outputs).
func removeAll(path string) error {
	filepath.Walk(path, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(path)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
