package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// WithBinary writes into dir a copy of the benchmark spec at path whose
// program is binary (a path relative to the runfiles root, as the spec's
// own): the same run of a patched build of the program. The spec's format
// is perfspec's; the copy is checked by it.
func WithBinary(path, binary, dir string) (string, error) {
	data, err := result.ReadFileLimited(path, 1<<20)
	if err != nil {
		return "", err
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := spec["binary"].(string); !ok {
		return "", fmt.Errorf("%s: no binary", path)
	}
	spec["binary"] = binary
	out, err := json.MarshalIndent(spec, "", "\t")
	if err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, filepath.Base(path))
	if _, err := perfspec.Decode(copyPath, out); err != nil {
		return "", err
	}
	return copyPath, atomicfile.WriteFile(copyPath, out, 0o644)
}

// MeasureSpec runs the runner's test mode on spec in the runfiles root
// (where the spec's paths lead) into out, and reads the result it wrote.
func MeasureSpec(runner, runfiles, spec, out string) (*result.Result, error) {
	cmd := exec.Command(runner, "test", spec)
	cmd.Dir = runfiles
	cmd.Env = append(os.Environ(), "TEST_UNDECLARED_OUTPUTS_DIR="+out)
	if log, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("runner test %s: %v\n%s", spec, err, log)
	}
	r, _, err := result.Read(out)
	return r, err
}
