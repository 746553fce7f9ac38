package alert

import (
	"strings"
	"testing"

	"havlak-lab/internal/readmetest"
)

// The README's "Where to add" names the one place of a state or an
// action: Rules, in the file that declares it.
func TestReadmeNamesTheRules(t *testing.T) {
	line := readmetest.WhereToAdd(t, "../../README.md", "an alert state or action")
	if !strings.Contains(line, "`alert.Rules` (`tools/alert/rules.go`)") {
		t.Fatalf("README.md's Where to add: %q, want a line naming `alert.Rules` (`tools/alert/rules.go`)", line)
	}
	if !readmetest.Declares(t, "rules.go", "\nvar Rules = []Rule{") || len(Rules) != len(States) {
		t.Errorf("rules.go does not declare the table the README names")
	}
}
