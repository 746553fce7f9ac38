package measure

import (
	"bytes"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"havlak-lab/tools/result"
)

func TestClassicLine(t *testing.T) {
	for _, tc := range []struct {
		u    usage
		argv []string
		want string
	}{
		{
			usage{user: 2269999 * time.Microsecond, sys: 30 * time.Millisecond, real: 2299999999, maxRSS: 368856},
			[]string{"havlak6"},
			"2.26u 0.03s 2.29r 368856kB havlak6", // truncated, as GNU time does
		},
		{usage{}, []string{"true"}, "0.00u 0.00s 0.00r 0kB true"},
		{
			usage{user: 9999 * time.Microsecond, sys: 10 * time.Millisecond, real: 3725*time.Second + 500*time.Millisecond, maxRSS: 1},
			[]string{"sh", "-c", "exit 3", "", "a  b"},
			"0.00u 0.01s 3725.50r 1kB sh -c exit 3  a  b", // arguments joined as they are
		},
	} {
		if got := classicLine(tc.u, tc.argv); got != tc.want {
			t.Errorf("classicLine(%+v, %q) = %q, want %q", tc.u, tc.argv, got, tc.want)
		}
	}
}

func TestMinMedianMax(t *testing.T) {
	for _, tc := range []struct {
		xs          []time.Duration
		lo, mid, hi time.Duration
	}{
		{[]time.Duration{5}, 5, 5, 5},
		{[]time.Duration{3, 1, 2}, 1, 2, 3},
		{[]time.Duration{2, 2, 9, 1, 2}, 1, 2, 9},
		{[]time.Duration{4 * time.Second, 1 * time.Second, 3 * time.Second, 2 * time.Second}, time.Second, 2500 * time.Millisecond, 4 * time.Second},
		{[]time.Duration{10, 20}, 10, 15, 20},
		{[]time.Duration{-3, 7}, -3, 2, 7},
	} {
		in := slices.Clone(tc.xs)
		lo, mid, hi := minMedianMax(tc.xs)
		if lo != tc.lo || mid != tc.mid || hi != tc.hi {
			t.Errorf("minMedianMax(%v) = %v, %v, %v; want %v, %v, %v", tc.xs, lo, mid, hi, tc.lo, tc.mid, tc.hi)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("minMedianMax(%v) changed its argument to %v", in, tc.xs)
		}
	}
	// Whole KiB: the mean of the middle two rounds down.
	if lo, mid, hi := minMedianMax([]int64{1001, 1000}); lo != 1000 || mid != 1000 || hi != 1001 {
		t.Errorf("minMedianMax([1001 1000]) = %d, %d, %d; want 1000, 1000, 1001", lo, mid, hi)
	}
}

// Every column is summarised on its own, not as whole runs.
func TestSummarize(t *testing.T) {
	s := summarize([]usage{
		{user: 1, sys: 30, real: 900, maxRSS: 5},
		{user: 3, sys: 10, real: 100, maxRSS: 7},
		{user: 2, sys: 20, real: 500, maxRSS: 6},
		{user: 4, sys: 40, real: 300, maxRSS: 9},
	})
	want := summary{
		min:    usage{user: 1, sys: 10, real: 100, maxRSS: 5},
		median: usage{user: 2, sys: 25, real: 400, maxRSS: 6},
		max:    usage{user: 4, sys: 40, real: 900, maxRSS: 9},
	}
	if s != want {
		t.Errorf("summarize = %+v, want %+v", s, want)
	}
}

func TestBenchmarkName(t *testing.T) {
	for name, want := range map[string]string{
		"sleep":      "BenchmarkSleep",
		"Sleep":      "BenchmarkSleep",
		"havlak6/cc": "BenchmarkHavlak6/cc",
		"élan":       "BenchmarkÉlan",
	} {
		if got, err := BenchmarkName(name); got != want || err != nil {
			t.Errorf("benchmarkName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"", "a b", "a\tb", "x\n", "1x", "-x", "_x"} {
		if got, err := BenchmarkName(name); err == nil {
			t.Errorf("benchmarkName(%q) = %q, want an error", name, got)
		}
	}
}

// parseBenchmarks reads data with benchstat's own parser and checks that it
// holds n results of BenchmarkSleep, with xtime's four units.
func parseBenchmarks(t *testing.T, data []byte, n int) []*benchfmt.Result {
	t.Helper()
	var results []*benchfmt.Result
	r := benchfmt.NewReader(bytes.NewReader(data), "bench")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			results = append(results, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(results) != n {
		t.Fatalf("benchfmt read %d results, want %d, in\n%s", len(results), n, data)
	}
	for _, res := range results {
		var units []string
		for _, v := range res.Values {
			units = append(units, v.Unit)
		}
		if res.Name.String() != "Sleep" || res.Iters != 1 || strings.Join(units, " ") != "sec/op peak-RSS-bytes user-sec/op sys-sec/op" {
			t.Errorf("benchfmt read %s %d %v, want Sleep 1 and xtime's units", res.Name, res.Iters, units)
		}
	}
	return results
}

func TestBenchFormat(t *testing.T) {
	h := result.Machine{OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7B13"}
	u := usage{user: 1500 * time.Millisecond, sys: 250 * time.Millisecond, real: 2 * time.Second, maxRSS: 368856}
	line := benchLine("BenchmarkSleep", u)
	if want := "BenchmarkSleep 1 2000000000 ns/op 377708544 peak-RSS-bytes 1.5 user-sec/op 0.25 sys-sec/op"; line != want {
		t.Errorf("benchLine = %q, want %q", line, want)
	}
	for d, want := range map[time.Duration]string{0: "0", time.Microsecond: "0.000001", time.Nanosecond: "0.000000001", 3725 * time.Second: "3725"} {
		if got := decimalSeconds(d); got != want {
			t.Errorf("decimalSeconds(%v) = %q, want %q", d, got, want)
		}
	}
	// Zero CPU time stays in the same metric as the rest.
	zero := parseBenchmarks(t, []byte(benchLine("BenchmarkSleep", usage{real: 1})+"\n"), 1)[0]
	for _, unit := range []string{"user-sec/op", "sys-sec/op"} {
		if v, ok := zero.Value(unit); !ok || v != 0 {
			t.Errorf("benchfmt value in %s = %v, %v for a run without CPU time; want 0", unit, v, ok)
		}
	}
	res := parseBenchmarks(t, []byte(benchHeader(h)+line+"\n"), 1)[0]
	for key, want := range map[string]string{"goos": "linux", "goarch": "amd64", "cpu": "AMD EPYC 7B13"} {
		if got := res.GetConfig(key); got != want {
			t.Errorf("benchfmt config %s = %q, want %q", key, got, want)
		}
	}
	for unit, want := range map[string]float64{"sec/op": 2, "peak-RSS-bytes": 368856 * 1024, "user-sec/op": 1.5, "sys-sec/op": 0.25} {
		if got, ok := res.Value(unit); !ok || got != want {
			t.Errorf("benchfmt value in %s = %v, %v; want %v", unit, got, ok, want)
		}
	}
	if header := benchHeader(result.Machine{OS: "linux", Arch: "arm64"}); header != "goos: linux\ngoarch: arm64\n" {
		t.Errorf("header without a CPU model = %q, want no cpu line", header)
	}
}

func TestSignalName(t *testing.T) {
	for sig, want := range map[syscall.Signal]string{
		1:  "SIGHUP",
		9:  "SIGKILL",
		15: "SIGTERM",
		31: "SIGSYS",
		40: "signal 40", // real-time signals have no name of their own
	} {
		if got := signalName(sig); got != want {
			t.Errorf("signalName(%d) = %q, want %q", sig, got, want)
		}
	}
	// Every number from 1 to 31 has its own name.
	seen := map[string]bool{}
	for sig := syscall.Signal(1); sig <= 31; sig++ {
		name := signalName(sig)
		if !strings.HasPrefix(name, "SIG") || seen[name] {
			t.Errorf("signalName(%d) = %q, want a name of its own", sig, name)
		}
		seen[name] = true
	}
}
