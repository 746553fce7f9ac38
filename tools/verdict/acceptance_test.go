package verdict

import (
	"strings"
	"testing"
)

func TestParseTrailers(t *testing.T) {
	got, err := ParseTrailers("havlak6: one pass less\n\nPerf-Accepted: havlak6 own_instructions: trades 3% instructions for 40% less memory\nSigned-off-by: x\n")
	want := Acceptance{Benchmark: "havlak6", Figure: "own_instructions", Reason: "trades 3% instructions for 40% less memory"}
	if err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("ParseTrailers: %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{
		"Perf-Accepted: havlak6",
		"Perf-Accepted: havlak6 own_instructions:",
		"Perf-Accepted: havlak6 own_instructions:   ",
		"Perf-Accepted: ../x own_instructions: why",
		"Perf-Accepted: havlak6 own-instructions: why",
	} {
		if _, err := ParseTrailers(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v, want an error quoting the line", bad, err)
		}
	}
}

// The trailer and the flag are one acceptance: what a trailer says passes
// through its String to ParseAcceptance unchanged.
func TestParseAcceptanceRoundTrip(t *testing.T) {
	all, err := ParseTrailers("Perf-Accepted: havlak7cc d1_misses: a bigger table: 2 lookups fewer")
	if err != nil || len(all) != 1 {
		t.Fatalf("%+v, %v", all, err)
	}
	again, err := ParseAcceptance(all[0].String())
	if err != nil || again != all[0] {
		t.Errorf("ParseAcceptance(%q) = %+v, %v; want %+v", all[0].String(), again, err, all[0])
	}
	for _, bad := range []string{"havlak6", "havlak6:instructions", "havlak6::why", "havlak6:instructions: ", "a/b:instructions:why"} {
		if _, err := ParseAcceptance(bad); err == nil {
			t.Errorf("ParseAcceptance(%q): no error", bad)
		}
	}
	if a, ok := Accepted(all, "havlak7cc", "d1_misses"); !ok || a.Reason != "a bigger table: 2 lookups fewer" {
		t.Errorf("Accepted: %+v, %v", a, ok)
	}
	if _, ok := Accepted(all, "havlak7", "d1_misses"); ok {
		t.Error("Accepted: another benchmark's acceptance")
	}
}
