package summary

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestRetire(t *testing.T) {
	parse := func(args ...string) (Retire, error) {
		var retire Retire
		fs := flag.NewFlagSet("tool", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&retire, "retire", "")
		return retire, fs.Parse(args)
	}
	retire, err := parse("--retire", "havlak6", "--retire=havlak7")
	if err != nil || !slices.Equal(retire, []string{"havlak6", "havlak7"}) {
		t.Errorf("two names: %q, %v; want [havlak6 havlak7]", retire, err)
	}
	for _, bad := range []string{"../x", "", "a b"} {
		_, err := parse("--retire", bad)
		if err == nil || !strings.Contains(err.Error(), "-retire") || !strings.Contains(err.Error(), "name") {
			t.Errorf("--retire %q: error %v, want one naming the flag and what is wrong with the name", bad, err)
		}
	}
}
