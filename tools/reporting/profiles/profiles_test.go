package profiles

import (
	"encoding/xml"
	"regexp"
	"testing"

	"github.com/google/pprof/profile"
)

// A synthetic profile: main calls a (3 samples) and b (1), a calls c (2).
func syntheticProfile() *profile.Profile {
	fn := map[string]*profile.Function{}
	loc := map[string]*profile.Location{}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	for i, name := range []string{"main", "a", "b", "c"} {
		fn[name] = &profile.Function{ID: uint64(i + 1), Name: name}
		loc[name] = &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn[name]}}}
		p.Function = append(p.Function, fn[name])
		p.Location = append(p.Location, loc[name])
	}
	add := func(n int64, frames ...string) {
		var locs []*profile.Location
		for i := len(frames) - 1; i >= 0; i-- { // leaf first
			locs = append(locs, loc[frames[i]])
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 10_000_000}})
	}
	add(1, "main", "a")
	add(2, "main", "a", "c")
	add(1, "main", "b")
	return p
}

func TestTopFunctions(t *testing.T) {
	flat, cum := TopFunctions(syntheticProfile(), 3)
	want := func(got []FuncStat, names []string, fractions []float64) {
		t.Helper()
		if len(got) != len(names) {
			t.Fatalf("got %v, want %v", got, names)
		}
		for i := range got {
			if got[i].Name != names[i] || got[i].Fraction != fractions[i] {
				t.Errorf("#%d: %s %.2f, want %s %.2f", i, got[i].Name, got[i].Fraction, names[i], fractions[i])
			}
		}
	}
	want(flat, []string{"c", "a", "b"}, []float64{0.5, 0.25, 0.25})
	want(cum, []string{"main", "a", "c"}, []float64{1, 0.75, 0.5})
}

func TestFlameGraph(t *testing.T) {
	svg := string(FlameGraph(syntheticProfile(), "synthetic"))
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	// Each frame is as wide as its share of the 1200px: main all of it,
	// a three quarters, c and b half and a quarter.
	for name, width := range map[string]string{"main": "1199.50", "a": "899.50", "c": "599.50", "b": "299.50"} {
		re := regexp.MustCompile(`<title>` + name + ` \([0-9.]+%\)</title><rect x="[0-9.]+" y="[0-9]+" width="` + width + `"`)
		if !re.MatchString(svg) {
			t.Errorf("no %s frame %s wide in\n%s", name, width, svg)
		}
	}
}
