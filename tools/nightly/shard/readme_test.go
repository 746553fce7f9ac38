package shard

import (
	"strings"
	"testing"

	"havlak-lab/internal/readmetest"
)

// The README's "Where to add" says a benchmark is added in benchmarks/
// alone, and names what makes that true: Place, declared here.
func TestReadmeNamesPlace(t *testing.T) {
	line := readmetest.WhereToAdd(t, "../../../README.md", "a benchmark")
	for _, want := range []string{"`benchmarks/BUILD.bazel`", "`benchmarks/shards.json`", "`shard.Place`"} {
		if !strings.Contains(line, want) {
			t.Errorf("README.md's Where to add: %q, want %s in it", line, want)
		}
	}
	if !readmetest.Declares(t, "shard.go", "\nfunc (m *Map) Place(suite map[string]string) (*Map, []Placement, error) {") {
		t.Errorf("shard.go does not declare the Place the README names")
	}
}
