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

// BenchmarkStir is one Stir of StirTurns turns an operation: work that no
// variant changes.
func BenchmarkStir(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Stir(StirTurns)
	}
}

func TestSpin(t *testing.T) {
	if got := Spin(2); got != 1 {
		t.Errorf("Spin(2) = %d, want 1", got)
	}
	if got := Stir(1); got == 88172645463325252 || got == 0 {
		t.Errorf("Stir(1) = %d: no turn taken", got)
	}
	if turns, err := Turns(); err != nil || turns < 1000 {
		t.Errorf("Turns() = %d, %v", turns, err)
	}
}
