package alert

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's "Where to add" names the one place of a state or an
// action: Rules, in the file that declares it.
func TestReadmeNamesTheRules(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Where to add\n")
	section, _, _ = strings.Cut(section, "\n## ")
	line := regexp.MustCompile(`(?m)^- an alert state or action: .*$`).FindString(section)
	if !strings.Contains(line, "`alert.Rules` (`tools/alert/rules.go`)") {
		t.Fatalf("README.md's Where to add: %q, want a line naming `alert.Rules` (`tools/alert/rules.go`)", line)
	}
	source, err := os.ReadFile("rules.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(source), "\nvar Rules = []Rule{") || len(Rules) != len(States) {
		t.Errorf("rules.go does not declare the table the README names")
	}
}
