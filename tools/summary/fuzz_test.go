package summary

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParse: any bytes are a summary that checks, or an error; never a
// panic; and its Markdown has no raw HTML from the input.
func FuzzParse(f *testing.F) {
	good, _ := json.Marshal(sample())
	f.Add(good)
	f.Add([]byte(`{"schema_version": 1, "tool": "report", "benchmarks": [{"name": "<b>", "outcome": "regressed"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("Parse took a summary that does not check: %v", err)
		}
		var md strings.Builder
		s.WriteMarkdown(&md, Pair{})
		for _, b := range s.Benchmarks {
			if strings.Contains(b.Name, "<") && strings.Contains(md.String(), "| "+b.Name+" |") {
				t.Fatalf("a name with a tag went into the Markdown raw: %q", b.Name)
			}
		}
	})
}
