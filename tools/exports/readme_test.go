package exports

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's "Where to add" names the registry's one place: Formats, in
// the file that declares it. A rename of either fails here, not in a
// reader's hands.
func TestReadmeNamesTheRegistry(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Where to add\n")
	section, _, _ = strings.Cut(section, "\n## ")
	line := regexp.MustCompile(`(?m)^- an export format: .*$`).FindString(section)
	if !strings.Contains(line, "`exports.Formats` (`tools/exports/exports.go`)") {
		t.Fatalf("README.md's Where to add: %q, want a line naming `exports.Formats` (`tools/exports/exports.go`)", line)
	}
	source, err := os.ReadFile("exports.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(source), "\nvar Formats = []Format{") || len(Formats) == 0 {
		t.Errorf("exports.go does not declare the registry the README names")
	}
}
