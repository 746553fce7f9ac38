package shard

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's "Where to add" says a benchmark is added in benchmarks/
// alone, and names what makes that true: Place, declared here.
func TestReadmeNamesPlace(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Where to add\n")
	section, _, _ = strings.Cut(section, "\n## ")
	line := regexp.MustCompile(`(?m)^- a benchmark: .*$`).FindString(section)
	for _, want := range []string{"`benchmarks/BUILD.bazel`", "`benchmarks/shards.json`", "`shard.Place`"} {
		if !strings.Contains(line, want) {
			t.Errorf("README.md's Where to add: %q, want %s in it", line, want)
		}
	}
	source, err := os.ReadFile("shard.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(source), "\nfunc (m *Map) Place(suite map[string]string) (*Map, []Placement, error) {") {
		t.Errorf("shard.go does not declare the Place the README names")
	}
}
