package measure

import (
	"regexp"
	"testing"
	"unsafe"
)

// countersLineRE matches the line of counts xtime prints after a run's,
// lineRE a run's own line (classicLine).
var (
	countersLineRE = regexp.MustCompile(`(?m)^[a-z-]+:u \d+( [a-z-]+:u \d+)*( \(scaled[^)]*\))?\n`)
	lineRE         = regexp.MustCompile(`^((?:min|median|max): )?(\d+\.\d\d)u (\d+\.\d\d)s (\d+\.\d\d)r (\d+)kB (.*)$`)
)

func TestPerfEventAttrLayout(t *testing.T) {
	if size := unsafe.Sizeof(perfEventAttr{}); size != perfAttrSizeVer5 {
		t.Errorf("perf_event_attr is %d bytes, want PERF_ATTR_SIZE_VER5, %d", size, perfAttrSizeVer5)
	}
	if off := unsafe.Offsetof(perfEventAttr{}.Flags); off != 40 {
		t.Errorf("the bit fields are at %d, want 40", off)
	}
	if off := unsafe.Offsetof(perfEventAttr{}.SampleRegsIntr); off != 96 {
		t.Errorf("sample_regs_intr is at %d, want 96", off)
	}
}

func TestParseCounters(t *testing.T) {
	evs, err := ParseCounters(DefaultCounters)
	if err != nil || len(evs) != 4 || evs[0].name != "instructions:u" || evs[3].name != "cache-misses:u" {
		t.Errorf("parseCounters(%q) = %v, %v", DefaultCounters, evs, err)
	}
	if evs, err := ParseCounters(""); evs != nil || err != nil {
		t.Errorf("parseCounters(\"\") = %v, %v; want nothing", evs, err)
	}
	for _, list := range []string{"instructions", "cycles:u,cycles:u", "cycles:u,", "bogus:u"} {
		if _, err := ParseCounters(list); err == nil {
			t.Errorf("parseCounters(%q): no error", list)
		}
	}
	if got := countersLine(evs[:2], counts{values: []int64{1234567, 89}}); got != "instructions:u 1234567 cycles:u 89" {
		t.Errorf("countersLine = %q", got)
	}
	line := countersLine(evs[:2], counts{values: []int64{1, 2}, scaled: true}) + "\n"
	if !countersLineRE.MatchString(line) || lineRE.MatchString(line) {
		t.Errorf("the counters line %q is not told apart from the run's", line)
	}
}

// An event no machine has fails with its errno, which the record gives.
func TestOpenCountersFails(t *testing.T) {
	_, err := openCounters(0, []Event{{"bogus:u", perfTypeHardware, 0xdead_beef}})
	if err == nil || !regexp.MustCompile(`^perf_event_open bogus:u: E[A-Z0-9]+ \(`).MatchString(err.Error()) {
		t.Fatalf("opening a bogus event: %v; want perf_event_open's errno", err)
	}
	t.Logf("the reason recorded: %v", err)
}
