package history

import "testing"

// A result's place in the archive reads back as its night and test,
// wherever the archive is, and nothing else does.
func TestArchivedResult(t *testing.T) {
	p := ArchivedResult("20261106T020000Z-0123456789ab", "havlak6_test")
	if p != "nights/20261106T020000Z-0123456789ab/havlak6_test/outputs.zip" {
		t.Fatalf("ArchivedResult = %q", p)
	}
	for _, where := range []string{p, "/mnt/lab/" + p, "../" + p} {
		night, test, ok := ParseArchivedResult(where)
		if !ok || night != "20261106T020000Z-0123456789ab" || test != "havlak6_test" {
			t.Errorf("ParseArchivedResult(%q) = %q, %q, %v", where, night, test, ok)
		}
	}
	for _, other := range []string{"havlak6_test/outputs.zip", "runs/N/havlak6_test/outputs.zip",
		"nights/N/havlak6_test/result.json", "nights/N/report/x/outputs.zip/y"} {
		if _, _, ok := ParseArchivedResult(other); ok {
			t.Errorf("ParseArchivedResult(%q): read as an archived result", other)
		}
	}
}
