package night

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
			os.Rename(filepath.Join(night, "havlak6_quick_test"), filepath.Join(night, result.NightReport))
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
			status, log := gateNight(t, baseline, night, func(o *GateOptions) { o.Report = "false" })
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

// gateOf is a night's gate with a baseline, for its promotion.
func gateOf(t *testing.T, artifacts, baseline string) *night {
	t.Helper()
	return &night{artifacts: artifacts, baseline: baseline, stdout: io.Discard, stderr: io.Discard}
}

func foundOf(t *testing.T, dir string) []result.Found {
	t.Helper()
	n, err := result.OpenNight(dir)
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
			if name != baseline {
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
	n = gateOf(t, night, baseline)
	if err := n.promote(found); err == nil || !strings.Contains(err.Error(), "not the result judged") ||
		snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("a result changed since judged: %v, baseline kept %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}

	// A good night: exactly its results, read back.
	night = makeNight(t, nightSpec{allocs: 2})
	os.MkdirAll(filepath.Join(night, "lint_test"), 0o755)
	if err := gateOf(t, night, baseline).promote(foundOf(t, night)); err != nil {
		t.Fatal(err)
	}
	if snapshot(t, baseline) != snapshot(t, night) || len(leftovers()) > 0 {
		t.Errorf("the baseline is not the night's results, or left %q:\n%s\nwant\n%s", leftovers(), snapshot(t, baseline), snapshot(t, night))
	}

	// A promotion killed between its renames: the next gate puts the old
	// baseline back before it reads it; killed after them, it removes
	// the old one.
	before = snapshot(t, baseline)
	os.Rename(baseline, baseline+".old")
	var out bytes.Buffer
	n = gateOf(t, night, baseline)
	n.stdout = &out
	if err := n.recoverBaseline(); err != nil || snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("recovering the baseline: %v, restored %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}
	os.Mkdir(baseline+".old", 0o755)
	if err := n.recoverBaseline(); err != nil || snapshot(t, baseline) != before || len(leftovers()) > 0 {
		t.Errorf("removing an old baseline: %v, kept %v, left %q", err, snapshot(t, baseline) == before, leftovers())
	}
}
