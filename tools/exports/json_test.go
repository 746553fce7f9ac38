package exports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeStrict decodes data into v, refusing a field v has not: the
// format's documented fields and no others.
func decodeStrict(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}

// The real night in Bencher Metric Format, checked against its JSON
// schema's rules (bencher.dev/bmf.json, written out here: an object of
// benchmarks, each an object of measures, each an object with a number
// value, optional numbers lower_value and upper_value, nothing else), and
// Bencher's limits on names.
func TestBencherMetricFormat(t *testing.T) {
	data := export(t, BMF, readNight(t, nightDir))
	var report map[string]map[string]map[string]*float64
	decodeStrict(t, data, &report)
	for benchmark, measures := range report {
		if benchmark == "" || len(benchmark) > 1024 || len(measures) == 0 {
			t.Errorf("benchmark %q with %d measures", benchmark, len(measures))
		}
		for measure, metric := range measures {
			if measure == "" || len(measure) > 64 {
				t.Errorf("%s: measure %q", benchmark, measure)
			}
			for key, v := range metric {
				if key != "value" && key != "lower_value" && key != "upper_value" || v == nil {
					t.Errorf("%s %s: %s = %v: want value, lower_value, upper_value, numbers", benchmark, measure, key, v)
				}
			}
			if metric["value"] == nil {
				t.Errorf("%s %s: no value (required)", benchmark, measure)
			} else if lo, hi, v := metric["lower_value"], metric["upper_value"], *metric["value"]; !(*lo <= v && v <= *hi) {
				t.Errorf("%s %s: value %g outside [%g, %g]", benchmark, measure, v, *lo, *hi)
			}
		}
	}
	// havlak6's real time over its 5 timed runs (its result.json).
	if m := report["havlak6"]["real_seconds"]; m == nil || *m["value"] != 0.066631886 || *m["lower_value"] != 0.05430869 ||
		*m["upper_value"] != 0.072034233 {
		t.Errorf("havlak6 real_seconds: %v", m)
	}
	if len(report) != 7 {
		t.Errorf("%d benchmarks, want the night's 7", len(report))
	}
}

// The action's custom JSON: an array of entries with name, unit and value
// (required) and range and extra (optional strings); the smaller-is-better
// file has every figure of the night but the server's throughput, which
// the bigger-is-better file has alone.
func TestActionBenchmark(t *testing.T) {
	type entry struct {
		Name  *string  `json:"name"`
		Unit  *string  `json:"unit"`
		Value *float64 `json:"value"`
		Range string   `json:"range"`
		Extra string   `json:"extra"`
	}
	check := func(format string, set Set) map[string]entry {
		var entries []entry
		decodeStrict(t, export(t, format, set), &entries)
		byName := map[string]entry{}
		for _, e := range entries {
			if e.Name == nil || e.Unit == nil || e.Value == nil || *e.Name == "" {
				t.Fatalf("%s: an entry without name, unit or value: %+v", format, e)
			}
			if _, twice := byName[*e.Name]; twice {
				t.Errorf("%s: %s twice", format, *e.Name)
			}
			byName[*e.Name] = e
		}
		return byName
	}
	night := check(GAB, readNight(t, nightDir))
	if e, ok := night["havlak6 real_seconds"]; !ok || *e.Unit != "s" || *e.Value != 0.066631886 ||
		!strings.HasPrefix(e.Range, "± ") || !strings.Contains(e.Extra, "median of 5 runs") {
		t.Errorf("havlak6 real_seconds: %+v", e)
	}
	if len(night) != 7*5 {
		t.Errorf("%d entries; want 5 timing figures of each of the 7 programs", len(night))
	}
	if bigger := check(GABBigger, readNight(t, nightDir)); len(bigger) != 0 {
		t.Errorf("the programs' night has no figure better higher, but the bigger-is-better file has %v", bigger)
	}

	servers := readNight(t, serversDir)
	smaller, bigger := check(GAB, servers), check(GABBigger, servers)
	if _, ok := smaller["router_mutex throughput"]; ok {
		t.Errorf("the server's throughput in the smaller-is-better file")
	}
	if e, ok := bigger["router_mutex throughput"]; !ok || *e.Unit != "requests/s" || *e.Value != 15819.659888299733 || len(bigger) != 1 {
		t.Errorf("bigger is better: %v; want router_mutex throughput alone", bigger)
	}
	if e, ok := smaller["router_mutex latency_p99"]; !ok || *e.Value != 0.003624519 {
		t.Errorf("router_mutex latency_p99: %+v", e)
	}
}
