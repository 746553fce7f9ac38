package night

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/labdir"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
)

// needFixtures points -fixtures at the report's fixtures when the test
// runs without Bazel, from its package's directory.
func needFixtures(t *testing.T) {
	t.Helper()
	switch dir := os.Getenv("TEST_SRCDIR"); {
	case *fixtures == "":
		if _, err := os.Stat("../../report/testdata/results"); err != nil {
			t.Skip("needs -fixtures (bazel test //tools/nightly/night:night_test)")
		}
		*fixtures = "../../report/testdata/results"
	case dir != "" && !filepath.IsAbs(*fixtures):
		// A runfiles path, as needCommands makes it absolute.
		*fixtures = filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), *fixtures)
	}
}

// A night that is not one (result.Night), or a baseline that overlaps
// it, is refused before anything is written: the baseline and the night
// are as they were.
func TestGateRefusesWhatIsNotANight(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	good := makeNight(t, nightSpec{allocs: 1})
	for _, c := range []struct {
		name string
		// night makes the night's directory and the baseline's path.
		night func(t *testing.T) (night, baseline string)
		// status is the gate's exit status; says, what it says.
		status int
		says   string
	}{
		{"the download directory, results one level deeper", func(t *testing.T) (string, string) {
			dir := t.TempDir()
			os.Rename(makeNight(t, nightSpec{allocs: 1}), filepath.Join(dir, "artifacts"))
			return dir, ""
		}, 1, "artifacts/explodepath_test: a directory in a test's directory (results one level deeper?)"},
		{"a result stored unpacked", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			os.Mkdir(filepath.Join(night, "havlak8_quick_test"), 0o755)
			os.WriteFile(filepath.Join(night, "havlak8_quick_test", result.FileName), []byte("{}"), 0o644)
			return night, ""
		}, 1, "havlak8_quick_test: a result stored unpacked"},
		{"a symbolic link to another night's test", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			os.Symlink(filepath.Join(makeNight(t, nightSpec{allocs: 1}), "havlak6_quick_test"), filepath.Join(night, "havlak8_quick_test"))
			return night, ""
		}, 1, "havlak8_quick_test: a symbolic link"},
		{"a test named report", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			os.Rename(filepath.Join(night, "havlak6_quick_test"), filepath.Join(night, nightdir.Report))
			return night, ""
		}, 1, `report/outputs.zip: a test named "report": the nightly job writes its own report/ there`},
		{"the baseline is the night", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			return night, night
		}, 2, "are the same directory"},
		{"the baseline, through a symbolic link, is the night", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			link := filepath.Join(t.TempDir(), "baseline")
			os.Symlink(night, link)
			return night, link
		}, 2, "are the same directory"},
		{"the baseline is inside the night", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			return night, filepath.Join(night, "baseline")
		}, 2, "is inside the night"},
		{"the night is inside the baseline", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			return night, filepath.Dir(night)
		}, 2, "is inside --baseline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			night, baseline := c.night(t)
			if baseline == "" {
				baseline = filepath.Join(t.TempDir(), "baseline")
				if err := os.Rename(makeNight(t, nightSpec{allocs: 1}), baseline); err != nil {
					t.Fatal(err)
				}
			}
			nightBefore, baselineBefore := snapshot(t, night), snapshot(t, baseline)
			// The commands are never run: the night is refused first.
			status, log := gateNight(t, baseline, night)
			log = strings.ReplaceAll(log, night+"/", "")
			if status != c.status || !strings.Contains(log, c.says) {
				t.Errorf("exit status %d, want %d saying %q:\n%s", status, c.status, c.says, log)
			}
			if snapshot(t, night) != nightBefore || snapshot(t, baseline) != baselineBefore {
				t.Errorf("the night or the baseline changed")
			}
		})
	}
	if status, log := gateNight(t, good, good); status != 2 {
		t.Errorf("gate --baseline NIGHT NIGHT: exit status %d, want 2:\n%s", status, log)
	}
}

// A baseline the lab did not write (a file, a directory of other things,
// a night with something else beside its results) is refused before
// anything is written, naming where it was named; it and the night are as
// they were. One from before the lab marked its baselines, holding a
// night's results only, is adopted, and the log says so.
func TestGateRefusesABaselineNotTheLabs(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	for _, c := range []struct {
		name string
		// baseline makes what is at the baseline's path, path.
		baseline func(t *testing.T, path string)
		// env names the baseline by $HAVLAK_LAB_BASELINE, not --baseline.
		env  bool
		says string
	}{
		{"a file", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("precious"), 0o644)
		}, false, "--baseline BASELINE: not a directory but a regular file: refused, nothing written"},
		{"a file named by the variable", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("precious"), 0o644)
		}, true, "$HAVLAK_LAB_BASELINE BASELINE: not a directory but a regular file: refused, nothing written"},
		{"a home directory", func(t *testing.T, path string) {
			os.MkdirAll(filepath.Join(path, "Documents"), 0o755)
			os.WriteFile(filepath.Join(path, "Documents", "notes.txt"), []byte("precious"), 0o644)
		}, false, "--baseline BASELINE: a directory the lab did not write (no .havlak-lab in it, and it is not a nightly-baseline: " +
			"BASELINE: not a night's results"},
		{"a night with a file beside its results", func(t *testing.T, path string) {
			os.Rename(makeNight(t, nightSpec{allocs: 1}), path)
			os.WriteFile(filepath.Join(path, "notes.txt"), []byte("precious"), 0o644)
		}, false, "BASELINE/notes.txt: not a test's directory"},
		{"a night's artifacts, with its report", func(t *testing.T, path string) {
			os.Rename(makeNight(t, nightSpec{allocs: 1}), path)
			os.MkdirAll(filepath.Join(path, nightdir.Report), 0o755)
			os.WriteFile(filepath.Join(path, nightdir.Report, "report.md"), []byte("precious"), 0o644)
		}, false, "BASELINE/report is not a test's results"},
		{"a report's directory", func(t *testing.T, path string) {
			os.Mkdir(path, 0o755)
			labdir.Mark(path, labdir.Report)
		}, false, "the lab's report directory, not a nightly-baseline one"},
		{"a file where a promotion puts the old baseline", func(t *testing.T, path string) {
			os.Rename(makeNight(t, nightSpec{allocs: 1}), path)
			os.WriteFile(path+".old", []byte("precious"), 0o644)
		}, false, "--baseline's promotion's BASELINE.old: not a directory but a regular file"},
		// The lock file beside the baseline is the lab's or nothing: the
		// lock would write into another's file of its name.
		{"another's file where the baseline's lock goes", func(t *testing.T, path string) {
			os.Rename(makeNight(t, nightSpec{allocs: 1}), path)
			os.WriteFile(labdir.LockPath(path), []byte("precious"), 0o644)
		}, false, "--baseline BASELINE: its lock file BASELINE.lock: not the lab's nightly-baseline lock"},
		{"a directory where the baseline's lock goes", func(t *testing.T, path string) {
			os.MkdirAll(filepath.Join(labdir.LockPath(path), "notes"), 0o755)
		}, false, "--baseline BASELINE: its lock file BASELINE.lock: not a regular file but a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			night := makeNight(t, nightSpec{allocs: 1})
			parent := t.TempDir()
			baseline := filepath.Join(parent, "baseline")
			c.baseline(t, baseline)
			nightBefore, parentBefore := snapshot(t, night), snapshot(t, parent)
			status, log := gateNight(t, baseline, night, func(o *GateOptions) {
				if c.env {
					t.Setenv("HAVLAK_LAB_BASELINE", o.Baseline)
					o.Baseline = ""
				}
			})
			log = strings.ReplaceAll(log, baseline, "BASELINE")
			if status != 2 || !strings.Contains(log, c.says) {
				t.Errorf("exit status %d, want 2 saying %q:\n%s", status, c.says, log)
			}
			if snapshot(t, night) != nightBefore || snapshot(t, parent) != parentBefore {
				t.Errorf("the night or the baseline changed")
			}
		})
	}

	// Adopted: the gate goes on, and judges the night against it.
	baseline := filepath.Join(t.TempDir(), "baseline")
	os.Rename(makeNight(t, nightSpec{allocs: 1}), baseline)
	status, log := gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1}))
	if want := "The baseline " + baseline + " has no .havlak-lab: adopted"; status != 0 || !strings.Contains(log, want) ||
		!strings.Contains(log, "Baseline: "+baseline) {
		t.Errorf("an unmarked baseline of a night's results: exit status %d, want 0 saying %q:\n%s", status, want, log)
	}
	// An empty directory is no baseline yet.
	empty := t.TempDir()
	status, log = gateNight(t, empty, makeNight(t, nightSpec{allocs: 1}))
	if want := "No baseline yet (" + empty + ")"; status != 0 || !strings.Contains(log, want) {
		t.Errorf("an empty baseline: exit status %d, want 0 saying %q:\n%s", status, want, log)
	}
}

// gateOf is a night's gate with a baseline, for its promotion, holding
// the baseline's lock until the test ends.
func gateOf(t *testing.T, artifacts, baseline string) *night {
	t.Helper()
	n := &night{artifacts: artifacts, baseline: baseline, stdout: io.Discard, stderr: io.Discard}
	if err := n.lockBaseline(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.lock.Release() })
	return n
}

func foundOf(t *testing.T, dir string) []result.Found {
	t.Helper()
	n, err := result.OpenNight(dir, nightdir.Layout())
	if err != nil {
		t.Fatal(err)
	}
	found, err := readNight(n)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestPromote(t *testing.T) {
	needFixtures(t)
	baseline := filepath.Join(t.TempDir(), "baseline")
	if err := os.Rename(makeNight(t, nightSpec{allocs: 1}), baseline); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, baseline)
	leftovers := func() []string {
		names, _ := filepath.Glob(filepath.Join(filepath.Dir(baseline), "*baseline*"))
		var left []string
		for _, name := range names {
			if name != baseline && name != labdir.LockPath(baseline) {
				left = append(left, name)
			}
		}
		return left
	}

	// Nothing to promote: the baseline stays (it was left at base.old
	// with none in its place).
	night := t.TempDir()
	n := gateOf(t, night, baseline)
	if err := n.promote(nil); err == nil || !strings.Contains(err.Error(), "the baseline stays") ||
		snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("promoting no results: %v, baseline kept %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}

	// A result changed after it was judged: the copy is not what was
	// judged, and the baseline stays.
	night = makeNight(t, nightSpec{allocs: 2})
	found := foundOf(t, night)
	other := makeNight(t, nightSpec{allocs: 2, slow: "havlak6"})
	data, _ := os.ReadFile(filepath.Join(other, "havlak6_quick_test", result.ZipName))
	os.WriteFile(filepath.Join(night, "havlak6_quick_test", result.ZipName), data, 0o644)
	n.artifacts = night
	if err := n.promote(found); err == nil || !strings.Contains(err.Error(), "not the result judged") ||
		snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("a result changed since judged: %v, baseline kept %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}

	// A good night: exactly its results, read back, and the lab's marker.
	// What a promotion killed before its renames left (its new copy, a zip
	// half-written: 92 MB of a zip of a million entries, before entries
	// were bounded), the next one removes, and says so.
	night = makeNight(t, nightSpec{allocs: 2})
	os.MkdirAll(filepath.Join(night, "lint_test"), 0o755)
	killed := filepath.Join(filepath.Dir(baseline), ".baseline.new-1234567")
	os.MkdirAll(filepath.Join(killed, "havlak6_quick_test"), 0o755)
	os.WriteFile(filepath.Join(killed, "havlak6_quick_test", ".outputs.zip.tmp-99"), []byte("half"), 0o644)
	// Without the baseline's lock, nothing is removed: its writer may
	// be alive.
	unlocked := *n
	unlocked.lock = nil
	if err := unlocked.recoverBaseline(); err == nil || !isDir(killed) {
		t.Errorf("recovering the baseline without its lock: %v, its leftover kept %v; want a refusal, kept", err, isDir(killed))
	}
	var out bytes.Buffer
	n.artifacts, n.stdout = night, &out
	if err := n.promote(foundOf(t, night)); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("%s %x\n", labdir.Marker, "havlak-lab "+labdir.Baseline+"\n")
	if snapshot(t, baseline) != marker+snapshot(t, night) || len(leftovers()) > 0 {
		t.Errorf("the baseline is not the night's results and the marker, or left %q:\n%s\nwant\n%s", leftovers(), snapshot(t, baseline), marker+snapshot(t, night))
	}
	if want := "Removed " + killed + ", which an interrupted promotion left behind."; !strings.Contains(out.String(), want) {
		t.Errorf("the log says %q, want %q", out.String(), want)
	}
	if s, err := labdir.Check("--baseline", baseline, labdir.Baseline, nil); s != labdir.Marked || err != nil {
		t.Errorf("the promoted baseline: %v, %v; want it marked", s, err)
	}

	// A promotion killed between its renames: the next gate puts the old
	// baseline back before it reads it; killed after them, it removes
	// the old one.
	before = snapshot(t, baseline)
	os.Rename(baseline, baseline+".old")
	out.Reset()
	if err := n.recoverBaseline(); err != nil || snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("recovering the baseline: %v, restored %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}
	os.Mkdir(baseline+".old", 0o755)
	if err := n.recoverBaseline(); err != nil || snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("removing an old baseline: %v, kept %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}
}
