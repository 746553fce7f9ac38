// Package summary is the format of summary.json: the typed summary of one
// comparison of results against their baseline — each benchmark's verdict
// with its figures (tools/verdict), the profile diffs of the regressions,
// and what could not be read. The report and benchgate write it; the
// nightly job reads it, rather than their Markdown or exit statuses.
package summary

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"havlak-lab/internal/versionedjson"
	"havlak-lab/tools/profilediff"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// SchemaVersion is the version of summary.json this package writes and
// reads.
const SchemaVersion = 1

// FileName is summary.json's name in a report's directory.
const FileName = "summary.json"

// MaxSize bounds what Read reads: a summary of hundreds of benchmarks is a
// few hundred KiB.
const MaxSize = 16 << 20

// A Summary is one comparison.
type Summary struct {
	SchemaVersion int `json:"schema_version"`
	// Tool wrote it: "report" or "benchgate".
	Tool string `json:"tool"`
	// Baseline is where the baseline came from; "" when there was none.
	Baseline   string      `json:"baseline,omitempty"`
	Benchmarks []Benchmark `json:"benchmarks"`
	// ProfileDiffs are the regressions' profiles against their baselines'.
	ProfileDiffs []ProfileDiff `json:"profile_diffs,omitempty"`
	// Unreadable are the results that could not be read at all, each
	// with why: a night that has one fails, as what a gate cannot see.
	Unreadable []string `json:"unreadable,omitempty"`
	// Problems are what else could not be read or made (a profile, a
	// graph): shown, not failing.
	Problems []string `json:"problems,omitempty"`
}

// A Benchmark is one benchmark's comparison.
type Benchmark struct {
	Name     string `json:"name"`
	Study    string `json:"study,omitempty"`
	Language string `json:"language,omitempty"`
	Workload string `json:"workload,omitempty"`
	// Outcome is the worst of its figures' verdicts that count (see
	// verdict.Worst), not_comparable when it was not compared, or missing
	// when the baseline has it and this side has no result of it.
	Outcome verdict.Outcome `json:"outcome"`
	// Retired: missing on purpose, as the command was told (the report's
	// --retire); it does not fail, and leaves the baseline.
	Retired bool `json:"retired,omitempty"`
	// Accepted are regressions the change declares intended (a
	// Perf-Accepted: trailer): they do not fail, and say why.
	Accepted []verdict.Acceptance `json:"accepted,omitempty"`
	// Figures are its figures judged against the baseline's.
	Figures []verdict.Verdict `json:"figures,omitempty"`
	// Values are tonight's figures, judged or not (a benchmark without a
	// baseline has only these).
	Values []Value `json:"values,omitempty"`
	// EnvironmentChanges name what differs from the baseline's
	// environment, first of all another version of the lab that measured
	// it (verdict.LabChange, starting verdict.AnotherLab); unless
	// AllowedEnvironmentChange, the benchmark was not compared, but for
	// the figures another environment (not another lab) cannot change.
	EnvironmentChanges       []string `json:"environment_changes,omitempty"`
	AllowedEnvironmentChange bool     `json:"allowed_environment_change,omitempty"`
	// SameIdentity: both sides measured the same binary and run, so its
	// changes are the noise floor, or, where a figure differs beyond it
	// or is no longer declared exact, an inconsistent measurement.
	SameIdentity bool `json:"same_identity,omitempty"`
	// Note qualifies the comparison, or says why none was made.
	Note string `json:"note,omitempty"`
	// OnlyInChange: the comparison paired it with nothing, as the change
	// has it and the base does not (its Note says so in summary.json,
	// which does not keep this).
	OnlyInChange bool `json:"-"`
}

// Accepts tells whether a regression of figure is accepted.
func (b Benchmark) Accepts(figure string) bool {
	for _, a := range b.Accepted {
		if a.Figure == figure {
			return true
		}
	}
	return false
}

// A Value is one figure's runs.
type Value struct {
	Figure string        `json:"figure"`
	Unit   string        `json:"unit"`
	Sample result.Sample `json:"sample"`
}

// A ProfileDiff is one profile of a regressed benchmark against its
// baseline's: what pprof -diff_base shows.
type ProfileDiff struct {
	Benchmark string `json:"benchmark"`
	*profilediff.Diff
	// Graph is pprof's diff graph's path relative to the report, "" when
	// it could not be drawn.
	Graph string `json:"graph,omitempty"`
}

// Gone reports whether the whole benchmark is missing: the baseline has
// it and this side has no result of it (retired or not), as opposed to a
// benchmark measured whose gated figure is missing, whose Figures say so.
func (b Benchmark) Gone() bool {
	return b.Outcome == verdict.Missing && len(b.Figures) == 0
}

// Fails reports whether the benchmark fails the comparison: it is
// missing, or a gated figure regressed or is missing.
func (b Benchmark) Fails() bool {
	return b.Outcome == verdict.Missing && !b.Retired || len(b.Failing()) > 0
}

// Failing are the verdicts on b's figures that fail it: each figure that
// fails (verdict.Verdict.Fails) and is not accepted, or is inconsistent,
// which no acceptance excuses. It is the lab's one rule of what fails
// with acceptances.
func (b Benchmark) Failing() []verdict.Verdict {
	var failing []verdict.Verdict
	for _, f := range b.Figures {
		if f.Fails() && (!b.Accepts(f.Figure) || f.Outcome == verdict.Inconsistent) {
			failing = append(failing, f)
		}
	}
	return failing
}

// EnvironmentChanged reports whether the benchmark was left uncompared
// because its environment differs from its baseline's.
func (b Benchmark) EnvironmentChanged() bool {
	return len(b.EnvironmentChanges) > 0 && !b.AllowedEnvironmentChange
}

// LabChanged reports whether another version of the lab measured the
// benchmark than its baseline's (verdict.LabChange): re-baselined.
func (b Benchmark) LabChanged() bool { return b.Moved().Lab }

// Moved is what moved since the baseline's results: the lab's version,
// the environment, or both (result.MovedBy). Every reader words a
// benchmark not compared by it, never by EnvironmentChanges' words.
func (b Benchmark) Moved() result.Moved { return result.MovedBy(b.EnvironmentChanges) }

// Moved is what moved in the group's change (result.MovedBy).
func (g EnvironmentGroup) Moved() result.Moved { return result.MovedBy(g.Changes) }

// Outcome is a comparison of benchmarks as a whole: the worst of their
// outcomes (verdict.WorstOutcome), NotComparable when none was compared.
func Outcome(benchmarks []Benchmark) verdict.Outcome {
	outcomes := make([]verdict.Outcome, len(benchmarks))
	for i, b := range benchmarks {
		outcomes[i] = b.Outcome
	}
	return verdict.WorstOutcome(outcomes)
}

// Regressed is the benchmarks that fail the comparison: regressed or
// missing.
func (s *Summary) Regressed() []Benchmark {
	var worse []Benchmark
	for _, b := range s.Benchmarks {
		if b.Fails() {
			worse = append(worse, b)
		}
	}
	return worse
}

// EnvironmentChanged is the benchmarks not compared for another
// environment than their baseline's.
func (s *Summary) EnvironmentChanged() []Benchmark {
	var moved []Benchmark
	for _, b := range s.Benchmarks {
		if b.EnvironmentChanged() {
			moved = append(moved, b)
		}
	}
	return moved
}

// A NotComparedTally counts the benchmarks not compared, by what moved
// since their baseline's results (NotCompared).
type NotComparedTally struct {
	// Lab: measured by another version of the lab, re-baselined whatever
	// else moved; LabAndEnvironment of them in another environment too.
	Lab, LabAndEnvironment int
	// Environment: in another environment only, compared by the figures it
	// cannot change.
	Environment int
}

// NotCompared tallies the benchmarks not compared for what moved since
// their baseline's results (Benchmark.EnvironmentChanged, Benchmark.Moved).
func NotCompared(benchmarks []Benchmark) NotComparedTally {
	var n NotComparedTally
	for _, b := range benchmarks {
		if !b.EnvironmentChanged() {
			continue
		}
		switch moved := b.Moved(); {
		case moved.Lab && moved.Environment:
			n.Lab++
			n.LabAndEnvironment++
		case moved.Lab:
			n.Lab++
		default:
			n.Environment++
		}
	}
	return n
}

// String says how many benchmarks were not compared and why: "2
// benchmarks measured by another version of the lab: re-baselined (1 also
// in another environment than the baseline's); 1 benchmark in another
// environment than the baseline's"; "" when none.
func (n NotComparedTally) String() string {
	var parts []string
	if n.Lab > 0 {
		text := fmt.Sprintf("%d %s %s", n.Lab, plural(n.Lab, "benchmark", "benchmarks"), result.AnotherLab)
		if n.LabAndEnvironment > 0 {
			text += fmt.Sprintf(" (%d also in %s)", n.LabAndEnvironment, result.AnotherEnvironment)
		}
		parts = append(parts, text)
	}
	if n.Environment > 0 {
		parts = append(parts, fmt.Sprintf("%d %s in %s", n.Environment, plural(n.Environment, "benchmark", "benchmarks"), result.AnotherEnvironment))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// An EnvironmentGroup is one change of environment since the baseline
// (what differs, as Benchmark.EnvironmentChanges names it) and the
// benchmarks that ran in it.
type EnvironmentGroup struct {
	Changes    []string
	Benchmarks []Benchmark
}

// EnvironmentGroups groups the benchmarks whose environment differs from
// their baseline's, compared or not, by what differs, in the order of
// their first benchmark.
func (s *Summary) EnvironmentGroups() []EnvironmentGroup {
	var groups []EnvironmentGroup
	for _, b := range s.Benchmarks {
		if len(b.EnvironmentChanges) == 0 {
			continue
		}
		i := slices.IndexFunc(groups, func(g EnvironmentGroup) bool { return slices.Equal(g.Changes, b.EnvironmentChanges) })
		if i < 0 {
			groups = append(groups, EnvironmentGroup{Changes: b.EnvironmentChanges})
			i = len(groups) - 1
		}
		groups[i].Benchmarks = append(groups[i].Benchmarks, b)
	}
	return groups
}

// Status is the exit status of the command that made the comparison
// (verdict's statuses): a regression, a missing benchmark or figure, or an
// unreadable result wins over another environment.
func (s *Summary) Status() int {
	switch {
	case len(s.Regressed()) > 0 || len(s.Unreadable) > 0:
		return verdict.StatusRegressed
	case len(s.EnvironmentChanged()) > 0:
		return verdict.StatusNotComparable
	}
	return verdict.StatusOK
}

// Check reports the first thing that makes s not a summary, but its
// version, which Parse and Marshal check.
func (s *Summary) Check() error {
	if s.Tool == "" {
		return errors.New(`"tool": empty`)
	}
	for i, b := range s.Benchmarks {
		if b.Name == "" {
			return fmt.Errorf("benchmarks[%d]: no name", i)
		}
		if !b.Outcome.Valid() {
			return fmt.Errorf("benchmarks[%d] (%s): outcome %q: want one of missing, regressed, not_comparable, improved, unchanged", i, b.Name, b.Outcome)
		}
		for j, f := range b.Figures {
			if !f.Outcome.Valid() {
				return fmt.Errorf("benchmarks[%d] (%s): figures[%d] (%s): outcome %q", i, b.Name, j, f.Figure, f.Outcome)
			}
		}
	}
	for i, d := range s.ProfileDiffs {
		if d.Diff == nil || d.Benchmark == "" {
			return fmt.Errorf("profile_diffs[%d]: no benchmark or no diff", i)
		}
	}
	return nil
}

// format is summary.json's, through the lab's one codec.
var format = versionedjson.Format[Summary]{
	Name: "a summary", MaxBytes: MaxSize, VersionField: "schema_version",
	Version: func(s *Summary) *int { return &s.SchemaVersion },
	Oldest:  SchemaVersion, Current: SchemaVersion,
	Check: (*Summary).Check,
}

// Marshal checks s and encodes it, at this package's schema version.
func Marshal(s *Summary) ([]byte, error) { return format.Marshal(s) }

// Write writes s to path whole, or leaves path as it was.
func Write(path string, s *Summary) error { return format.Write(path, s) }

// Read reads and checks a summary, at most MaxSize bytes of it.
func Read(path string) (*Summary, error) { return format.Read(path) }

// ReadFS is Read of the file name of fsys (an archive's).
func ReadFS(fsys fs.FS, name string) (*Summary, error) { return format.ReadFS(fsys, name) }

// Parse reads and checks a summary's JSON.
func Parse(data []byte) (*Summary, error) { return format.Parse(data) }
