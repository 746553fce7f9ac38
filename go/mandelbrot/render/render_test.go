package render

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
)

func TestModesDrawTheSameImage(t *testing.T) {
	for _, p := range []Params{{Size: 64, Iterations: 200}, {Size: 37, Iterations: 50}, {Size: 1, Iterations: 10}} {
		want := Seq(p)
		var wantPNG bytes.Buffer
		if err := png.Encode(&wantPNG, want); err != nil {
			t.Fatal(err)
		}
		for _, m := range Modes {
			for _, workers := range []int{1, 3, 100} {
				got := m.Draw(p, workers)
				if got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
					t.Errorf("%+v: mode %s with %d workers draws other pixels than seq", p, m.Name, workers)
					continue
				}
				var gotPNG bytes.Buffer
				if err := png.Encode(&gotPNG, got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(gotPNG.Bytes(), wantPNG.Bytes()) {
					t.Errorf("%+v: mode %s with %d workers encodes to other bytes than seq", p, m.Name, workers)
				}
			}
		}
	}
}

func TestEscape(t *testing.T) {
	const iterations = 500
	for _, c := range []struct {
		name   string
		cr, ci float64
		want   int
	}{
		{"origin", 0, 0, iterations},
		{"period-2 bulb", -1, 0, iterations},
		{"tip of the needle", -2, 0, iterations}, // z stays at 2, never beyond
		{"centre of the main cardioid", -0.5, 0, iterations},
		{"far outside", 10, 10, 0},
		{"just outside the real interval", 0.3, 0, 11}, // z₁₂ ≈ 2.196 is the first beyond 2
		{"i", 0, 1, iterations},                        // z cycles through -1+i, -i, -1+i
		{"2i", 0, 2, 1},
	} {
		if got := Escape(c.cr, c.ci, iterations); got != c.want {
			t.Errorf("%s (%g%+gi): escapes after %d iterations, want %d", c.name, c.cr, c.ci, got, c.want)
		}
	}
}

func TestKnownPixels(t *testing.T) {
	p := Params{Size: 100, Iterations: 300}
	img := Seq(p)
	for _, c := range []struct {
		name string
		x, y int
		want uint8
	}{
		{"top left corner, far outside", 0, 0, 255},
		{"bottom left corner, far outside", 0, 99, 255},
		{"centre of the main cardioid", 50, 50, 0}, // (-0.485, -0.015)
		{"period-2 bulb", 33, 49, 0},               // (-0.995, 0.015)
	} {
		cr, ci := Point(p, c.x, c.y)
		if got := img.GrayAt(c.x, c.y).Y; got != c.want {
			t.Errorf("%s: pixel (%d, %d) at %g%+gi is %d, want %d", c.name, c.x, c.y, cr, ci, got, c.want)
		}
	}
	// Gray levels fall as escape times grow.
	if a, b := Gray(p, 0, 50), Gray(p, 20, 50); !(a > b && b > 0) {
		t.Errorf("gray %d at the left edge, %d nearer the set: want 255 > first > second > 0", a, b)
	}
}

func TestPoint(t *testing.T) {
	p := Params{Size: 3, Iterations: 1}
	for _, c := range []struct {
		x, y   int
		cr, ci float64
	}{{0, 0, -1.5, 1}, {1, 1, -0.5, 0}, {2, 2, 0.5, -1}} {
		if cr, ci := Point(p, c.x, c.y); cr != c.cr || ci != c.ci {
			t.Errorf("Point(%d, %d) = %g%+gi, want %g%+gi", c.x, c.y, cr, ci, c.cr, c.ci)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, m := range Modes {
		if got, err := Lookup(m.Name); err != nil || got.Name != m.Name {
			t.Errorf("Lookup(%q) = %v, %v", m.Name, got.Name, err)
		}
	}
	_, err := Lookup("bogus")
	if err == nil || !strings.Contains(err.Error(), "seq, px, row, workers, workers-buffered") {
		t.Errorf("Lookup(bogus): %v, want an error listing the modes", err)
	}
}
