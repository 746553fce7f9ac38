package numfmt

import "testing"

func TestNumber(t *testing.T) {
	for x, want := range map[float64]string{
		160289706: "160,289,706", -1234: "-1,234", 12: "12", 0.5: "0.5", 999.25: "999.2", 1e18: "1e+18", 1000: "1,000",
	} {
		if got := Number(x); got != want {
			t.Errorf("Number(%v) = %q, want %q", x, got, want)
		}
	}
}
