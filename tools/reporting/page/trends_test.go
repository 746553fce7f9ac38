package page

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/trends"
)

// The charts' data are the series' medians and spreads, grouped by
// benchmark in the file's order.
func TestTrendGroups(t *testing.T) {
	series := []trends.Series{
		{Benchmark: "b", Figure: "real", Unit: "s", Points: []trends.Point{
			{Commit: "c1", Time: time.UnixMilli(1000), Values: []float64{3, 1, 2}, Profiles: "p1/"},
			{Commit: "c2", Time: time.UnixMilli(2000), Values: []float64{4, 6}},
		}, ChangePoints: []trends.Change{{Index: 1, From: "c1", To: "c2", Change: 1.5, Regression: true}}},
		{Benchmark: "a", Figure: "real", Points: []trends.Point{{Commit: "c1", Time: time.UnixMilli(1000), Values: []float64{7}}}},
		{Benchmark: "b", Figure: "rss", Points: []trends.Point{{Commit: "c1", Time: time.UnixMilli(1000), Values: []float64{8}}}},
	}
	groups := trendGroups(series)
	var got []string
	for _, g := range groups {
		for _, c := range g.Charts {
			got = append(got, g.Benchmark+":"+c.ID+":"+c.Figure)
		}
	}
	if want := "b:trend-0:real b:trend-2:rss a:trend-1:real"; strings.Join(got, " ") != want {
		t.Errorf("charts %q, want %q", strings.Join(got, " "), want)
	}
	c := groups[0].Charts[0]
	data, _ := json.Marshal(c)
	want := `{"id":"trend-0","benchmark":"b","metric":"real","unit":"s","commits":["c1","c2"],"times":[1000,2000],"runs":[3,2],` +
		`"median":[2,5],"min":[1,4],"max":[3,6],"links":["p1/",""],"changes":[{"index":1,"from":"c1","to":"c2","change":1.5,"regression":true}]}`
	if string(data) != want {
		t.Errorf("chart data\n%s\nwant\n%s", data, want)
	}
	if text := changeText(c.Changes[0]); text != "+150.0% (regression) between c1 and c2" {
		t.Errorf("changeText: %q", text)
	}
}
