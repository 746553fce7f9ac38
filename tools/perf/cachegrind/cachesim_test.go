package cachegrind

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// A Cachegrind output with the cache simulation's events (shortened from
// a run of havlak7cc; the events line ends with a space, as Cachegrind
// writes it).
const simulated = `desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         8388608 B, 64 B, 16-way associative
cmd: havlak7
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw 
fl=havlak.go
fn=main.findLoops
10 1000 2 1 400 40 4 100 10 2
11 500 0 0 100
fn=runtime.mallocgc
5 300 1 1 50 5 5 60 6 6
summary: 1800 3 2 550 45 9 160 16 8
`

func TestReadFileSimulated(t *testing.T) {
	c, err := ReadFile(writeCachegrind(t, simulated))
	if err != nil {
		t.Fatal(err)
	}
	if c.Total != 1800 || c.Own != 1500 || c.Cache == nil {
		t.Fatalf("counts %+v: want 1800 instructions, 1500 own, and the cache's events", c)
	}
	own := Events{1500, 2, 1, 500, 40, 4, 100, 10, 2} // trailing zeros left out on line 11
	if c.Cache.Own != own || c.Cache.Total != (Events{1800, 3, 2, 550, 45, 9, 160, 16, 8}) {
		t.Errorf("events: own %v, total %v", c.Cache.Own, c.Cache.Total)
	}
	if own.D1Misses() != 50 || own.LLMisses() != 7 {
		t.Errorf("own D1 misses %d, LL misses %d: want 40+10, 1+4+2", own.D1Misses(), own.LLMisses())
	}
	// 2100 accesses (1500 fetches, 500 reads, 100 writes), 52 of them
	// L1 misses, 7 of those memory: 2048 L1 hits, 45 LL hits, 7 memory.
	if got, want := own.EstimatedCycles(), uint64(2048+5*45+35*7); got != want {
		t.Errorf("estimated cycles %d, want %d", got, want)
	}
}

func TestReadFileRefusesSimulated(t *testing.T) {
	for name, c := range map[string]struct{ content, want string }{
		"unknown event":   {"events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw Bc\n", `event "Bc" unknown`},
		"repeated event":  {"events: Ir Ir\n", `event "Ir" unknown or repeated`},
		"too many counts": {"events: Ir\nfn=f\n1 2 3\nsummary: 2\n", "2 counts for 1 events"},
		"events disagree": {strings.Replace(simulated, "summary: 1800 3 2 550", "summary: 1800 3 2 551", 1), "the functions' events add up to"},
	} {
		_, err := ReadFile(writeCachegrind(t, c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

func TestCacheMetrics(t *testing.T) {
	plain, err := ReadFile(writeCachegrind(t, "events: Ir\nfn=f\n1 5\nsummary: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m := CacheMetrics([]Counts{plain}, false, false, "cachegrind", 0.01); m != nil {
		t.Errorf("no run simulated the caches, yet %v", m)
	}
	sim, err := ReadFile(writeCachegrind(t, simulated))
	if err != nil {
		t.Fatal(err)
	}
	for _, goProgram := range []bool{false, true} {
		metrics := CacheMetrics([]Counts{sim, plain, sim}, goProgram, true, "cachegrind", 0.01)
		gated := map[string]bool{}
		for _, m := range metrics {
			if len(m.Values) != 2 || m.Cost == "" || m.Gated != (m.Threshold == 0.01) {
				t.Errorf("%s: %+v: want the values of the 2 simulated runs, a cost, the threshold when gated", m.Name, m)
			}
			gated[m.Name] = m.Gated
		}
		// A Go program's LL misses depend on where its heap lands; its D1
		// misses are gated when declared steady.
		want := map[string]bool{MetricD1Misses: true, MetricLLMisses: !goProgram, MetricEstimatedCycles: !goProgram, MetricD1ReadMisses: false}
		for name, g := range want {
			if gated[name] != g {
				t.Errorf("Go program %v: %s gated %v, want %v", goProgram, name, gated[name], g)
			}
		}
		if m := CacheMetrics([]Counts{sim}, goProgram, false, "cachegrind", 0.01)[0]; m.Gated == goProgram {
			t.Errorf("Go program %v, D1 misses not declared steady: gated %v", goProgram, m.Gated)
		}
	}
}

// The helper of TestLocalityIsCaught: this test binary, run under
// Cachegrind with helperEnv set to a stride, sums an array of 256 KiB
// (8 times the simulated D1) in the order i*stride mod n, 16 times.
// Every stride executes the same instructions; stride 1 reads the array
// in order, a large odd stride jumps a cache line or more at every step.
const helperEnv = "CACHEGRIND_TEST_STRIDE"

func TestMain(m *testing.M) {
	if stride := os.Getenv(helperEnv); stride != "" {
		os.Exit(traverse(stride))
	}
	os.Exit(m.Run())
}

func traverse(strideText string) int {
	stride, err := strconv.Atoi(strideText)
	if err != nil {
		return 2
	}
	const n = 1 << 16
	data := make([]int32, n)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i * stride % n)
		data[i] = int32(i)
	}
	var sum int32
	for range 16 {
		for _, j := range order {
			sum += data[j]
		}
	}
	fmt.Println(sum)
	return 0
}

// A change that keeps the instructions and scatters the accesses is
// caught by the D1 misses, gated, and by no instruction count: measured
// by Cachegrind on a real program and judged by the gate's rule.
func TestLocalityIsCaught(t *testing.T) {
	valgrind, err := Valgrind()
	if err != nil {
		t.Fatal(err) // tools/bazel installs it; a missing one is no pass
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	measure := func(stride string, runs int) []result.Metric {
		var counts []Counts
		for i := range runs {
			out := filepath.Join(t.TempDir(), fmt.Sprintf("cachegrind.%d.out", i))
			c, err := Run{Valgrind: valgrind, Program: exe, GoProgram: true, CacheSim: true,
				Env: append(os.Environ(), helperEnv+"="+stride), Out: out}.Count()
			if err != nil {
				t.Fatal(err)
			}
			counts = append(counts, c)
		}
		return append(Metrics(counts, true, "test", 0.01), CacheMetrics(counts, true, true, "test", 0.01)...)
	}
	// Strides of five digits each: parsing them costs the same.
	base, scattered := measure("00001", 2), measure("40503", 1)
	judge := func(name string) verdict.Verdict {
		for i, o := range base {
			if o.Name == name {
				n := scattered[i]
				return verdict.Judge(name, o.Unit, o.Values, n.Values, verdict.CountRule(o.Threshold, o.Gated)).WithCost(n.Cost)
			}
		}
		t.Fatalf("no metric %s", name)
		return verdict.Verdict{}
	}
	if v := judge(MetricOwnInstructions); v.Outcome != verdict.Unchanged {
		t.Errorf("own instructions: %v; want unchanged: the strides run the same code", v)
	}
	v := judge(MetricD1Misses)
	if !v.Fails() || v.Cost != result.CostLocality {
		t.Errorf("D1 misses: %v; want a gated regression, a cost of locality", v)
	}
	t.Logf("caught: %v", v)
}

// A figure's profile weighs each function by the figure's events: D1
// misses are D1mr+D1mw, LL misses ILmr+DLmr+DLmw; a Go program's cache
// figures and own instructions leave out the runtime's functions, as the
// figures do, and its total instructions keep them.
func TestFigureProfile(t *testing.T) {
	c, err := ReadFile(writeCachegrind(t, simulated))
	if err != nil {
		t.Fatal(err)
	}
	weights := func(figure string, goProgram bool) map[string]int64 {
		t.Helper()
		p, err := c.FigureProfile(figure, goProgram)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.CheckValid(); err != nil || len(p.SampleType) != 1 || p.SampleType[0].Type != figure {
			t.Fatalf("%s: %v, sample types %v", figure, err, p.SampleType)
		}
		w := map[string]int64{}
		for _, s := range p.Sample {
			w[s.Location[0].Line[0].Function.Name] = s.Value[0]
		}
		return w
	}
	for _, x := range []struct {
		figure    string
		goProgram bool
		want      string
	}{
		{MetricD1Misses, false, "map[main.findLoops:50 runtime.mallocgc:11]"},
		{MetricD1Misses, true, "map[main.findLoops:50]"},
		{MetricLLMisses, false, "map[main.findLoops:7 runtime.mallocgc:12]"},
		{MetricD1ReadMisses, false, "map[main.findLoops:40 runtime.mallocgc:5]"},
		{MetricI1Misses, true, "map[main.findLoops:2]"},
		{MetricEstimatedCycles, true, fmt.Sprintf("map[main.findLoops:%d]", 2048+5*45+35*7)},
		{MetricOwnInstructions, true, "map[main.findLoops:1500]"},
		{MetricInstructions, true, "map[main.findLoops:1500 runtime.mallocgc:300]"},
	} {
		if got := fmt.Sprint(weights(x.figure, x.goProgram)); got != x.want {
			t.Errorf("%s (Go: %v): %s, want %s", x.figure, x.goProgram, got, x.want)
		}
	}
	if _, err := c.FigureProfile("alloc_bytes", false); err == nil || !strings.Contains(err.Error(), "d1_misses") {
		t.Errorf("a figure Cachegrind does not count: %v", err)
	}
	instructionsOnly, err := Parse(strings.NewReader("events: Ir\nfn=f\n1 5\nsummary: 5\n"), "x.out")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := instructionsOnly.FigureProfile(MetricD1Misses, false); err == nil || !strings.Contains(err.Error(), "did not simulate the caches") {
		t.Errorf("D1 misses of a run without the cache simulation: %v", err)
	}
	if p, err := instructionsOnly.FigureProfile(MetricInstructions, false); err != nil || len(p.Sample) != 1 || p.Sample[0].Value[0] != 5 {
		t.Errorf("instructions of a run without the cache simulation: %v, %v", p, err)
	}
}
