package perfrun

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

var pprofBinary = flag.String("pprof", "", "the pprof binary (//tools:pprof)")

// A heap profile of a program that allocated nothing gperftools kept has
// no allocations' columns: the view of them says so, and the call graph
// shows what the profile has, where pprof would fail on a sample index
// it lacks (and failed the program's quick test).
func TestHeapOfNothingAllocated(t *testing.T) {
	if *pprofBinary == "" {
		t.Skip("no -pprof: bazel test gives it")
	}
	pprof := *pprofBinary
	if dir := os.Getenv("TEST_SRCDIR"); dir != "" && !filepath.IsAbs(pprof) {
		pprof = filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), pprof) // a $(rootpath)
	}
	out := t.TempDir()
	// As pprof converts such a file of gperftools' (heap.prof): two sample
	// types, objects and space, and no sample.
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "objects", Unit: "count"}, {Type: "space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
	}
	f, err := os.Create(filepath.Join(out, "heap.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b := &bench{pprof: pprof, out: out}
	if err := b.renderHeap(); err != nil {
		t.Fatalf("renderHeap: %v", err)
	}
	// pprof reads inuse_space and inuse_objects as the space and objects
	// there are; alloc_space it lacks.
	for _, index := range []string{"inuse_space", "inuse_objects"} {
		text, err := os.ReadFile(filepath.Join(out, "heap."+index+".txt"))
		if err != nil || strings.Contains(string(text), "has no") || !strings.Contains(string(text), "flat%") {
			t.Errorf("heap.%s.txt: %q, %v; want pprof's table", index, text, err)
		}
	}
	text, err := os.ReadFile(filepath.Join(out, "heap.alloc_space.txt"))
	if err != nil || !strings.Contains(string(text), "has no alloc_space: its samples are objects, space") {
		t.Errorf("heap.alloc_space.txt: %q, %v; want why it is empty", text, err)
	}
	if info, err := os.Stat(filepath.Join(out, "heap.svg")); err != nil || info.Size() == 0 {
		t.Errorf("heap.svg: %v", err)
	}
}
