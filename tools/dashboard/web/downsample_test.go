package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"
)

// A long series comes down to at most the points asked for, in time
// order, with its one-night spike and dip among them.
func TestDownsample(t *testing.T) {
	start := time.Date(2020, 1, 1, 2, 0, 0, 0, time.UTC)
	var long []point
	for i := range 10000 {
		m := 1 + 0.001*float64(i%7)
		switch i {
		case 4321:
			m = 9 // a spike
		case 8765:
			m = 0.1 // a dip
		}
		long = append(long, point{Commit: "c", Time: start.Add(time.Duration(i) * 24 * time.Hour), Median: m})
	}
	got := downsample(long, maxPoints)
	if len(got) > maxPoints || len(got) < maxPoints/2 {
		t.Errorf("%d points of %d, want at most %d and at least one a bucket", len(got), len(long), maxPoints)
	}
	if !slices.IsSortedFunc(got, func(a, b point) int { return a.Time.Compare(b.Time) }) {
		t.Error("the points are out of time order")
	}
	for _, want := range []int{4321, 8765} {
		if !slices.ContainsFunc(got, func(p point) bool { return p.Time.Equal(long[want].Time) && p.Median == long[want].Median }) {
			t.Errorf("point %d (median %g) is left out", want, long[want].Median)
		}
	}
	if short := long[:maxPoints]; len(downsample(short, maxPoints)) != maxPoints {
		t.Error("a series the chart holds is downsampled")
	}
	for width, want := range map[string]int{"": maxPoints, "x": maxPoints, "-3": maxPoints, "600": 1200, "5000": maxPoints} {
		if got := pointsFor(width); got != want {
			t.Errorf("width %q: %d points, want %d", width, got, want)
		}
	}
}

// /api/series sends what a chart of the width asked for draws, and says
// how many points the series has.
func TestSeriesPointsDownsampled(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	resp, body := get(t, srv.URL, "/api/series?"+seriesQuery("havlak6", "real_seconds", "s")+"&width=2")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s:\n%s", resp.Status, body)
	}
	var got seriesJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Total != nights || len(got.Points) > 4 || len(got.Points) < 2 {
		t.Fatalf("%d points of %d, want at most 4 of %d", len(got.Points), got.Total, nights)
	}
	if last := got.Points[len(got.Points)-1]; last.Commit != commitOf(nights-1) || last.Median != 1.5 {
		t.Errorf("the last night's slowdown is left out: %+v", got.Points)
	}
}
