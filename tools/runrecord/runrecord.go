// Package runrecord is the nightly job's record of one run
// (docs/nightly.md#the-runs-record), run.json: when it started and
// finished, its commit, the shards it expected and which reported, failed
// or never did (naming the benchmarks they left without a result), how
// many results it collected, the gate's verdict and exit status, and
// whether the night became the baseline; since version 2, whether change
// points were searched and what each benchmark that failed the night, or
// was not compared, failed on; since version 4, which benchmarks no gate
// counted or judged, and why their declarations say. The gate writes it
// (tools/nightly/night) into the night's artifacts and into the history's
// archive of nights, a night that archived nothing included; the
// dashboard's landing and alerts pages read it. Every reader and writer
// goes through here: Write checks and writes it whole or not at all, at
// Version; Read and Parse take OldestVersion and the versions between,
// and refuse another, an unknown field, more than MaxSize bytes or a
// record that does not check.
package runrecord

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"havlak-lab/internal/versionedjson"
	"havlak-lab/tools/verdict"
)

// FileName is the record's name in a night's directory (nightdir.Run).
const FileName = "run.json"

// Version is the version of run.json this package writes; it also reads
// OldestVersion and the versions between. Version 2 added ChangePoints
// and Benchmarks, which a record of version 1 lacks: its ChangePoints is
// "" (unknown), and its reasons are in words alone. Version 3 added
// LayoutUnknown, which an older record never names; version 4, NotMeasured,
// which an older record never names either.
const (
	Version       = 4
	OldestVersion = 1
)

// MaxSize bounds what Read reads: a record names a few shards and their
// missing benchmarks, a few KiB.
const MaxSize = 1 << 20

// A Status is how the run ended, as the gate judged it.
type Status string

const (
	// Passed: the gate ran every step and found nothing that fails the
	// night.
	Passed Status = "passed"
	// Failed: a regression, a failed test or shard, a missing or
	// unreadable result, or a step that could not run (Reasons).
	Failed Status = "failed"
	// NoResults: the run collected no result at all (every shard failed,
	// or the build made none): it fails.
	NoResults Status = "no results"
)

// A ShardState is what became of one shard of the map.
type ShardState string

const (
	// Reported: its tests passed and its results arrived.
	Reported ShardState = "reported"
	// ShardFailed: its tests failed, or its build never said how it
	// ended; what results it has were merged.
	ShardFailed ShardState = "failed"
	// Missing: the shard never reported (no directory of its results).
	Missing ShardState = "missing"
)

// ChangePoints says whether the gate searched the history for change
// points (Apache Otava, nightly gate --otava).
type ChangePoints string

const (
	// ChangePointsOn: the gate searched each series of tonight's
	// benchmarks for change points.
	ChangePointsOn ChangePoints = "on"
	// ChangePointsOff: the gate ran without Otava: the night entered the
	// history, and the gates' regressions and missing results are its
	// alerts, but no change point was searched.
	ChangePointsOff ChangePoints = "off"
)

// A Record is one run of the nightly job.
type Record struct {
	SchemaVersion int `json:"schema_version"`
	// Started is when the night's first result started (its tests' run),
	// or, for a run with none, when its gate started; Finished is when
	// the gate wrote the record.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Commit is the commit the night's results were built at, "" when no
	// result or checkout says.
	Commit string `json:"commit,omitempty"`
	// Sharded: the night was merged from the shards of the map (nightly
	// merge), Shards each of them; an unsharded run (nightly gate) has
	// none.
	Sharded bool    `json:"sharded"`
	Shards  []Shard `json:"shards,omitempty"`
	// Results is how many results the night collected, Unreadable how
	// many of them could not be read.
	Results    int `json:"results"`
	Unreadable int `json:"unreadable"`
	// Status is the gate's verdict, ExitStatus the status the gate exited
	// with (0 for a night whose tests failed but whose results passed: the
	// job fails with Bazel's status), Reasons what failed the night, one a
	// line: at least one unless it passed.
	Status     Status   `json:"status"`
	ExitStatus int      `json:"exit_status"`
	Reasons    []string `json:"reasons,omitempty"`
	// Benchmarks are what the gates' comparisons with the baseline found
	// of each benchmark that failed them, or was not compared: a figure
	// each (none for a whole benchmark), with its outcome (version 2).
	Benchmarks []Benchmark `json:"benchmarks,omitempty"`
	// ChangePoints says whether the history was searched for change
	// points (version 2; "" in a record of version 1: unknown).
	ChangePoints ChangePoints `json:"change_points,omitempty"`
	// LayoutUnknown names, a line each, the benchmarks whose figures that
	// layout moves (cache misses) were judged against another binary
	// without the baseline's layout noise, and why: "havlak6cc: the
	// baseline keeps no layout variants of it" (a baseline promoted before
	// the nightly counted them). They were judged by their thresholds
	// alone, which fails nothing by itself (version 3).
	LayoutUnknown []string `json:"layout_unknown,omitempty"`
	// NotMeasured are the suite's benchmarks that nothing counts, so that
	// no gate judges their counts (they have no quick workload), each with
	// why, as their declarations say (the benchmarks' manifest,
	// perfspec.ManifestBenchmark.NotMeasured): the night times them at full
	// size, if anything. They fail nothing (version 4).
	NotMeasured []NotMeasured `json:"not_measured,omitempty"`
	// Promoted: the night became the baseline; Baseline says what became
	// of the baseline, in words.
	Promoted bool   `json:"promoted"`
	Baseline string `json:"baseline,omitempty"`
}

// A NotMeasured is a benchmark nothing counts, and why.
type NotMeasured struct {
	Name string `json:"name"`
	// Why is its declaration's reason, in words ("no quick workload: ...").
	Why string `json:"why"`
}

// A Shard is one shard of the map, as the merge found it.
type Shard struct {
	Index int        `json:"index"`
	State ShardState `json:"state"`
	// Why says what failed, for a shard not reported.
	Why string `json:"why,omitempty"`
	// Expected is how many benchmarks the map gives it, Results how many
	// results of it arrived, Missing the benchmarks without one.
	Expected int      `json:"expected"`
	Results  int      `json:"results"`
	Missing  []string `json:"missing,omitempty"`
}

// A Benchmark is one benchmark's figure, or the whole benchmark, as the
// gates judged it against the baseline (tools/verdict's outcomes, never
// their words): what the night failed on, or could not judge.
type Benchmark struct {
	Name     string `json:"name"`
	Workload string `json:"workload,omitempty"`
	// Figure and Unit are the figure judged; "" for the whole benchmark
	// (missing tonight, or not compared).
	Figure string `json:"figure,omitempty"`
	Unit   string `json:"unit,omitempty"`
	// Outcome is one of the outcomes that fail a gate (verdict.Missing,
	// Regressed, Inconsistent: the same binary and run measured apart) or
	// verdict.NotComparable (not compared with the baseline: another
	// version of the lab measured it, or another environment), which
	// fails nothing.
	Outcome verdict.Outcome `json:"outcome"`
	// Fails: it fails the night. A failing figure does not when the
	// history's alert of it says it is known (acknowledged, say); a
	// figure not compared never does.
	Fails bool `json:"fails"`
}

// Failing are r's benchmarks that fail the night.
func (r *Record) Failing() []Benchmark {
	var failing []Benchmark
	for _, b := range r.Benchmarks {
		if b.Fails {
			failing = append(failing, b)
		}
	}
	return failing
}

// Duration is how long the run took, from Started to Finished.
func (r *Record) Duration() time.Duration { return r.Finished.Sub(r.Started) }

// Reported counts the shards that reported.
func (r *Record) Reported() int {
	n := 0
	for _, s := range r.Shards {
		if s.State == Reported {
			n++
		}
	}
	return n
}

// Check reports the first thing that makes r, of a version this package
// knows (which Parse and Marshal check), not a run record.
func (r *Record) Check() error {
	switch {
	case r.SchemaVersion < 2 && (r.ChangePoints != "" || len(r.Benchmarks) > 0):
		return fmt.Errorf("schema_version %d: change_points and benchmarks came in version 2", r.SchemaVersion)
	case r.SchemaVersion < 3 && len(r.LayoutUnknown) > 0:
		return fmt.Errorf("schema_version %d: layout_unknown came in version 3", r.SchemaVersion)
	case r.SchemaVersion < 4 && len(r.NotMeasured) > 0:
		return fmt.Errorf("schema_version %d: not_measured came in version 4", r.SchemaVersion)
	case r.SchemaVersion >= 2 && r.ChangePoints != ChangePointsOn && r.ChangePoints != ChangePointsOff:
		return fmt.Errorf("change_points %q: want on or off", r.ChangePoints)
	case r.Started.IsZero() || r.Finished.IsZero():
		return errors.New("no started or finished time")
	case r.Finished.Before(r.Started):
		return fmt.Errorf("finished %s before it started, %s", r.Finished.Format(time.RFC3339), r.Started.Format(time.RFC3339))
	case r.Results < 0 || r.Unreadable < 0 || r.Unreadable > r.Results:
		return fmt.Errorf("results %d, unreadable %d: want counts, the unreadable among the results", r.Results, r.Unreadable)
	case !r.Sharded && len(r.Shards) > 0:
		return fmt.Errorf("%d shards in a run that was not sharded", len(r.Shards))
	}
	switch r.Status {
	case Passed:
		if r.ExitStatus != 0 || len(r.Reasons) > 0 {
			return fmt.Errorf("status passed, with exit status %d and %d reasons to fail", r.ExitStatus, len(r.Reasons))
		}
	case Failed, NoResults:
		// The gate may pass a night whose tests failed (the job fails with
		// Bazel's status): a reason says why it failed, not the status.
		if len(r.Reasons) == 0 {
			return fmt.Errorf("status %s, with no reason", r.Status)
		}
	default:
		return fmt.Errorf("status %q: want passed, failed or no results", r.Status)
	}
	if r.Status == NoResults && r.Results > 0 {
		return fmt.Errorf("status no results, with %d results", r.Results)
	}
	if err := r.checkBenchmarks(); err != nil {
		return err
	}
	for i, n := range r.NotMeasured {
		if n.Name == "" || n.Why == "" {
			return fmt.Errorf("not_measured[%d] (%s): no name or no why", i, n.Name)
		}
	}
	seen := map[int]bool{}
	for i, s := range r.Shards {
		switch {
		case s.Index < 0 || seen[s.Index]:
			return fmt.Errorf("shards[%d]: index %d: negative or repeated", i, s.Index)
		case s.State != Reported && s.State != ShardFailed && s.State != Missing:
			return fmt.Errorf("shards[%d] (shard %d): state %q: want reported, failed or missing", i, s.Index, s.State)
		case s.Expected < 0 || s.Results < 0:
			return fmt.Errorf("shards[%d] (shard %d): negative counts", i, s.Index)
		}
		seen[s.Index] = true
	}
	return nil
}

// checkBenchmarks reports the first of r's benchmarks that is not one:
// unnamed, of an outcome that neither fails a gate nor says it was not
// compared, not compared yet failing, or failing a night that passed.
func (r *Record) checkBenchmarks() error {
	for i, b := range r.Benchmarks {
		switch {
		case b.Name == "":
			return fmt.Errorf("benchmarks[%d]: no name", i)
		case b.Outcome != verdict.Missing && b.Outcome != verdict.Regressed && b.Outcome != verdict.Inconsistent &&
			b.Outcome != verdict.NotComparable:
			return fmt.Errorf("benchmarks[%d] (%s): outcome %q: want missing, regressed, inconsistent or not_comparable", i, b.Name, b.Outcome)
		case b.Outcome == verdict.NotComparable && b.Fails:
			return fmt.Errorf("benchmarks[%d] (%s): not compared, yet it fails the night", i, b.Name)
		case b.Fails && r.Status == Passed:
			return fmt.Errorf("benchmarks[%d] (%s): fails a night that passed", i, b.Name)
		}
	}
	return nil
}

// format is run.json's, through the lab's one codec.
var format = versionedjson.Format[Record]{
	Name: "a run record", MaxBytes: MaxSize, VersionField: "schema_version",
	Version: func(r *Record) *int { return &r.SchemaVersion },
	Oldest:  OldestVersion, Current: Version,
	Check: (*Record).Check,
}

// Marshal checks r and encodes it, at this package's version.
func Marshal(r *Record) ([]byte, error) { return format.Marshal(r) }

// Write writes r to path whole, or leaves path as it was.
func Write(path string, r *Record) error { return format.Write(path, r) }

// Parse reads and checks a record's JSON: one value of a version this
// package reads, no field it does not know.
func Parse(data []byte) (*Record, error) { return format.Parse(data) }

// Read reads and checks the record at path, at most MaxSize bytes of it;
// an error names the file.
func Read(path string) (*Record, error) { return format.Read(path) }

// ReadFS is Read of the file name of fsys (an os.Root's, for a reader
// that must stay inside the archive). A record that is not there is an
// error that is fs.ErrNotExist.
func ReadFS(fsys fs.FS, name string) (*Record, error) { return format.ReadFS(fsys, name) }
