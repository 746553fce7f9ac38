// Package detection owns the regression suite's detection record
// (detection.json): what the suite's last measured run caught, case by
// case, as typed data for the tools that say what a gated figure can see
// (the perf check's comment). The suite writes it (tools/regressionsuite
// --detection); this package reads it, and embeds the copy checked in
// beside it, so a perf check built at the base reads the base's record.
package detection

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"havlak-lab/internal/versionedjson"
)

// FileName is the record's file name, checked in beside this package.
const FileName = "detection.json"

// Version is the record's format version.
const Version = 1

// MaxBytes bounds a record: a few hundred cases take a few tens of KB.
const MaxBytes = 1 << 20

// A Record is one run of the suite's regression cases.
type Record struct {
	Version int `json:"version"`
	// Checkout is the commit measured ("+": with uncommitted changes).
	Checkout string    `json:"checkout"`
	Started  time.Time `json:"started"`
	Cases    []Case    `json:"cases"`
}

// A Case is one regression case as the gate judged it.
type Case struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Language string `json:"language"`
	// Size is the case's nominal size: "0.5%", "1%", "2%" or "5%".
	Size      string `json:"size"`
	Benchmark string `json:"benchmark"`
	// Figure is the figure meant to catch it.
	Figure string `json:"figure"`
	// Loosens names a loosening of the benchmark's own gate the case
	// also makes, or "".
	Loosens string `json:"loosens,omitempty"`
	// CaughtBy are the gated figures that failed; none: missed.
	CaughtBy []string `json:"caught_by"`
	// Err says why the case could not be run; then it tells nothing.
	Err string `json:"error,omitempty"`
}

// Caught tells whether the gate caught the case.
func (c Case) Caught() bool { return c.Err == "" && len(c.CaughtBy) > 0 }

// SizePercent is the case's size as a number of percent.
func (c Case) SizePercent() (float64, error) {
	s, ok := strings.CutSuffix(c.Size, "%")
	if !ok {
		return 0, fmt.Errorf("case %s: size %q is not a percentage", c.Name, c.Size)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("case %s: size %q is not a positive percentage", c.Name, c.Size)
	}
	return v, nil
}

// format is the record's, through the lab's one codec.
var format = versionedjson.Format[Record]{
	Name: "a detection record", MaxBytes: MaxBytes, VersionField: "version",
	Version: func(r *Record) *int { return &r.Version },
	Oldest:  Version, Current: Version,
	Check: (*Record).validate,
}

// Marshal is r as the file holds it, at this package's version.
func Marshal(r *Record) ([]byte, error) { return format.Marshal(r) }

// Write writes r to path whole, or leaves path as it was.
func Write(path string, r *Record) error { return format.Write(path, r) }

// Parse reads a record, refusing one of another version, with unknown
// fields, over MaxBytes, or with a case it cannot place; the error names
// the record's file.
func Parse(data []byte) (*Record, error) {
	r, err := format.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FileName, err)
	}
	return r, nil
}

// validate checks r, of this package's version (which the codec checks).
func (r *Record) validate() error {
	seen := map[string]bool{}
	for _, c := range r.Cases {
		switch {
		case c.Name == "" || c.Kind == "" || c.Language == "" || c.Benchmark == "" || c.Figure == "":
			return fmt.Errorf("case %q: name, kind, language, benchmark and figure are all needed", c.Name)
		case seen[c.Name]:
			return fmt.Errorf("case %s given twice", c.Name)
		}
		seen[c.Name] = true
		if _, err := c.SizePercent(); err != nil {
			return err
		}
	}
	return nil
}

//go:embed detection.json
var embedded []byte

// Embedded is the record checked in beside this package, as this build of
// the lab was made with it.
func Embedded() (*Record, error) { return Parse(embedded) }
