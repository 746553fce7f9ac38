package night

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"havlak-lab/internal/labdir"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
)

// The tests of one writer per baseline (labdir.TakeLock, lockBaseline)
// force the interleavings of two gates instead of hoping for them: a gate
// paused before its promotion's swap (GateOptions.beforeSwap) holds the
// baseline while a second one starts.

// A gateEnd is how a gate ended: its exit status and its log.
type gateEnd struct {
	status int
	log    string
}

// startGate gates artifacts against baseline in another goroutine, as
// gateNight does, and returns what receives how it ended.
func startGate(t *testing.T, baseline, artifacts string, with ...func(o *GateOptions)) <-chan gateEnd {
	t.Helper()
	ended := make(chan gateEnd, 1)
	go func() {
		status, log := gateNight(t, baseline, artifacts, with...)
		ended <- gateEnd{status, log}
	}()
	return ended
}

// pausedGate starts a gate of artifacts against baseline that pauses
// before its promotion's swap, holding the baseline's lock, and returns
// once it is there, with what resumes it and returns how it ended.
func pausedGate(t *testing.T, baseline, artifacts string) func() gateEnd {
	t.Helper()
	paused, resume := make(chan struct{}), make(chan struct{})
	ended := startGate(t, baseline, artifacts, func(o *GateOptions) {
		o.beforeSwap = func() { close(paused); <-resume }
	})
	select {
	case <-paused:
	case end := <-ended:
		t.Fatalf("the first gate ended before its promotion: exit status %d:\n%s", end.status, end.log)
	}
	return func() gateEnd {
		close(resume)
		return <-ended
	}
}

// waitingGate starts a gate of artifacts against baseline that waits up
// to an hour for the baseline's lock, and returns once its log says it
// waits, with what receives how it ended.
func waitingGate(t *testing.T, baseline, artifacts string) <-chan gateEnd {
	t.Helper()
	waits := make(chan struct{})
	ended := startGate(t, baseline, artifacts, func(o *GateOptions) {
		o.LockWait = time.Hour
		o.Stdout = &watchWriter{w: o.Stdout, want: "(--lock-wait) for its lock", seen: waits}
	})
	select {
	case <-waits:
	case end := <-ended:
		t.Fatalf("the second gate ended without waiting: exit status %d:\n%s", end.status, end.log)
	}
	return ended
}

// A watchWriter writes to w, and closes seen once what it wrote holds
// want.
type watchWriter struct {
	w       io.Writer
	want    string
	seen    chan struct{}
	written strings.Builder
}

func (ww *watchWriter) Write(p []byte) (int, error) {
	if ww.written.WriteString(string(p)); ww.seen != nil && strings.Contains(ww.written.String(), ww.want) {
		close(ww.seen)
		ww.seen = nil
	}
	return ww.w.Write(p)
}

// firstPromotedBaseline makes a baseline of a night, promoted by a gate, and
// returns its path.
func firstPromotedBaseline(t *testing.T) string {
	t.Helper()
	baseline := filepath.Join(t.TempDir(), "baseline")
	if status, log := gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1, started: nightStart(0)})); status != 0 {
		t.Fatalf("the first night: exit status %d:\n%s", status, log)
	}
	return baseline
}

// nightStart is when the results of the test's night i started: each
// night's results differ.
func nightStart(i int) time.Time {
	return time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
}

// checkBaselineIs checks that the baseline is exactly the results of the
// night at artifacts, whole, and the lab's marker, with nothing left at
// a promotion's names beside it.
func checkBaselineIs(t *testing.T, what, baseline, artifacts string) {
	t.Helper()
	if got, want := snapshot(t, baseline), baselineOf(t, artifacts); got != want {
		t.Errorf("%s: the baseline is not the night %s, whole:\n%s\nwant\n%s", what, artifacts, got, want)
	}
	if left := promotions(t, baseline); len(left) > 0 {
		t.Errorf("%s: left beside the baseline: %q", what, left)
	}
}

// baselineOf is the snapshot of a baseline that is the night at
// artifacts, whole: its results and the lab's marker.
func baselineOf(t *testing.T, artifacts string) string {
	t.Helper()
	var want strings.Builder
	fmt.Fprintf(&want, "%s %x\n", labdir.Marker, "havlak-lab "+labdir.Baseline+"\n")
	for _, line := range strings.SplitAfter(snapshot(t, artifacts), "\n") {
		if path, _, _ := strings.Cut(line, " "); strings.HasSuffix(path, "/"+result.ZipName) {
			want.WriteString(line)
		}
	}
	return want.String()
}

// promotions is what is beside the baseline at a promotion's names
// (labdir.Leftover).
func promotions(t *testing.T, baseline string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Dir(baseline))
	var found []string
	for _, e := range entries {
		if labdir.Leftover(filepath.Base(baseline), e.Name()) || e.Name() == filepath.Base(baseline)+".old" {
			found = append(found, e.Name())
		}
	}
	return found
}

// hostname is the machine's name, as a gate names it in the baseline's
// lock.
func hostname(t *testing.T) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return host
}

// runOf is the run's record of the night at artifacts.
func runOf(t *testing.T, artifacts string) *runrecord.Record {
	t.Helper()
	r, err := runrecord.Read(filepath.Join(artifacts, nightdir.Run))
	if err != nil {
		t.Fatalf("the night's run record: %v", err)
	}
	return r
}

// checkPromoted checks that a gate ended well and promoted its night, as
// its log and its record say; beside another gate, it checks that the
// gate removed nothing as a killed promotion's.
func checkPromoted(t *testing.T, what string, end gateEnd, artifacts string, beside bool) {
	t.Helper()
	if end.status != 0 || beside && strings.Contains(end.log, "an interrupted promotion left") {
		t.Errorf("%s: exit status %d, want 0 and nothing removed as a killed promotion's:\n%s", what, end.status, end.log)
	}
	if r := runOf(t, artifacts); !r.Promoted || r.Status != runrecord.Passed || r.Baseline != "this night became the baseline" {
		t.Errorf("%s: its record: %+v; want passed and promoted", what, r)
	}
}

// checkRefusedLock checks that a gate was refused the baseline's lock,
// naming the lock file and the gate that held it (gating holder; or, when
// unnamed is true, a holder that had taken the lock an instant before and
// not yet written its name into it), and that its record says so and not
// that it was promoted.
func checkRefusedLock(t *testing.T, what string, end gateEnd, artifacts, baseline, holder string, unnamed bool) {
	t.Helper()
	named := fmt.Sprintf("nightly: the baseline %s: another gate (pid %d on %s, gating %s since ", baseline, os.Getpid(), hostname(t), holder)
	anonymous := fmt.Sprintf("nightly: the baseline %s: another gate (its lock file does not say which)", baseline)
	said := strings.Contains(end.log, named) || unnamed && strings.Contains(end.log, anonymous)
	if end.status != 1 || !said || !strings.Contains(end.log, " held its lock "+labdir.LockPath(baseline)+" for all of --lock-wait") {
		t.Errorf("%s: exit status %d, want 1 saying %q:\n%s", what, end.status, named, end.log)
	}
	r := runOf(t, artifacts)
	if r.Promoted || r.Status != runrecord.Failed || r.Results != 0 || !slices.Contains(r.Reasons, refusedLocked+" (see the log)") {
		t.Errorf("%s: its record: %+v; want failed, not promoted, for the lock", what, r)
	}
}

// A second gate of a baseline waits while the first holds it (paused
// before its promotion's swap, its new baseline beside the old one), and
// says whose it is; it never takes the first's promotion for a killed
// one. Once the first promotes and ends, the second judges the first's
// night and promotes its own. Both are true to their records.
func TestGateWaitsForTheBaselinesLock(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	baseline := firstPromotedBaseline(t)
	first, second := makeNight(t, nightSpec{allocs: 1, started: nightStart(1)}), makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})

	resume := pausedGate(t, baseline, first)
	inFlight := promotions(t, baseline)
	ended := waitingGate(t, baseline, second)
	if got := promotions(t, baseline); len(inFlight) != 1 || !slices.Equal(got, inFlight) {
		t.Errorf("the first gate's promotion in flight %q; with the second gate waiting: %q, want it kept", inFlight, got)
	}
	firstEnd := resume()
	secondEnd := <-ended
	checkPromoted(t, "the first gate", firstEnd, first, true)
	checkPromoted(t, "the second gate", secondEnd, second, true)
	waits := fmt.Sprintf("The baseline %s is another gate's (pid %d on %s, gating %s since ", baseline, os.Getpid(), hostname(t), first)
	for _, want := range []string{waits, "this gate waits up to 1h0m0s (--lock-wait) for its lock " + labdir.LockPath(baseline),
		"The baseline's lock is this gate's, after waiting ", "Baseline: " + baseline} {
		if !strings.Contains(secondEnd.log, want) {
			t.Errorf("the second gate's log does not say %q:\n%s", want, secondEnd.log)
		}
	}
	checkBaselineIs(t, "after both gates", baseline, second)
}

// A second gate that waits all of --lock-wait while the first holds the
// baseline is refused, naming the first, and its record says so; the
// first's promotion goes on untouched, and the baseline is the first's
// night, whole.
func TestGateRefusedTheBaselinesLock(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	baseline := firstPromotedBaseline(t)
	before := snapshot(t, baseline)
	first, second := makeNight(t, nightSpec{allocs: 1, started: nightStart(1)}), makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})

	resume := pausedGate(t, baseline, first)
	inFlight := promotions(t, baseline)
	status, log := gateNight(t, baseline, second, func(o *GateOptions) { o.LockWait = 20 * time.Millisecond })
	checkRefusedLock(t, "the second gate", gateEnd{status, log}, second, baseline, first, false)
	if !strings.Contains(log, "The baseline "+baseline+" is another gate's (") {
		t.Errorf("the second gate's log does not say whose the baseline is while it waits:\n%s", log)
	}
	if got := promotions(t, baseline); len(inFlight) != 1 || !slices.Equal(got, inFlight) || snapshot(t, baseline) != before {
		t.Errorf("the first gate's promotion in flight %q; after the second gate's refusal: %q, the baseline kept %v; want both kept",
			inFlight, got, snapshot(t, baseline) == before)
	}
	checkPromoted(t, "the first gate", resume(), first, true)
	checkBaselineIs(t, "after both gates", baseline, first)
}

// What a gate killed while it promoted leaves beside the baseline (its
// new copy, a zip half-written, the old baseline aside) stays while its
// lock is held: the next gate is refused, and removes nothing. Once the
// kernel has released it, as it does when its holder dies
// (labdir's TestLockOfAKilledWriterIsFree), the next gate takes the lock
// at once, removes what was left, and promotes its night.
func TestGateRemovesAKilledGatesLeftovers(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	baseline := firstPromotedBaseline(t)
	killed, err := labdir.TakeLock(baseline, labdir.Baseline, "a gate about to be killed", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer killed.Release()
	copied := filepath.Join(filepath.Dir(baseline), ".baseline.new-77")
	os.MkdirAll(filepath.Join(copied, "havlak6_quick_test"), 0o755)
	os.WriteFile(filepath.Join(copied, "havlak6_quick_test", ".outputs.zip.tmp-1"), []byte("half"), 0o644)
	os.Mkdir(baseline+".old", 0o755)
	labdir.Mark(baseline+".old", labdir.Baseline)
	left := promotions(t, baseline)

	night := makeNight(t, nightSpec{allocs: 1, started: nightStart(1)})
	status, log := gateNight(t, baseline, night)
	if !strings.Contains(log, "another gate (a gate about to be killed) held its lock") || status != 1 {
		t.Errorf("a gate while the killed one's lock is held: exit status %d, want 1, refused naming the holder:\n%s", status, log)
	}
	if got := promotions(t, baseline); !slices.Equal(got, left) {
		t.Errorf("left beside the baseline %q; after a gate refused the lock: %q, want them kept", left, got)
	}

	killed.Release()
	night = makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})
	status, log = gateNight(t, baseline, night)
	checkPromoted(t, "the gate after the killed one", gateEnd{status, log}, night, false)
	if want := "Removed " + copied + ", which an interrupted promotion left behind."; !strings.Contains(log, want) {
		t.Errorf("the log does not say %q:\n%s", want, log)
	}
	checkBaselineIs(t, "after the killed gate's leftovers", baseline, night)
}

// Two gates started at once on one baseline, ten times over: each good
// night ends promoted, or refused the lock by name when its gate does not
// wait (every other time); the baseline is always one night, whole: the
// last promoted; every record is true.
func TestGatesAtOnce(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	baseline := firstPromotedBaseline(t)
	refusals, lost, misreported := 0, 0, 0
	for i := range 10 {
		wait := time.Duration(0)
		if i%2 == 1 {
			wait = time.Hour
		}
		nights := []string{makeNight(t, nightSpec{allocs: 1, started: nightStart(2*i + 1)}),
			makeNight(t, nightSpec{allocs: 1, started: nightStart(2*i + 2)})}
		start := make(chan struct{})
		ends := make([]gateEnd, len(nights))
		var wg sync.WaitGroup
		for k, night := range nights {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ends[k].status, ends[k].log = gateNight(t, baseline, night, func(o *GateOptions) { o.LockWait = wait })
			}()
		}
		close(start)
		wg.Wait()

		var last string
		var lastFinished time.Time
		for k, night := range nights {
			what := fmt.Sprintf("round %d (--lock-wait %s), gate %d", i, wait, k)
			if runOf(t, night).Promoted != (ends[k].status == 0) {
				misreported++
			}
			if ends[k].status != 0 {
				refusals++
				// Refused the instant the other took the lock, it may find
				// the lock file without the other's name yet.
				checkRefusedLock(t, what, ends[k], night, baseline, nights[1-k], true)
				if wait > 0 {
					t.Errorf("%s: refused, waiting an hour", what)
				}
				continue
			}
			checkPromoted(t, what, ends[k], night, true)
			if r := runOf(t, night); r.Finished.After(lastFinished) {
				last, lastFinished = night, r.Finished
			}
		}
		if last == "" {
			t.Fatalf("round %d: neither night was promoted", i)
		}
		if snapshot(t, baseline) != baselineOf(t, last) {
			lost++
		}
		checkBaselineIs(t, fmt.Sprintf("round %d", i), baseline, last)
	}
	t.Logf("%d of the 10 gates that did not wait were refused the lock", refusals)
	t.Logf("fault matrix: two gates at once on one baseline: trials 10 (20 gates, 5 rounds refusing at once, 5 waiting), "+
		"lost %d, misreported %d, refused %d", lost, misreported, refusals)
}

// A night is promoted only when the baseline holds it, whole, read back
// after the swap: a new baseline changed between its check and the swap
// (by a writer that does not take the lock) is swapped out again, the
// old one put back, and the record says the night was not promoted.
func TestGatePromotesOnlyWhatTheBaselineHolds(t *testing.T) {
	needFixtures(t)
	t.Setenv("BUILDKITE", "")
	baseline := firstPromotedBaseline(t)
	before := snapshot(t, baseline)
	night, other := makeNight(t, nightSpec{allocs: 1, started: nightStart(1)}), makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})
	status, log := gateNight(t, baseline, night, func(o *GateOptions) {
		o.beforeSwap = func() {
			fresh := promotions(t, baseline)
			if len(fresh) != 1 {
				t.Errorf("beside the baseline before the swap: %q, want its new copy", fresh)
				return
			}
			zip := filepath.Join("havlak6_quick_test", result.ZipName)
			data, _ := os.ReadFile(filepath.Join(other, zip))
			os.WriteFile(filepath.Join(filepath.Dir(baseline), fresh[0], zip), data, 0o644)
		}
	})
	if want := "after the swap: " + filepath.Join(baseline, "havlak6_quick_test", result.ZipName) + ": not the result judged"; status != 1 || !strings.Contains(log, want) {
		t.Errorf("a new baseline changed before its swap: exit status %d, want 1 saying %q:\n%s", status, want, log)
	}
	if r := runOf(t, night); r.Promoted || r.Status != runrecord.Failed {
		t.Errorf("its record: %+v; want failed, not promoted", r)
	}
	if left := promotions(t, baseline); snapshot(t, baseline) != before || len(left) > 0 {
		t.Errorf("the baseline is the one before, put back: %v; left beside it: %q", snapshot(t, baseline) == before, left)
	}
}
