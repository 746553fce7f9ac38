package exports

import (
	"strings"
	"testing"

	"havlak-lab/internal/readmetest"
)

// The README's "Where to add" names the registry's one place: Formats, in
// the file that declares it. A rename of either fails here, not in a
// reader's hands.
func TestReadmeNamesTheRegistry(t *testing.T) {
	line := readmetest.WhereToAdd(t, "../../README.md", "an export format")
	if !strings.Contains(line, "`exports.Formats` (`tools/exports/exports.go`)") {
		t.Fatalf("README.md's Where to add: %q, want a line naming `exports.Formats` (`tools/exports/exports.go`)", line)
	}
	if !readmetest.Declares(t, "exports.go", "\nvar Formats = []Format{") || len(Formats) == 0 {
		t.Errorf("exports.go does not declare the registry the README names")
	}
}
