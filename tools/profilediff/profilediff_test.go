package profilediff

import (
	"bytes"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

var sink []byte

// steady does the same work in both profiles; grown does four times as
// much in the new one.
//
//go:noinline
func steady(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}

//go:noinline
func grown(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}

//go:noinline
func allocSteady(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 1024)
	}
}

//go:noinline
func allocGrown(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 1024)
	}
}

// cpuProfile profiles steady for 300 ms and grown for grownTimes × 300 ms
// of wall time: about 30 samples at pprof's 100 Hz per 300 ms, far more
// than a busy machine's scheduling takes away.
func cpuProfile(t *testing.T, grownTimes int) *profile.Profile {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.StartCPUProfile(&b); err != nil {
		t.Fatal(err)
	}
	const n = 20_000_000
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		steady(n)
	}
	for i := 0; i < grownTimes; i++ {
		deadline = time.Now().Add(300 * time.Millisecond)
		for time.Now().Before(deadline) {
			grown(n)
		}
	}
	pprof.StopCPUProfile()
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// heapProfile records every allocation (MemProfileRate 1): exact.
func heapProfile(t *testing.T, grownAllocs int) *profile.Profile {
	t.Helper()
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	allocSteady(1000)
	allocGrown(grownAllocs)
	runtime.GC()
	var b bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&b, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTheFunctionThatGrewIsOnTop(t *testing.T) {
	base, new := cpuProfile(t, 1), cpuProfile(t, 4)
	d, err := Compute("cpu", base, new)
	if err != nil {
		t.Fatal(err)
	}
	top := d.Top(1)
	if len(top) == 0 || !strings.HasSuffix(top[0].Name, ".grown") || top[0].Flat <= 0 {
		t.Errorf("top change %+v, want grown's with a positive flat change\n%s", top, d.Summary(5))
	}
	// grown's cumulative weight grew: three more times as long.
	for _, f := range d.Funcs {
		if strings.HasSuffix(f.Name, ".grown") && f.Cum <= 0 {
			t.Errorf("grown: cum %d, want a positive change", f.Cum)
		}
	}
	var md strings.Builder
	d.WriteMarkdown(&md, 5)
	if !strings.Contains(md.String(), "| function | flat Δ |") || !strings.Contains(md.String(), "| +") {
		t.Errorf("markdown:\n%s", md.String())
	}

	// The other way round, grown is the one that shrank.
	d, err = Compute("cpu", new, base)
	if err != nil {
		t.Fatal(err)
	}
	if top := d.Top(1); top[0].Flat >= 0 {
		t.Errorf("reversed: top change %+v, want a negative flat change", top)
	}
}

func TestHeapDiffIsExact(t *testing.T) {
	base, new := heapProfile(t, 100), heapProfile(t, 300)
	d, err := Compute("heap", base, new)
	if err != nil {
		t.Fatal(err)
	}
	if d.SampleType != "alloc_space" {
		t.Errorf("sample type %q, want alloc_space", d.SampleType)
	}
	// The allocs profile is cumulative over the process: the second holds
	// the first's allocations too, so allocSteady grew by 1000 and
	// allocGrown by 300 allocations of 1 KiB. allocSteady's 1000 more
	// outweigh allocGrown's 300: the order is by size of change.
	byName := map[string]Func{}
	for _, f := range d.Funcs {
		byName[f.Name[strings.LastIndex(f.Name, ".")+1:]] = f
	}
	if s, g := byName["allocSteady"], byName["allocGrown"]; s.Flat != 1000*1024 || g.Flat != 300*1024 {
		t.Errorf("allocSteady %+v, allocGrown %+v; want +1000 KiB and +300 KiB flat\n%s", s, g, d.Summary(5))
	}
	if top := d.Top(1); !strings.HasSuffix(top[0].Name, ".allocSteady") {
		t.Errorf("top %+v, want allocSteady", top)
	}
}

func TestSVG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Fatal("dot not found: install Debian's graphviz (tools/bazel test does)")
	}
	base, new := heapProfile(t, 10), heapProfile(t, 50)
	svg, err := SVG("heap", base, new)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("allocGrown")) {
		t.Errorf("pprof's diff graph has no <svg> or no allocGrown:\n%.500s", svg)
	}
}
