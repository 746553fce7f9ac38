// Package answer is the format of a bisection's answer (tools/bisect
// --json): the first bad commit with the measurements that named it, for
// the nightly job and other readers.
package answer

import (
	"errors"

	"havlak-lab/internal/versionedjson"
	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// A Measurement is one commit's counts.
type Measurement struct {
	Commit  string    `json:"commit"`
	Subject string    `json:"subject"`
	Values  []float64 `json:"values"`
	Median  float64   `json:"median"`
	// Verdict is "good" or "bad", or "skip" for a commit that did not
	// build or run (git bisect skip).
	Verdict string `json:"verdict,omitempty"`
	// Note says why a verdict was skip, or that a commit's runs fell on
	// both sides of the threshold.
	Note string `json:"note,omitempty"`
}

// An Answer is the bisection's answer, what --json writes.
type Answer struct {
	Benchmark   string `json:"benchmark"`
	Figure      string `json:"metric"`
	Unit        string `json:"unit"`
	Builder     string `json:"builder"`
	Repetitions int    `json:"repetitions"`
	// Rule says how a commit was judged good or bad.
	Rule      string      `json:"rule"`
	Threshold float64     `json:"threshold"`
	Good      Measurement `json:"good"`
	Bad       Measurement `json:"bad"`
	// Steps are the commits git bisect chose, in order.
	Steps    []Measurement `json:"steps"`
	FirstBad Measurement   `json:"first_bad"`
	// Parent is the first bad commit's first parent.
	Parent Measurement `json:"parent"`
	// Change is FirstBad's median against Parent's, relative.
	Change float64 `json:"change"`
	// Saved counts the commits not measured: their build had the identity
	// (binary and declared run) of a commit measured before.
	Saved int `json:"saved"`
	// ParentLines and FirstBadLines are the line counts of the first run
	// of Parent and of FirstBad (package linecounts), nil when they could
	// not be kept; GoProgram says the program is a Go one (as
	// attribution.Attribute weighs a figure). In memory only, for an
	// attribution of the change to the first bad commit's lines: not
	// written.
	ParentLines, FirstBadLines *linecounts.File `json:"-"`
	GoProgram                  bool             `json:"-"`
}

// MaxBytes bounds an answer: a bisection of a few dozen steps is a few
// KiB.
const MaxBytes = 1 << 20

// format is an answer's, through the lab's one codec: it has no version
// field.
var format = versionedjson.Format[Answer]{Name: "a bisection's answer", MaxBytes: MaxBytes, Check: (*Answer).check}

// check refuses an answer without its first bad commit.
func (a *Answer) check() error {
	if a.FirstBad.Commit == "" {
		return errors.New("no first_bad commit")
	}
	return nil
}

// Write writes a at path, whole or not at all.
func Write(path string, a *Answer) error { return format.Write(path, a) }

// Read reads an answer that Write wrote (tools/bisect --json, the
// nightly's bisect-NAME.json).
func Read(path string) (*Answer, error) { return format.Read(path) }
