package result

import (
	"fmt"
	"maps"
	"slices"
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
