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

func TestShare(t *testing.T) {
	for _, c := range []struct {
		part, total int64
		want        string
	}{{97, 100, "97%"}, {1, 1000, "<1%"}, {-1, 1000, "-<1%"}, {-30, 100, "-30%"}, {0, 100, ""}, {5, 0, ""}} {
		if got := Share(c.part, c.total); got != c.want {
			t.Errorf("Share(%d, %d) = %q, want %q", c.part, c.total, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
		want string
	}{{"main.FindLoops", 20, "main.FindLoops"}, {"main.FindLoops", 4, "main…"}, {"héllo", 2, "hé…"}, {"a\xffb", 5, "a\uFFFDb"}} {
		if got := Cut(c.text, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.text, c.n, got, c.want)
		}
	}
}

func TestSigned(t *testing.T) {
	for v, want := range map[int64]string{1231721: "+1,231,721", -533: "-533", 0: "0"} {
		if got := Signed(v); got != want {
			t.Errorf("Signed(%d) = %q, want %q", v, got, want)
		}
	}
}
