package night

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/runrecord"
)

// The fault matrix of the promotion (docs/records/faults.md): a gate
// whose disk fills at each write, sync and rename of its promotion in
// turn, and a gate killed (SIGKILL) at each of them. Each row logs its
// figures ("fault matrix:" lines), which the record copies: its trials,
// the nights lost (a baseline that is not one whole night, the old or the
// new), the runs misreported (a record that says promoted when the
// baseline is not its night, or not promoted when it is), and what the
// person was told.

// A faultTrial is a gate, promoting into its own directory (the
// baseline's parent), whose promotion's fault points act decides: it is
// called with each point's index among them, from 0, and its name.
type faultTrial struct {
	dir  string
	act  func(i int, step string) error
	seen int
}

// promotionFaults is the test's fault point for its trials, each known by
// its baseline's directory: a step outside all of them is none of a
// promotion's, and passes.
type promotionFaults struct {
	mu     sync.Mutex
	trials []*faultTrial
}

// injectPromotionFaults sets the fault point of t's trials; a step none of
// theirs goes to otherwise, when not nil.
func injectPromotionFaults(t *testing.T, otherwise func(atomicfile.FaultPoint) error) *promotionFaults {
	pf := &promotionFaults{}
	atomicfile.InjectFaultsForTest(t, func(p atomicfile.FaultPoint) error {
		pf.mu.Lock()
		var trial *faultTrial
		for _, tr := range pf.trials {
			if p.Path == tr.dir || strings.HasPrefix(p.Path, tr.dir+"/") {
				trial = tr
			}
		}
		if trial == nil {
			pf.mu.Unlock()
			if otherwise != nil {
				return otherwise(p)
			}
			return nil
		}
		i := trial.seen
		trial.seen++
		pf.mu.Unlock()
		return trial.act(i, stepName(trial.dir, p))
	})
	return pf
}

// add adds a trial of the baseline at baseline.
func (pf *promotionFaults) add(baseline string, act func(i int, step string) error) {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	pf.trials = append(pf.trials, &faultTrial{dir: filepath.Dir(baseline), act: act})
}

// stepName names the fault point p of a promotion into dir, the same in
// every trial: its step and its path in dir.
func stepName(dir string, p atomicfile.FaultPoint) string {
	rel, err := filepath.Rel(dir, p.Path)
	if err != nil {
		rel = p.Path
	}
	return string(p.Step) + " " + tempName.ReplaceAllString(rel, ".$1-N")
}

// A faultSetup is a baseline promoted once, and a night to promote over
// it, each copied afresh for every trial.
type faultSetup struct {
	baseline, night string
	// before is the baseline's snapshot; after, that of a baseline that
	// is the night, whole.
	before, after string
}

func newFaultSetup(t *testing.T) faultSetup {
	t.Helper()
	s := faultSetup{baseline: firstPromotedBaseline(t), night: makeNight(t, nightSpec{allocs: 1, started: nightStart(1)})}
	s.before, s.after = snapshot(t, s.baseline), baselineOf(t, s.night)
	return s
}

// trial copies the baseline and the night into directories of their own
// and returns their paths.
func (s faultSetup) trial(t *testing.T) (baseline, night string) {
	t.Helper()
	baseline, night = filepath.Join(t.TempDir(), "baseline"), filepath.Join(t.TempDir(), "night")
	for from, to := range map[string]string{s.baseline: baseline, s.night: night} {
		if err := os.CopyFS(to, os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
	}
	return baseline, night
}

// promotionSteps are the fault points of a promotion of the setup's night,
// by name, in order, as a gate that fails none of them passes them.
func (s faultSetup) promotionSteps(t *testing.T, pf *promotionFaults) []string {
	t.Helper()
	baseline, night := s.trial(t)
	var steps []string
	pf.add(baseline, func(_ int, step string) error {
		steps = append(steps, step)
		return nil
	})
	if status, log := gateNight(t, baseline, night); status != 0 {
		t.Fatalf("the night without faults: exit status %d:\n%s", status, log)
	}
	if len(steps) == 0 {
		t.Fatal("the promotion passed no fault point")
	}
	return steps
}

// judgeBaseline is what is at baseline after a trial: the night before
// (old), the trial's night (new), or the old one aside where a promotion
// stopped between its renames left it, which the next gate puts back
// (old, aside); "lost" for anything else.
func (s faultSetup) judgeBaseline(t *testing.T, baseline string) string {
	t.Helper()
	switch snapshot(t, baseline) {
	case s.before:
		return "old"
	case s.after:
		return "new"
	case "":
		if _, err := os.Lstat(baseline); os.IsNotExist(err) && snapshot(t, baseline+".old") == s.before {
			return "old, aside"
		}
	}
	return "lost"
}

// misreported tells whether the trial's run record (nil: none written)
// says other than what the baseline holds, now judged so.
func misreported(r *runrecord.Record, now string) bool {
	return r != nil && r.Promoted != (now == "new")
}

// readRun is the run record of the night at artifacts, nil when none was
// written.
func readRun(t *testing.T, artifacts string) *runrecord.Record {
	t.Helper()
	path := filepath.Join(artifacts, nightdir.Run)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	r, err := runrecord.Read(path)
	if err != nil {
		t.Fatalf("the trial's run record: %v", err)
	}
	return r
}

// nextGate gates another night after a trial, on its baseline: it must
// remove whatever the trial left, promote its night and say so truly. It
// returns what it said of the trial's leftovers.
func nextGate(t *testing.T, what, baseline string) string {
	t.Helper()
	night := makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})
	status, log := gateNight(t, baseline, night)
	checkPromoted(t, what+": the next gate", gateEnd{status, log}, night, false)
	if !strings.Contains(log, "Baseline: "+baseline+"\n") {
		t.Errorf("%s: the next gate did not judge its night against the baseline:\n%s", what, log)
	}
	checkBaselineIs(t, what+": after the next gate", baseline, night)
	var said []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "an interrupted promotion left") {
			said = append(said, line)
		}
	}
	return strings.Join(said, " ")
}

// leftBeside is what a trial left in its baseline's directory besides the
// baseline, its lock and the old baseline aside: temporaries of any name.
func leftBeside(t *testing.T, baseline string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(baseline))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		switch base := filepath.Base(baseline); e.Name() {
		case base, base + ".lock", base + ".old":
		default:
			left = append(left, e.Name())
		}
	}
	return left
}

// rowFigures are one row's figures, logged for the record.
type rowFigures struct {
	mu                       sync.Mutex
	trials, lost, misreports int
	told                     map[string]string // by trial's kind, its first trial's
	// kinds counts the trials of each kind; first is the first trial of
	// each.
	kinds, first map[string]int
}

func (f *rowFigures) count(k int, lost, misreported bool, kind, said string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trials++
	if lost {
		f.lost++
	}
	if misreported {
		f.misreports++
	}
	if f.told == nil {
		f.told, f.kinds, f.first = map[string]string{}, map[string]int{}, map[string]int{}
	}
	f.kinds[kind]++
	if first, ok := f.first[kind]; !ok || k < first {
		f.told[kind], f.first[kind] = said, k
	}
}

// log logs the row's figures, the record's "fault matrix:" lines.
func (f *rowFigures) log(t *testing.T, row string) {
	t.Logf("fault matrix: %s: trials %d, lost %d, misreported %d", row, f.trials, f.lost, f.misreports)
	kinds := slices.Sorted(maps.Keys(f.told))
	for _, kind := range kinds {
		t.Logf("fault matrix: %s: %s (%d trials), told: %s", row, kind, f.kinds[kind], f.told[kind])
	}
}

// tempName is a temporary's digits: they differ each time.
var tempName = regexp.MustCompile(`\.(new|tmp)-[0-9]+`)

// told is what a trial's log said, the same in every trial: the
// baseline's and the night's directories named so, the temporaries'
// digits N.
func told(line, baseline, night string) string {
	line = strings.ReplaceAll(line, filepath.Dir(baseline), "BASELINE_DIR")
	line = strings.ReplaceAll(line, night+"/", "NIGHT/")
	return tempName.ReplaceAllString(line, ".$1-N")
}

// swapOrKind is how the row counts a trial of the step: by its name, a
// step of the swap (which differ in what they leave); by its kind, any
// other.
func swapOrKind(step string) string {
	switch step {
	case "rename baseline.old", "rename baseline", "sync directory .":
		return "at the swap's " + step
	}
	return "at " + stepKind(step)
}

// stepKind is a step's kind, its name without its path.
func stepKind(step string) string {
	for _, s := range []atomicfile.Step{atomicfile.StepSyncDir, atomicfile.StepCreate, atomicfile.StepWrite, atomicfile.StepSync, atomicfile.StepRename} {
		if strings.HasPrefix(step, string(s)+" ") {
			return string(s)
		}
	}
	return step
}

// A disk full at each write, sync and rename of a promotion in turn: the
// gate exits 1 naming it ("no space left on device") and saying the
// baseline stays, the baseline is byte-identical to before, nothing is
// left beside it, the run's record says the night failed and was not
// promoted, and the next gate promotes its night.
func TestGateNoSpaceAtEachStepOfThePromotion(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	pf := injectPromotionFaults(t, nil)
	s := newFaultSetup(t)
	steps := s.promotionSteps(t, pf)
	for k, step := range steps {
		t.Logf("fault matrix: the promotion's fault point %d: %s", k, step)
	}
	var figures rowFigures
	t.Run("steps", func(t *testing.T) {
		for k, step := range steps {
			t.Run(strconv.Itoa(k), func(t *testing.T) {
				t.Parallel()
				baseline, night := s.trial(t)
				pf.add(baseline, func(i int, at string) error {
					if i != k {
						return nil
					}
					if at != step {
						t.Errorf("fault point %d is %q, want %q as without faults", i, at, step)
					}
					return syscall.ENOSPC
				})
				status, log := gateNight(t, baseline, night)
				now, r := s.judgeBaseline(t, baseline), readRun(t, night)
				said := ""
				for _, line := range strings.Split(log, "\n") {
					if strings.HasPrefix(line, "nightly: ") && strings.Contains(line, "no space left on device") {
						said = line
					}
				}
				what := fmt.Sprintf("no space at %s", step)
				if status != 1 || said == "" || !strings.HasSuffix(said, "the baseline stays") {
					t.Errorf("%s: exit status %d, want 1 naming the full disk and that the baseline stays:\n%s", what, status, log)
				}
				if now != "old" {
					t.Errorf("%s: the baseline is %s, want the old one, byte-identical", what, now)
				}
				if r == nil || r.Promoted || r.Status != runrecord.Failed || r.Baseline != "the promotion failed: the baseline stays" {
					t.Errorf("%s: its record %+v, want failed, not promoted, the promotion failed", what, r)
				}
				if left := leftBeside(t, baseline); len(left) > 0 || len(promotions(t, baseline)) > 0 {
					t.Errorf("%s: left beside the baseline: %q", what, append(left, promotions(t, baseline)...))
				}
				nextGate(t, what, baseline)
				figures.count(k, now != "old", r == nil || misreported(r, now), swapOrKind(step), told(said, baseline, night))
			})
		}
	})
	figures.log(t, fmt.Sprintf("no space at each of the promotion's %d fault points", len(steps)))
}

// killedGateEnv carries a killed gate's trial to the test binary run as
// that gate (TestKilledGate): the step it stops at, its baseline, night
// and history.
const killedGateEnv = "HAVLAK_LAB_TEST_KILLED_GATE"

// beforeTheRecord is the step after the promotion's: the gate has
// promoted its night and is about to write the run's record.
const beforeTheRecord = "before the run's record"

// A gate killed (SIGKILL) at each fault point of its promotion, and once
// it has promoted, before it writes the run's record: the test binary
// runs itself as that gate (TestKilledGate), which stops there and says
// so; then the baseline is one whole night, the old or the new (or the
// old aside, between the renames), no run record says what is not true,
// and the next gate removes what the killed one left, puts the old
// baseline back when it must, and promotes its night.
func TestGateKilledAtEachStepOfThePromotion(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	pf := injectPromotionFaults(t, nil)
	s := newFaultSetup(t)
	steps := append(s.promotionSteps(t, pf), beforeTheRecord)
	var figures rowFigures
	t.Run("steps", func(t *testing.T) {
		for k, step := range steps {
			t.Run(strconv.Itoa(k), func(t *testing.T) {
				t.Parallel()
				baseline, night := s.trial(t)
				history := t.TempDir()
				stopped := killGateAt(t, k, baseline, night, history)
				if stopped != step {
					t.Fatalf("the killed gate stopped at %q, want %q", stopped, step)
				}
				what := fmt.Sprintf("killed at %s", step)
				now, r := s.judgeBaseline(t, baseline), readRun(t, night)
				if now == "lost" {
					t.Errorf("%s: the baseline is not one whole night, the old or the new", what)
				}
				if misreported(r, now) {
					t.Errorf("%s: its record %+v, with the baseline %s", what, r, now)
				}
				said := nextGate(t, what, baseline)
				if said == "" {
					said = "(nothing)"
				}
				figures.count(k, now == "lost", misreported(r, now), "baseline "+now+", the next gate", told(said, baseline, night))
			})
		}
	})
	figures.log(t, fmt.Sprintf("killed at each of the promotion's %d fault points and before the run's record", len(steps)-1))
}

// killGateAt runs the test binary as a gate of night against baseline
// that stops at its promotion's fault point k (or, at the last, before the
// run's record), kills it there with SIGKILL, and returns the step it
// stopped at.
func killGateAt(t *testing.T, k int, baseline, night, history string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledGate$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d\n%s\n%s\n%s", killedGateEnv, k, baseline, night, history))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// The gate waits on its stdin once stopped: it stays open until the
	// gate is killed.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var said []string
	for lines.Scan() {
		if step, ok := strings.CutPrefix(lines.Text(), "stopped at: "); ok {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			return step
		}
		said = append(said, lines.Text())
	}
	err = cmd.Wait()
	t.Fatalf("the gate to kill at step %d ended before it stopped (%v):\n%s\n%s", k, err, strings.Join(said, "\n"), stderr.String())
	return ""
}

// TestKilledGate is the gate TestGateKilledAtEachStepOfThePromotion kills:
// run by it alone.
func TestKilledGate(t *testing.T) {
	trial := os.Getenv(killedGateEnv)
	if trial == "" {
		t.Skip("the gate that TestGateKilledAtEachStepOfThePromotion runs and kills")
	}
	fields := strings.Split(trial, "\n")
	k, _ := strconv.Atoi(fields[0])
	baseline, night, history := fields[1], fields[2], fields[3]
	stop := func(step string) {
		fmt.Printf("stopped at: %s\n", step)
		io.Copy(io.Discard, os.Stdin) // until killed
		os.Exit(3)
	}
	record := filepath.Join(night, nightdir.Run)
	pf := injectPromotionFaults(t, func(p atomicfile.FaultPoint) error {
		if p.Path == record {
			stop(beforeTheRecord)
		}
		return nil
	})
	pf.add(baseline, func(i int, step string) error {
		if i == k {
			stop(step)
		}
		return nil
	})
	gateNight(t, baseline, night, func(o *GateOptions) { o.HistoryDir = history })
	t.Fatalf("the gate ended without stopping at step %d", k)
}
