package result

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// An Identity is what a result measured, exactly, and with what: the
// sha256 (hex) of the benchmark's binary and of its declared run, and the
// version of the lab that measured it (perfspec computes all three).
type Identity struct {
	BinarySHA256 string `json:"binary_sha256"`
	RunSHA256    string `json:"run_sha256"`
	// LabSHA256 is the lab's version: the sha256 of the measuring tools'
	// binaries, the runner that ran, counted and read every figure, and
	// the xtime it timed and counted system calls with
	// (perfspec.LabSHA256 says why those and nothing else). A pure
	// function of the build, like BinarySHA256: a consumer that moves its
	// pin of the lab moves it only when the tools' code moved. "" in a
	// result of schema version 2, measured before the lab recorded it,
	// and so by another version of the lab than any result that has it.
	LabSHA256 string `json:"lab_sha256,omitempty"`
}

// Lacks says what r lacks for being of an older schema version, or nil.
func (r *Result) Lacks() []string {
	switch {
	case r.SchemaVersion < 2 || r.Identity == nil:
		return []string{fmt.Sprintf("identity (schema version %d records no sha256 of the binary and of the run)", r.SchemaVersion)}
	case r.Identity.LabSHA256 == "":
		return []string{fmt.Sprintf("the lab's version (schema version %d records no sha256 of the tools that measured)", r.SchemaVersion)}
	}
	return nil
}

// checkVersion checks schema_version and the identity it allows.
func (r *Result) checkVersion(bad func(string, ...any)) {
	if r.SchemaVersion < OldestSchemaVersion || r.SchemaVersion > SchemaVersion {
		bad("schema_version is %d, not %d to %d", r.SchemaVersion, OldestSchemaVersion, SchemaVersion)
	}
	if id := r.Identity; id != nil {
		if r.SchemaVersion < 2 {
			bad("identity: schema version %d has none", r.SchemaVersion)
		}
		sums := map[string]string{"binary_sha256": id.BinarySHA256, "run_sha256": id.RunSHA256}
		switch {
		case r.SchemaVersion >= 3:
			sums["lab_sha256"] = id.LabSHA256
		case id.LabSHA256 != "":
			bad("identity.lab_sha256: schema version %d has none", r.SchemaVersion)
		}
		for _, field := range slices.Sorted(maps.Keys(sums)) {
			if !IsSHA256(sums[field]) {
				bad("identity.%s %q: want 64 hex digits", field, sums[field])
			}
		}
	}
}

// AnotherLab is how a comparison names another version of the lab (a
// LabSHA256 of its own) among what differs between what measured two
// results: tools/verdict words that change (verdict.LabChange) starting
// with it, compares nothing across it, and the benchmark is re-baselined.
const AnotherLab = "measured by another version of the lab: re-baselined"

// AnotherEnvironment is how a comparison names another environment than
// the baseline's (a machine, a toolchain: Differences), across which only
// the figures it cannot change are compared.
const AnotherEnvironment = "another environment than the baseline's"

// Moved is what moved between what measured two results: the lab's
// version, the environment, or both. It is the lab's one reading of a
// comparison's list of what differs (summary's environment changes, an
// environment alert's evidence), so that every reader words a benchmark
// re-baselined for another lab apart from one in another environment,
// and neither matches the list's words itself.
type Moved struct {
	Lab         bool // another version of the lab measured it: AnotherLab
	Environment bool // in another environment: a machine, a toolchain
}

// MovedBy reads changes, each one thing that differs as a comparison
// names it (verdict.LabChange's words, or a Difference's).
func MovedBy(changes []string) Moved {
	var m Moved
	for _, c := range changes {
		if strings.HasPrefix(c, AnotherLab) {
			m.Lab = true
		} else {
			m.Environment = true
		}
	}
	return m
}

// Any reports whether anything moved.
func (m Moved) Any() bool { return m.Lab || m.Environment }

// Text says what moved, for people: AnotherLab, AnotherEnvironment, or
// both of them; "" when nothing did.
func (m Moved) Text() string {
	var parts []string
	if m.Lab {
		parts = append(parts, AnotherLab)
	}
	if m.Environment {
		parts = append(parts, AnotherEnvironment)
	}
	return strings.Join(parts, "; ")
}

// Short says what moved in a few words, for a table's cell: "another
// version of the lab", "another environment" (also when nothing moved, as
// a benchmark not compared was worded before the lab's version was
// recorded), or "another version of the lab and another environment".
func (m Moved) Short() string {
	switch {
	case m.Lab && m.Environment:
		return "another version of the lab and another environment"
	case m.Lab:
		return "another version of the lab"
	}
	return "another environment"
}
