package result

import (
	"strings"
	"testing"

	"havlak-lab/internal/readmetest"
)

// The README's "Where to add" names the one place of a figure of every
// run or round: the table in declared.go.
func TestReadmeNamesTheTable(t *testing.T) {
	line := readmetest.WhereToAdd(t, "../../README.md", "a figure")
	if !strings.Contains(line, "(`tools/result/declared.go`") {
		t.Fatalf("README.md's Where to add: %q, want a line naming `tools/result/declared.go`", line)
	}
	if !readmetest.Declares(t, "declared.go", "\nvar programFigures = []runFigure{") || len(programFigures) == 0 || len(serverFigures) == 0 {
		t.Errorf("declared.go does not declare the table the README names")
	}
}
