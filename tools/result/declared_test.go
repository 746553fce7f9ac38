package result

import (
	"slices"
	"testing"
)

// The declared figures of runs and rounds carry their declaration into
// every result's figures, and the consumers' questions are answered from
// the same rows.
func TestDeclaredFigures(t *testing.T) {
	faults := int64(100)
	r := &Result{Benchmark: Benchmark{Name: "p", Kind: KindProgram}, Timing: &Timing{Runs: []Run{
		{Usage: Usage{RealSeconds: 1, UserSeconds: 0.5, MaxRSSKiB: 2048}, MinorFaults: &faults},
		{Usage: Usage{RealSeconds: 2, UserSeconds: 0.5, MaxRSSKiB: 4096}, MinorFaults: &faults},
	}}}
	figs, err := Figures(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	gated := map[string]bool{}
	for _, f := range figs {
		gated[f.Name] = f.Gated
	}
	want := map[string]bool{"real_seconds": true, "user_seconds": false, "sys_seconds": false, "cpu_seconds": false,
		"max_rss_kib": true, "minor_faults": false}
	for name, g := range want {
		if got, ok := gated[name]; !ok || got != g {
			t.Errorf("%s: gated %v (present %v), want %v", name, got, ok, g)
		}
	}
	// A run that did not record a figure leaves it out: no series of runs.
	r.Timing.Runs[1].MinorFaults = nil
	if figs, _ = Figures(r, nil); slices.ContainsFunc(figs, func(f Figure) bool { return f.Name == "minor_faults" }) {
		t.Error("minor_faults from one of two runs")
	}

	for _, c := range []struct {
		name         string
		gated, shown bool
	}{
		{"real_seconds", false, true},    // declared charted
		{"max_rss_kib", true, false},     // declared gated, not charted
		{"own_instructions", true, true}, // a gated metric
		{"d1_misses", false, false},      // a metric shown
	} {
		if got := Charted(c.name, c.gated); got != c.shown {
			t.Errorf("Charted(%s, %v) = %v, want %v", c.name, c.gated, got, c.shown)
		}
	}
	if got := Headline([]string{"own_instructions", "latency_p99", "throughput"}); got != "throughput" {
		t.Errorf("a server's headline: %s", got)
	}
	if got := Headline([]string{"Split/path=a-2"}); got != "Split/path=a-2" {
		t.Errorf("no declared headline: %s", got)
	}
}
