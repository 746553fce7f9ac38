package changepoint

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// nightly is a series of n nights, a point a night from firstNight on.
func nightly(n int) Series {
	s := Series{Name: "havlak6 own_instructions", Direction: LowerIsBetter}
	for i := range n {
		s.Points = append(s.Points, Point{ID: fmt.Sprintf("c%02d", i), Time: firstNight.Add(time.Duration(i) * 24 * time.Hour), Value: 1})
	}
	return s
}

func TestNightWindow(t *testing.T) {
	night := func(i int) time.Time { return firstNight.Add(time.Duration(i) * 24 * time.Hour) }
	s := nightly(10)
	for _, c := range []struct {
		name     string
		s        Series
		accepted time.Time
		tonight  bool
		// want: how many points are skipped, and how many searched
		// with and without the newest (-1: not searched).
		skipped, searched, withoutNewest int
	}{
		{"the whole series", s, time.Time{}, false, 0, 10, -1},
		{"tonight's", s, time.Time{}, true, 0, 10, 9},
		{"from the night accepted", s, night(4), true, 4, 6, 5},
		{"from the night after an acceptance between nights", s, night(4).Add(-time.Hour), true, 4, 6, 5},
		{"accepted after the newest point", s, night(10), true, 10, -1, -1},
		{"too few points since the acceptance", s, night(8), true, 8, -1, -1},
		{"just enough points", s, night(10 - MinSearchedPoints), false, 10 - MinSearchedPoints, MinSearchedPoints, -1},
		{"just enough points, too few without tonight's", s, night(10 - MinSearchedPoints), true, 10 - MinSearchedPoints, MinSearchedPoints, -1},
		{"too short a series", nightly(MinSearchedPoints - 1), time.Time{}, true, 0, -1, -1},
	} {
		w := NightWindow(c.s, c.accepted, c.tonight)
		if w.Skipped != c.skipped {
			t.Errorf("%s: skipped %d points, want %d", c.name, w.Skipped, c.skipped)
		}
		if w.Searched != (c.searched >= 0) || w.TellsNew != (c.withoutNewest >= 0) || w.Tonight != (c.tonight && c.searched >= 0) {
			t.Errorf("%s: searched %v, tonight %v, tells new %v; want %v, %v, %v", c.name, w.Searched, w.Tonight, w.TellsNew,
				c.searched >= 0, c.tonight && c.searched >= 0, c.withoutNewest >= 0)
		}
		if c.searched >= 0 && !reflect.DeepEqual(w.Series.Points, c.s.Points[c.skipped:]) {
			t.Errorf("%s: searches %v, want the points from %d on", c.name, w.Series.Points, c.skipped)
		}
		if c.withoutNewest >= 0 && !reflect.DeepEqual(w.WithoutNewest.Points, c.s.Points[c.skipped:len(c.s.Points)-1]) {
			t.Errorf("%s: searches without the newest %v, want the points from %d on but the newest", c.name, w.WithoutNewest.Points, c.skipped)
		}
		if w.Series.Name != "" && w.Series.Name != c.s.Name || w.WithoutNewest.Name != "" && w.WithoutNewest.Name != c.s.Name {
			t.Errorf("%s: searches series %q and %q, want %q", c.name, w.Series.Name, w.WithoutNewest.Name, c.s.Name)
		}
	}
}

func TestWindowResults(t *testing.T) {
	w := NightWindow(nightly(10), firstNight.Add(4*24*time.Hour), true)
	improvement := Result{Series: w.Series.Name, ChangePoints: []ChangePoint{{Index: 2}}}
	regression := Result{Series: w.Series.Name, ChangePoints: []ChangePoint{{Index: 2}, {Index: 4, Regression: true}}}
	if w.NeedsWithoutNewest(improvement) || !w.NeedsWithoutNewest(regression) {
		t.Errorf("needs the search without the newest point: %v for an improvement, %v for a regression; want false, true",
			w.NeedsWithoutNewest(improvement), w.NeedsWithoutNewest(regression))
	}
	if notTonight := NightWindow(nightly(10), time.Time{}, false); notTonight.NeedsWithoutNewest(regression) {
		t.Error("a series without tonight's point needs the search without it")
	}
	whole := w.Whole(regression)
	if got := []int{whole.ChangePoints[0].Index, whole.ChangePoints[1].Index}; !reflect.DeepEqual(got, []int{6, 8}) {
		t.Errorf("change points at %v of the whole series, want [6 8]", got)
	}
	if regression.ChangePoints[0].Index != 2 {
		t.Error("Whole changed the window's result")
	}
}
