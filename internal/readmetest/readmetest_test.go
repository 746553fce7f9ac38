package readmetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Only a line of the "Where to add" section counts: the same words in
// another section, or another thing's line, do not.
func TestWhereToAdd(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(readme, []byte("# x\n\n- a figure: elsewhere\n\n## Where to add\n\n- a figure: the table (`t.go`)\n- a benchmark: b\n\n## Map\n\n- a format: no\n"), 0o644)
	if got := WhereToAdd(t, readme, "a figure"); got != "- a figure: the table (`t.go`)" {
		t.Errorf("a figure: %q", got)
	}
	if got := WhereToAdd(t, readme, "a format"); got != "" {
		t.Errorf("a line of another section: %q", got)
	}
	if !Declares(t, readme, "- a benchmark: b") || Declares(t, readme, "var Rules") {
		t.Error("Declares")
	}
}
