package explodepath

import "testing"

// benchPaths are representative request paths. Run the benchmarks with
//
//	go test -run '^$' -bench . -benchmem -count 6 ./go/explodepath > bench.txt
//	go run golang.org/x/perf/cmd/benchstat -col .name bench.txt
//
// to compare the versions path by path.
var benchPaths = []struct{ name, path string }{
	{"root", "/"},
	{"one", "/healthz"},
	{"api", "/api/v1/users/42/"},
	{"deep", "/a/b/c/d/e/f/g/h/i/j"},
	{"static", "/static/js/vendor/jquery/3.7.1/jquery.min.js"},
}

func benchmark(b *testing.B, explode func(string) []string) {
	for _, p := range benchPaths {
		b.Run("path="+p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = explode(p.path)
			}
		})
	}
}

func BenchmarkNaive(b *testing.B)      { benchmark(b, Naive) }
func BenchmarkPresized(b *testing.B)   { benchmark(b, Presized) }
func BenchmarkFieldsFunc(b *testing.B) { benchmark(b, FieldsFunc) }
