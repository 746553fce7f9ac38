package result

import (
	"strings"
	"testing"
)

func TestReadGoBench(t *testing.T) {
	data := []byte("goos: linux\n" +
		"BenchmarkNaive/path=root-2 \t 1000\t 1200 ns/op\t 64 B/op\t 2 allocs/op\n" +
		"BenchmarkNaive/path=root-2 \t 1000\t 1300 ns/op\t 64 B/op\t 2 allocs/op\n" +
		"PASS\n")
	lines, _, err := ReadGoBench(data, "bench.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	if got := lines[1].Name.String(); got != "Naive/path=root-2" {
		t.Errorf("name %q, want Naive/path=root-2", got)
	}
	if v := lines[1].Values[0]; v.Value != 1.3e-6 || v.Unit != "sec/op" {
		t.Errorf("first value %v %s, want 1.3e-06 sec/op", v.Value, v.Unit)
	}

	for what, c := range map[string]struct{ data, want string }{
		"syntax error": {"BenchmarkNaive 1000 12 ns/op 5\n", "bench.txt:1: "},
		"no lines":     {"goos: linux\nPASS\n", "bench.txt: no benchmark lines"},
	} {
		_, _, err := ReadGoBench([]byte(c.data), "bench.txt")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one starting %q", what, err, c.want)
		}
	}
}
