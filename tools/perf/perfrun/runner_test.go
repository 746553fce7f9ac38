package perfrun

import (
	"regexp"
	"slices"
	"testing"

	"havlak-lab/tools/result"
)

func TestSplitProfile(t *testing.T) {
	for _, tc := range []struct {
		args, rest []string
		dir        string
	}{
		{[]string{"-iterations=1"}, []string{"-iterations=1"}, ""},
		{[]string{"-a", "--profile", "p", "-b"}, []string{"-a", "-b"}, "p"},
		{[]string{"--profile=/tmp/p", "x"}, []string{"x"}, "/tmp/p"},
	} {
		rest, dir, err := splitProfile(tc.args)
		if err != nil || dir != tc.dir || !slices.Equal(rest, tc.rest) {
			t.Errorf("splitProfile(%q) = %q, %q, %v; want %q, %q", tc.args, rest, dir, err, tc.rest, tc.dir)
		}
	}
	if _, _, err := splitProfile([]string{"x", "--profile"}); err == nil || err.Error() != "--profile needs a directory" {
		t.Errorf("--profile without a directory: %v", err)
	}
}

func TestWithOutputs(t *testing.T) {
	got := withOutputs([]string{"-o={outputs}/m.png", "-x", "{outputs}{outputs}"}, "/out")
	if want := []string{"-o=/out/m.png", "-x", "/out/out"}; !slices.Equal(got, want) {
		t.Errorf("withOutputs = %q, want %q", got, want)
	}
}

func TestCountMatches(t *testing.T) {
	data := []byte("# of loops: 76000 (plus 1 artificial root node)\nother\n# of loops: 76000 (plus 1 artificial root node)")
	re := regexp.MustCompile(`^# of loops: 76000 \(plus 1 artificial root node\)$`)
	if n := countMatches(data, re); n != 2 {
		t.Errorf("countMatches = %d, want 2 (the last line has no newline)", n)
	}
	if n := countMatches(data, nil); n != 3 {
		t.Errorf("countMatches without a regexp = %d, want every line, 3", n)
	}
	if n := countMatches(nil, re); n != 0 {
		t.Errorf("countMatches of nothing = %d", n)
	}
}

func TestHottestFunction(t *testing.T) {
	for top, want := range map[string]string{
		`File: havlak6
Type: cpu
Showing nodes accounting for 10ms, 100% of 10ms total
      flat  flat%   sum%        cum   cum%
      10ms   100%   100%       10ms   100%  main.(*LoopFinder).FindLoops (inline)
`: "main.(*LoopFinder).FindLoops",
		`      flat  flat%   sum%        cum   cum%
     0.50s 50.00% 50.00%      0.50s 50.00%  lab::Finder::Find(lab::Cfg  const&)
`: "lab::Finder::Find(lab::Cfg const&)",
		"Type: cpu\n": "",
	} {
		if got := hottestFunction(top); got != want {
			t.Errorf("hottestFunction = %q, want %q in\n%s", got, want, top)
		}
	}
}

func TestClassify(t *testing.T) {
	program := []string{"bench.txt", "cpu.list.txt", "cpu.output.txt", "cpu.pb.gz", "cpu.pprof", "cpu.svg",
		"cpu.top-cum.txt", "cpu.top.txt", "heap.alloc_space.txt", "heap.pb.gz", "heap.prof", "heap.svg",
		"mandelbrot.png", "output.txt", "trace.out", "trace.output.txt", "xtime.json"}
	have := map[string]bool{}
	for _, name := range program {
		have[name] = true
	}
	want := map[string]result.File{
		"bench.txt":            {Role: result.RoleData},
		"cpu.list.txt":         {Role: result.RoleView, Profile: "cpu"},
		"cpu.output.txt":       {Role: result.RoleOutput},
		"cpu.pb.gz":            {Role: result.RoleProfile, Profile: "cpu"},
		"cpu.pprof":            {Role: result.RoleData},
		"cpu.svg":              {Role: result.RoleGraph, Profile: "cpu"},
		"cpu.top-cum.txt":      {Role: result.RoleView, Profile: "cpu"},
		"cpu.top.txt":          {Role: result.RoleView, Profile: "cpu"},
		"heap.alloc_space.txt": {Role: result.RoleView, Profile: "heap"},
		"heap.pb.gz":           {Role: result.RoleProfile, Profile: "heap"},
		"heap.prof":            {Role: result.RoleData},
		"heap.svg":             {Role: result.RoleGraph, Profile: "heap"},
		"mandelbrot.png":       {Role: result.RoleData},
		"output.txt":           {Role: result.RoleOutput},
		"trace.out":            {Role: result.RoleTrace},
		"trace.output.txt":     {Role: result.RoleOutput},
		"xtime.json":           {Role: result.RoleData},
	}
	for _, name := range program {
		w := want[name]
		w.Name = name
		if got := classify(name, have); got != w {
			t.Errorf("classify(%q) = %+v, want %+v", name, got, w)
		}
	}
	// A go_test's profiles are the raw ones.
	if got := classify("heap.pprof", map[string]bool{"heap.pprof": true}); got.Role != result.RoleProfile || got.Profile != "heap" {
		t.Errorf("classify(heap.pprof) of a go_test = %+v, want a heap profile", got)
	}
}
