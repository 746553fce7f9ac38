// Package readmetest reads the README's "Where to add" for the
// registries' tests: each checks that the README names its one place, and
// that the file it names declares it, so that a rename of either fails a
// test rather than a reader.
package readmetest

import (
	"os"
	"strings"
	"testing"
)

// WhereToAdd is the item of the README at readme (a path from the test's
// package) in its "Where to add" section that starts "- what: ", or ""
// when there is none. An item wrapped over several lines (its
// continuation lines indented, as the README's prose is kept under 100
// characters a line) is returned as one line, its lines joined by a space.
func WhereToAdd(t testing.TB, readme, what string) string {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "\n## Where to add\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var item []string
	for _, line := range strings.Split(section, "\n") {
		switch {
		case item == nil && strings.HasPrefix(line, "- "+what+": "):
			item = []string{line}
		case item != nil && strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "":
			item = append(item, strings.TrimSpace(line))
		case item != nil:
			return strings.Join(item, " ")
		}
	}
	return strings.Join(item, " ")
}

// Declares tells whether the source file holds declaration.
func Declares(t testing.TB, file, declaration string) bool {
	t.Helper()
	source, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(source), declaration)
}
