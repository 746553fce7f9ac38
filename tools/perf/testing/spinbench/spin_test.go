package spinbench

import "testing"

var sink uint64

// BenchmarkSpin is one Spin of Turns() turns an operation.
func BenchmarkSpin(b *testing.B) {
	turns, err := Turns()
	if err != nil || Variant() == "" {
		b.Fatalf("extraTurns %q, variant %q: %v", extraTurns, variant, err)
	}
	for i := 0; i < b.N; i++ {
		sink += Spin(turns)
	}
}

func TestSpin(t *testing.T) {
	if got := Spin(2); got != 1 {
		t.Errorf("Spin(2) = %d, want 1", got)
	}
	if turns, err := Turns(); err != nil || turns < 1000 {
		t.Errorf("Turns() = %d, %v", turns, err)
	}
}
