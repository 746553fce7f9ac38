package main

import "testing"

func TestLongest(t *testing.T) {
	for _, c := range []struct{ n, start, steps int }{
		{1, 1, 0},
		{10, 9, 19},
		{1000, 871, 178},
	} {
		if start, steps := longest(c.n); start != c.start || steps != c.steps {
			t.Errorf("longest(%d) = %d, %d; want %d, %d", c.n, start, steps, c.start, c.steps)
		}
	}
}

var sink int

// BenchmarkLongest is the example consumer's testing.B benchmark
// (../measure's go_benchmark).
func BenchmarkLongest(b *testing.B) {
	for i := 0; i < b.N; i++ {
		start, _ := longest(1000)
		sink += start
	}
}
