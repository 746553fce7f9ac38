package night

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
)

// keepOrPromote makes the night that did not fail the next baseline,
// unless its tests failed, a result is not trusted, or an alert tonight
// holds the baseline.
func (n *night) keepOrPromote(found []result.Found, tonight []alert.Alert) error {
	if n.testsFailed {
		fmt.Fprintln(n.stdout, "Tests failed tonight: the baseline stays.")
		n.run.baseline = "tests failed tonight: the baseline stays"
		return nil
	}
	// Refused, not failed: the night's figures were judged all the same.
	if err := trustedOrigins(found); err != nil {
		fmt.Fprintf(n.stdout, "The baseline stays: %v\n", err)
		n.run.baseline = "the night is not a scheduled build of " + result.TrustedBranch + ": the baseline stays"
		return nil
	}
	if held := holding(tonight); len(held) > 0 {
		n.run.baseline = "alerts " + strings.Join(held, ", ") + " hold the baseline"
		fmt.Fprintf(n.stdout, "The baseline stays: alerts %s are regressions against it, neither fixed nor accepted; "+
			"it moves when they are (an accepted one's new level becomes the baseline).\n", strings.Join(held, ", "))
		return nil
	}
	fmt.Fprintln(n.stdout, "--- :floppy_disk: This night becomes the baseline")
	if err := n.promote(found); err != nil {
		n.run.baseline = "the promotion failed: the baseline stays"
		return err
	}
	n.run.promoted, n.run.baseline = true, "this night became the baseline"
	return nil
}

// promote makes the night's results, found (exactly those judged), the
// baseline: it copies each into a new directory beside the baseline,
// synced to disk (copyBaseline), reads every copy back through
// tools/result and checks that it is the result judged, and only then
// swaps it in: the old baseline is renamed aside, the new one renamed
// in, the swap synced and read back there, the old one removed. A failure at any step leaves the old baseline where it was
// (recoverBaseline finishes a swap a crash interrupted). The gate holds
// the baseline's lock: no other gate writes beside it meanwhile.
func (n *night) promote(found []result.Found) error {
	var take []result.Found
	for _, f := range found {
		if f.Err == nil {
			take = append(take, f)
		}
	}
	if len(take) == 0 {
		return fmt.Errorf("%s: no results to make the baseline of; the baseline stays", n.artifacts)
	}
	parent := filepath.Dir(n.baseline)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := n.recoverBaseline(); err != nil {
		return err
	}
	// The name is labdir.Leftover's: what a promotion killed here leaves,
	// the next gate removes (recoverBaseline).
	fresh, err := os.MkdirTemp(parent, "."+filepath.Base(n.baseline)+".new-")
	if err != nil {
		return fmt.Errorf("%w; the baseline stays", err)
	}
	defer os.RemoveAll(fresh) // gone already once swapped in
	if err := copyBaseline(fresh, n.artifacts, take); err != nil {
		return fmt.Errorf("the new baseline %s: %w; the baseline stays", fresh, err)
	}
	if err := checkLayoutCopy(n.artifacts, fresh); err != nil {
		return fmt.Errorf("the new baseline %s: %w; the baseline stays", fresh, err)
	}
	if n.beforeSwap != nil {
		n.beforeSwap()
	}
	// The renames go through atomicfile, whose fault points the tests
	// fail and stop at (docs/records/faults.md).
	old := n.baseline + ".old"
	had := exists(n.baseline)
	if had {
		if err := atomicfile.Rename(n.baseline, old); err != nil {
			return fmt.Errorf("%w; the baseline stays", err)
		}
	}
	if err := atomicfile.Rename(fresh, n.baseline); err != nil {
		if had {
			if back := atomicfile.Rename(old, n.baseline); back != nil {
				return fmt.Errorf("%w; putting the baseline back from %s: %v (the next gate tries again)", err, old, back)
			}
		}
		return fmt.Errorf("%w; the baseline stays", err)
	}
	// The record says promoted only once the swap is on disk: a crash
	// after it must not bring the old baseline back under a record that
	// says the night is the baseline.
	if err := atomicfile.SyncDir(parent); err != nil {
		return n.unswap(fresh, old, had, fmt.Errorf("the baseline %s after the swap: %w", n.baseline, err))
	}
	// What the night's record says promoted is what the baseline holds:
	// read back where the next gate reads it.
	if err := errors.Join(verifyCopy(n.baseline, take), checkLayoutCopy(n.artifacts, n.baseline)); err != nil {
		return n.unswap(fresh, old, had, fmt.Errorf("the baseline %s after the swap: %w", n.baseline, err))
	}
	if err := os.RemoveAll(old); err != nil {
		fmt.Fprintf(n.stderr, "nightly: the old baseline %s stays behind (the next gate removes it): %v\n", old, err)
	}
	return nil
}

// copyBaseline copies the results, take, and the layout variants of the
// night in artifacts (they calibrate the next night, layout.go) into
// fresh, marked as a baseline, syncs them to disk with the directories
// that name them, and reads every result back through tools/result,
// checking that it is the result judged.
func copyBaseline(fresh, artifacts string, take []result.Found) error {
	if err := os.Chmod(fresh, 0o755); err != nil {
		return err
	}
	if err := labdir.Mark(fresh, labdir.Baseline); err != nil {
		return err
	}
	var dirs []string
	for _, f := range take {
		dir := filepath.Join(fresh, result.Test(f))
		if err := copyCapped(f.Path, result.NightZip(fresh, result.Test(f))); err != nil {
			return err
		}
		dirs = append(dirs, dir)
	}
	variants, err := copyLayoutVariants(artifacts, fresh)
	if err != nil {
		return err
	}
	for _, dir := range append(append(dirs, variants...), fresh) {
		if err := atomicfile.SyncDir(dir); err != nil {
			return err
		}
	}
	return verifyCopy(fresh, take)
}

// verifyCopy reads the copies in dir back as a night and checks that they
// are the results judged, want, and no others.
func verifyCopy(dir string, want []result.Found) error {
	copied, err := result.OpenNight(dir, nightdir.Layout())
	if err != nil {
		return err
	}
	judged := map[string]*result.Result{}
	for _, f := range want {
		judged[result.Test(f)] = f.Result
	}
	seen := 0
	err = copied.Walk(func(f result.Found) error {
		switch r, ok := judged[result.Test(f)]; {
		case f.Err != nil:
			return f.Err
		case !ok:
			return fmt.Errorf("%s: a result that was not judged", f.Path)
		case !reflect.DeepEqual(f.Result, r):
			return fmt.Errorf("%s: not the result judged (its outputs.zip changed since)", f.Path)
		}
		seen++
		return nil
	})
	if err == nil && seen != len(want) {
		err = fmt.Errorf("%d of the %d results judged read back", seen, len(want))
	}
	return err
}

// unswap puts the old baseline back after a swap whose new baseline did
// not read back (the next gate removes the new one, at its leftover's
// name again, fresh, if this fails), and returns err.
func (n *night) unswap(fresh, old string, had bool, err error) error {
	if back := atomicfile.Rename(n.baseline, fresh); back != nil {
		return fmt.Errorf("%w; moving it aside: %v (the next gate tries again)", err, back)
	}
	if had {
		if back := atomicfile.Rename(old, n.baseline); back != nil {
			return fmt.Errorf("%w; putting the baseline back from %s: %v (the next gate tries again)", err, old, back)
		}
	}
	if back := atomicfile.SyncDir(filepath.Dir(n.baseline)); back != nil {
		return fmt.Errorf("%w; the baseline is back, but %v", err, back)
	}
	return fmt.Errorf("%w; the baseline stays", err)
}

// lockBaseline takes the baseline's lock (labdir.TakeLock) for the rest
// of the gate, before it reads the baseline: from reading it to the
// promotion and the history's writes, one gate at a time judges and
// moves a baseline. While another gate holds it, the log says whose the
// lock is, and the gate waits up to lockWait; then it is refused, named.
func (n *night) lockBaseline() error {
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on %s, gating %s since %s", os.Getpid(), host, n.artifacts, n.run.started.UTC().Format(time.RFC3339))
	path := labdir.LockPath(n.baseline)
	var waitedFrom time.Time
	lock, err := labdir.TakeLock(n.baseline, labdir.Baseline, holder, n.lockWait, func(other string) {
		waitedFrom = time.Now()
		fmt.Fprintf(n.stdout, "The baseline %s is another gate's (%s): this gate waits up to %s (--lock-wait) for its lock %s.\n",
			cli.Field(n.baseline), cli.Field(lockHolder(other)), n.lockWait, cli.Field(path))
	})
	var held *labdir.HeldError
	if errors.As(err, &held) {
		return refused(refusedLocked, fmt.Errorf("the baseline %s: another gate (%s) held its lock %s for all of --lock-wait %s: refused, the night not judged and the baseline left to that gate",
			n.baseline, lockHolder(held.Holder), path, n.lockWait))
	}
	if err != nil {
		return refused(refusedBaseline, err)
	}
	n.lock = lock
	if !waitedFrom.IsZero() {
		fmt.Fprintf(n.stdout, "The baseline's lock is this gate's, after waiting %s.\n", time.Since(waitedFrom).Round(time.Millisecond))
	}
	return nil
}

// lockHolder is what the log says of the gate that holds the baseline's
// lock, whose lock file says holder.
func lockHolder(holder string) string {
	if holder == "" {
		return "its lock file does not say which"
	}
	return holder
}

// recoverBaseline removes what a promotion killed before its renames
// left beside the baseline (its new copy, a zip half-written) and
// finishes one that stopped between its renames: with the baseline gone
// and the old one aside, the old one goes back; with both, the new one
// was whole and the old one goes. Gate has refused an old one that is not
// the lab's (stateDirs). It runs holding the baseline's lock, which
// proves their writer gone: without it, it refuses.
func (n *night) recoverBaseline() error {
	if !n.lock.Held() {
		return fmt.Errorf("recovering the baseline %s without its lock: refused, as its writer may be alive", n.baseline)
	}
	removed, err := n.lock.RemoveLeftovers()
	for _, path := range removed {
		fmt.Fprintf(n.stdout, "Removed %s, which an interrupted promotion left behind.\n", cli.Field(path))
	}
	if err != nil {
		return err
	}
	old := n.baseline + ".old"
	switch {
	case !exists(old):
		return nil
	case !exists(n.baseline):
		fmt.Fprintf(n.stdout, "The baseline is back from %s, where an interrupted promotion left it.\n", old)
		if err := atomicfile.Rename(old, n.baseline); err != nil {
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(n.baseline))
	}
	return os.RemoveAll(old)
}

// hasBaseline tells whether there is a baseline to compare with: a
// directory holding anything but the lab's marker. An empty one is none.
func (n *night) hasBaseline() bool {
	entries, err := os.ReadDir(n.baseline)
	return err == nil && slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() != labdir.Marker })
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
