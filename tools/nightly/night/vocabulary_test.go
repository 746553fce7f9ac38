package night

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint"
	"havlak-lab/tools/history"
	"havlak-lab/tools/reporting/export"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// serverResult is a server benchmark's result of five rounds at
// throughput requests per second.
func serverResult(throughput float64) *result.Result {
	r := &result.Result{SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "router1", Kind: result.KindServer, Study: "router", Language: "Go",
			Workload: result.Workload{Name: result.WorkloadQuick}},
		Environment: result.Environment{Started: "2026-11-20T02:00:00Z"},
		Server:      &result.Server{Load: result.Load{Generator: "vegeta"}}}
	for i := range 5 {
		r.Server.Rounds = append(r.Server.Rounds, result.LoadRound{Throughput: throughput + float64(i),
			Latency: result.Latency{P99: 0.001 * (1 + float64(i)/100)}})
	}
	return r
}

// The gate's regression of a server figure and the history's change point
// of the same figure are one finding: the report names its figures as
// tools/result declares them, which is how the history keeps them, so
// the two match as one alert.
func TestServerRegressionAndChangePointAreOneAlert(t *testing.T) {
	row := func(r *result.Result) *model.ServerRow {
		side, err := summary.NewSide(r, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		return &model.ServerRow{Benchmark: r.Benchmark, Environment: r.Environment, Server: r.Server, Side: side}
	}
	before, tonight := serverResult(10000), serverResult(5000)
	rep := &model.Report{Servers: []*model.ServerRow{row(tonight)}}
	if _, _, err := model.Compare(rep, &model.Set{Servers: []*model.ServerRow{row(before)}}, model.Gate{}, nil); err != nil {
		t.Fatal(err)
	}
	found := []result.Found{{Path: "night/router1_quick_test/outputs.zip", Result: tonight}}
	g := gateFindings{n: &night{}, found: found, fine: map[alert.Series]bool{}, ran: map[[2]string]bool{}}
	g.fromSummary(export.Summary(rep))
	var regression *alert.Finding
	for i, f := range g.findings {
		if f.Kind == alert.Regression && f.Series.Figure == "throughput" {
			regression = &g.findings[i]
		}
	}
	if regression == nil {
		t.Fatalf("the report's summary gave no regression of the throughput: %+v", g.findings)
	}

	// The history's series of the figure, as it ingests a result: its
	// figures, keyed by the environment.
	figures, _ := result.Figures(tonight, nil)
	var series history.Series
	for _, f := range figures {
		if f.Name == "throughput" {
			series = history.Series{Benchmark: tonight.Benchmark.Name, Workload: tonight.Benchmark.Workload.Name,
				Figure: f.Name, Unit: f.Unit, EnvKey: result.EnvironmentKey(tonight.Environment)}
		}
	}
	day := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	cp := changeFinding(series, changepoint.ChangePoint{Before: changepoint.Point{ID: "aaaa", Time: day.AddDate(0, 0, -1)},
		After: changepoint.Point{ID: "bbbb", Time: day}, MeanBefore: 10002, MeanAfter: 5002, Change: -0.5, Regression: true}, false, nil)

	ctx := context.Background()
	db, err := history.Create(ctx, "sqlite:"+filepath.Join(t.TempDir(), "history.sqlite"), history.Shared)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.RecordAlerts(ctx, alert.Night{Time: day, Commit: "bbbb", By: nightBy}, []alert.Finding{*regression, cp}, nil); err != nil {
		t.Fatal(err)
	}
	all, err := db.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Errorf("%d alerts, want the regression and the change point as one: %+v", len(all), all)
	}
}
