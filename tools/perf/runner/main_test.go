package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"havlak-lab/internal/cli"
)

// spec is a program's spec in the flat format, enough for run to pick a
// mode: no mode below runs the program.
const spec = `{"benchmark": {"name": "toy", "kind": "program", "repetitions": 1},
	"binary": "toy", "pprof": "pprof", "xtime": "xtime", "profiler": "go", "expect": %q}`

func writeSpec(t *testing.T, expect string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(spec, expect)), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// The modes a benchmark's kind has not, and a missing outputs directory,
// end the command with the statuses and messages it has always had.
func TestRunRefuses(t *testing.T) {
	good, bad := writeSpec(t, "^sum: "), writeSpec(t, "(")
	t.Setenv("TEST_UNDECLARED_OUTPUTS_DIR", "")
	for _, tc := range []struct {
		args   []string
		status int
		msg    string
	}{
		{nil, 2, usage},
		{[]string{"run"}, 2, usage},
		{[]string{"gotest", good}, 2, `mode "gotest" with 0 arguments for a benchmark of kind "program"` + "\n" + usage},
		{[]string{"test", good, "x"}, 2, `mode "test" with 1 arguments for a benchmark of kind "program"` + "\n" + usage},
		{[]string{"test", good}, 1, "TEST_UNDECLARED_OUTPUTS_DIR: not run by bazel test"},
		{[]string{"run", bad}, 1, "expect: error parsing regexp: missing closing ): `(`"},
		{[]string{"run", good, "--profile"}, 1, "--profile needs a directory"},
	} {
		err := run(tc.args)
		if err == nil || cli.Status(err) != tc.status || err.Error() != tc.msg {
			t.Errorf("run(%q) = %v (status %d), want status %d: %s", tc.args, err, cli.Status(err), tc.status, tc.msg)
		}
	}
}
