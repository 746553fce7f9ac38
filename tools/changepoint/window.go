package changepoint

import (
	"slices"
	"time"
)

// SearchedPoints is how many of a series' newest points the nightly job
// reads, charts and searches for change points: three of Otava's windows.
// Otava's E-divisive finds its candidates a window at a time, so tonight's
// point, the newest, can make or unmake only a change point among the
// newest window's points; Otava then tests each candidate against the
// stable stretch before it, which the two windows before leave at least
// 100 points long: far more than a change of the smallest size kept
// (DefaultMinMagnitude, 1%) needs against the gated figures' noise
// (docs/noise.md) for Otava's p-value. Whether a regression is new
// tonight is decided over the same stretch without tonight's point. Older
// change points are no longer found again each night: their alerts stay
// as they are (alert.Reconcile fixes no change point it does not find),
// and the dashboard's series page charts the whole series. A night's
// search is then bounded however long the history (docs/scale.md).
const SearchedPoints = 3 * DefaultWindow

// MinSearchedPoints is the fewest points a series needs to be searched
// for change points: fewer cannot show a change against their own noise.
const MinSearchedPoints = 3

// A Window is the part of a series' history that the nightly job searches
// for change points, chosen by NightWindow.
type Window struct {
	// Skipped is how many of the series' oldest points come before its
	// accepted level: the search leaves them out.
	Skipped int
	// Searched says Series, the series from its accepted level on, has the
	// MinSearchedPoints it takes to be searched.
	Searched bool
	Series   Series
	// Tonight says the series' newest point is tonight's: only then are
	// its regressions tonight's to report.
	Tonight bool
	// TellsNew says Series without tonight's point, WithoutNewest, is long
	// enough to search too: a change point found there as well is not new
	// tonight.
	TellsNew      bool
	WithoutNewest Series
}

// NightWindow chooses the window of s that the nightly job searches: its
// points from accepted on (when its level was last accepted; zero for
// never), if there are enough of them, and whether tonight is its newest
// point's night.
func NightWindow(s Series, accepted time.Time, tonight bool) Window {
	var w Window
	if !accepted.IsZero() {
		w.Skipped = slices.IndexFunc(s.Points, func(p Point) bool { return !p.Time.Before(accepted) })
		if w.Skipped < 0 {
			w.Skipped = len(s.Points)
		}
	}
	if len(s.Points)-w.Skipped < MinSearchedPoints {
		return w
	}
	w.Searched, w.Tonight = true, tonight
	w.Series = s
	w.Series.Points = s.Points[w.Skipped:]
	if tonight && len(w.Series.Points) > MinSearchedPoints {
		w.TellsNew = true
		w.WithoutNewest = w.Series
		w.WithoutNewest.Points = w.Series.Points[:len(w.Series.Points)-1]
	}
	return w
}

// NeedsWithoutNewest says whether WithoutNewest must be searched, given
// found, the change points of Series: only when it tells new from known
// and there is a regression to tell.
func (w Window) NeedsWithoutNewest(found Result) bool {
	return w.TellsNew && len(found.Regressions()) > 0
}

// Whole is found, the change points of Series, indexed in the whole
// series, as its chart indexes its points.
func (w Window) Whole(found Result) Result {
	found.ChangePoints = slices.Clone(found.ChangePoints)
	for i := range found.ChangePoints {
		found.ChangePoints[i].Index += w.Skipped
	}
	return found
}
