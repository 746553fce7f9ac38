package result

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's "Where to add" names the one place of a figure of every
// run or round: the table in declared.go.
func TestReadmeNamesTheTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Where to add\n")
	section, _, _ = strings.Cut(section, "\n## ")
	line := regexp.MustCompile(`(?m)^- a figure: .*$`).FindString(section)
	if !strings.Contains(line, "(`tools/result/declared.go`") {
		t.Fatalf("README.md's Where to add: %q, want a line naming `tools/result/declared.go`", line)
	}
	source, err := os.ReadFile("declared.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(source), "\nvar programFigures = []runFigure{") || len(programFigures) == 0 || len(serverFigures) == 0 {
		t.Errorf("declared.go does not declare the table the README names")
	}
}
