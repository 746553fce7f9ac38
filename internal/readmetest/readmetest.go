// Package readmetest reads the README's "Where to add" for the
// registries' tests: each checks that the README names its one place, and
// that the file it names declares it, so that a rename of either fails a
// test rather than a reader.
package readmetest

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// WhereToAdd is the line of the README at readme (a path from the test's
// package) in its "Where to add" section that starts "- what: ", or ""
// when there is none.
func WhereToAdd(t testing.TB, readme, what string) string {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "\n## Where to add\n")
	section, _, _ = strings.Cut(section, "\n## ")
	return regexp.MustCompile(`(?m)^- ` + regexp.QuoteMeta(what) + `: .*$`).FindString(section)
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
