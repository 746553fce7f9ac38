// The test that says when default.pgo no longer matches the code it
// optimises: a function it names that havlak7's sources no longer declare
// is one the compiler no longer finds, and the profile should be remade.
package havlak8_test

import (
	"flag"
	"strings"
	"testing"

	"havlak-lab/go/internal/pgo"
)

var (
	profilePath = flag.String("profile", "", "the profile havlak8 is compiled with")
	sources     = flag.String("srcs", "", "the Go sources of the package it optimises, separated by spaces")
)

func TestProfileMatchesTheCode(t *testing.T) {
	if *profilePath == "" || *sources == "" {
		t.Fatal("-profile and -srcs are required (the BUILD file passes them)")
	}
	p, err := pgo.ReadProfile(*profilePath)
	if err != nil {
		t.Fatal(err)
	}
	declared, err := pgo.Declared("main", strings.Fields(*sources))
	if err != nil {
		t.Fatal(err)
	}
	if len(pgo.Functions(p, "main")) == 0 {
		t.Fatalf("%s names no function of package main: not a profile of havlak7", *profilePath)
	}
	if stale := pgo.Stale(p, "main", declared); len(stale) > 0 {
		t.Errorf("%s names functions that havlak7's sources no longer declare:\n\t%s\n"+
			"remake it: tools/bazel run //go/havlak8/pgoprofile",
			*profilePath, strings.Join(stale, "\n\t"))
	}
}
