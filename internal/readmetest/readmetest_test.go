package readmetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Only an item of the "Where to add" section counts: the same words in
// another section, or another thing's item, do not; an item wrapped over
// indented lines is read whole, and ends where the next item starts.
func TestWhereToAdd(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	text := "# x\n\n- a figure: elsewhere\n\n## Where to add\n\n" +
		"- a figure: the table (`t.go`)\n" +
		"- a benchmark: its targets in\n  `b.bazel`, placed by\n  `shard.Place`\n" +
		"- an export: e\n\n## Map\n\n- a format: no\n"
	if err := os.WriteFile(readme, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for what, want := range map[string]string{
		"a figure":    "- a figure: the table (`t.go`)",
		"a benchmark": "- a benchmark: its targets in `b.bazel`, placed by `shard.Place`",
		"an export":   "- an export: e",
		"a format":    "",
	} {
		if got := WhereToAdd(t, readme, what); got != want {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
	}
	if !Declares(t, readme, "- a benchmark: its targets in") || Declares(t, readme, "var Rules") {
		t.Error("Declares")
	}
}
