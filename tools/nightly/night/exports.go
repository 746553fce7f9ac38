package night

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/exports"
	"havlak-lab/tools/result"
)

// exportsDir is where the night's exports go, among the artifacts the job
// uploads.
const exportsDir = result.NightExports

// writeExports writes the night's readable results in every format of
// tools/exports (docs/history.md, "Exports") into artifacts/exports/, one
// file each, atomically; an older night's files are removed first, so
// that none passes for tonight's. The unreadable results are the report's
// to name. It returns the first format that could not be written, after
// trying them all.
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
	var failed error
	for _, format := range exports.Formats {
		var b bytes.Buffer
		path := filepath.Join(dir, exports.FileName(format))
		err := exports.Write(&b, format, set)
		if err == nil {
			err = atomicfile.WriteFile(path, b.Bytes(), 0o644)
		}
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("%s: %w", path, err))
			continue
		}
		fmt.Fprintf(n.stdout, "Exported the night as %s: %s\n", format, path)
	}
	return failed
}
