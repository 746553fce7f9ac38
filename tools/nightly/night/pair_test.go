package night

import (
	"errors"
	"net/url"
	"testing"

	"havlak-lab/tools/result"
)

// The annotation's compare page: the two commits; or, when tonight
// measured the baseline's commit again, the two nights by their dates,
// since a=C&b=C would compare tonight's results with themselves.
func TestComparePair(t *testing.T) {
	dashboard := &url.URL{Scheme: "http", Host: "127.0.0.1:8080", Path: "/lab"}
	night := func(commit, started string) []result.Found {
		return []result.Found{{Err: errors.New("unreadable")}, {Result: &result.Result{Environment: result.Environment{
			Source: result.Source{Commit: commit}, Started: started}}}}
	}
	for _, c := range []struct {
		before, tonight []result.Found
		want            string
	}{
		{night("aaaa", "2026-11-19T02:00:00Z"), night("bbbb", "2026-11-20T02:00:00Z"), "http://127.0.0.1:8080/lab/compare?a=aaaa&b=bbbb"},
		{night("aaaa", "2026-11-19T23:59:00+02:00"), night("aaaa", "2026-11-20T02:00:00Z"), "http://127.0.0.1:8080/lab/compare?a=2026-11-19&b=2026-11-20"},
		// The same commit on the same day: nothing tells them apart.
		{night("aaaa", "2026-11-20T01:00:00Z"), night("aaaa", "2026-11-20T02:00:00Z"), "http://127.0.0.1:8080/lab/compare?a=aaaa&b=aaaa"},
	} {
		if got := comparePair(dashboard, c.before, c.tonight).CompareURL(); got != c.want {
			t.Errorf("%s at %s, then %s at %s: %s, want %s", commitOf(c.before), c.before[1].Result.Environment.Started,
				commitOf(c.tonight), c.tonight[1].Result.Environment.Started, got, c.want)
		}
	}
}
