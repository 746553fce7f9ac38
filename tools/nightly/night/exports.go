package night

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/exports"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
)

// exportsDir is where the night's exports go, among the artifacts the job
// uploads.
const exportsDir = nightdir.Exports

// writeExports writes the night's readable results in every format of
// tools/exports (docs/history.md, "Exports") into artifacts/exports/, one
// file each, atomically; an older night's files are removed first, so
// that none passes for tonight's. The unreadable results are the report's
// to name. A night of several environments (a sharded night) gets the
// formats that describe one run of the suite once per environment, in
// exports/env-<result.EnvironmentKey>/. It returns the formats that could
// not be written, after trying them all.
func (n *night) writeExports(found []result.Found) error {
	dir := filepath.Join(n.artifacts, exportsDir)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	var set exports.Set
	for _, f := range found {
		if f.Err == nil {
			set.Inputs = append(set.Inputs, exports.Input{Result: f.Result, Outputs: f.Outputs})
		}
	}
	if len(set.Inputs) == 0 {
		return errors.New("no readable results to export")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// A sharded night (nightly merge) holds the results of several
	// machines, each benchmark on its own agent's: gobench keeps each
	// result under its own configuration lines, but the formats of one run
	// of the suite (one environment) are written once per environment,
	// into exports/env-<key>/, never mixed.
	byEnv := map[string]exports.Set{}
	for _, in := range set.Inputs {
		key := result.EnvironmentKey(in.Result.Environment)
		byEnv[key] = exports.Set{Inputs: append(byEnv[key].Inputs, in)}
	}
	var failed error
	for _, f := range exports.Formats {
		if !f.PerEnvironment || len(byEnv) == 1 {
			failed = errors.Join(failed, n.writeExport(filepath.Join(dir, f.FileName), f.Name, set))
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(byEnv)) {
			sub := filepath.Join(dir, "env-"+key)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
			failed = errors.Join(failed, n.writeExport(filepath.Join(sub, f.FileName), f.Name, byEnv[key]))
		}
	}
	return failed
}

// writeExport writes set in format to path, atomically.
func (n *night) writeExport(path, format string, set exports.Set) error {
	var b bytes.Buffer
	err := exports.Write(&b, format, set)
	if err == nil {
		err = atomicfile.WriteFile(path, b.Bytes(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(n.stdout, "Exported the night as %s: %s\n", format, path)
	return nil
}
