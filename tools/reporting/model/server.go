package model

import (
	"fmt"
	"sort"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/reporting/profiles"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// A ServerRow is a server benchmark's result (kind "server") as the report
// shows it: the median of its measured rounds, its profiles' top
// functions, and the contention its mutex and block profiles recorded.
type ServerRow struct {
	result.Benchmark
	Environment result.Environment
	Source      string
	Server      *result.Server
	Median      result.LoadRound
	// Side is the result as one side of the lab's comparison
	// (summary.NewSide): every figure it has, as tools/result declares
	// them, and what was measured where.
	Side summary.Side
	// Speed-up: the throughput over the declared reference's; 0 without one.
	SpeedUp float64

	// Files are its CPU profile's top functions, and its profiles and
	// call graphs, read when drawn.
	Files
	Problems []string

	// MutexContention and BlockContention summarise the mutex and block
	// profiles: their top 3 sites.
	MutexContention, BlockContention profiles.Contention

	Compared *ServerComparison // against the baseline; nil without one

	// Metrics are its counted figures per request (the runner's
	// servermetrics.go).
	Metrics []result.Metric
}

// MetricRows lists the study's counted figures per request, server by
// server.
func (s ServerStudy) MetricRows() []MetricRow {
	var rows []MetricRow
	for _, row := range s.Rows {
		rows = append(rows, metricRows(row.Name, row.Metrics)...)
	}
	return rows
}

func readServer(f result.Found) *ServerRow {
	res := f.Result
	row := &ServerRow{
		Benchmark: res.Benchmark, Environment: res.Environment, Source: f.Path,
		Server: res.Server, Median: res.Server.Median(), Metrics: res.Metrics,
	}
	var err error
	if row.Side, err = summary.NewSide(res, f.Outputs, f.Path); err != nil {
		row.Problems = append(row.Problems, err.Error())
	}
	var problems []string
	row.Files, problems = readFiles(f, []string{"cpu", "mutex", "block"}, func(kind string, p *profile.Profile) {
		switch kind {
		case "mutex":
			row.MutexContention = profiles.Contended(p, 3)
		case "block":
			row.BlockContention = profiles.Contended(p, 3)
		}
	})
	row.Problems = append(row.Problems, problems...)
	return row
}

// orderServers sorts server rows as the report shows them, by study, stage
// and name, and gives each its throughput over its reference's.
func orderServers(rows []*ServerRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Study != b.Study {
			return a.Study < b.Study
		}
		if a.Stage != b.Stage {
			return a.Stage < b.Stage
		}
		return a.Name < b.Name
	})
	byName := map[string]*ServerRow{}
	for _, row := range rows {
		byName[row.Name] = row
	}
	for _, row := range rows {
		if ref := byName[row.Reference]; ref != nil && ref.Median.Throughput > 0 {
			row.SpeedUp = row.Median.Throughput / ref.Median.Throughput
		}
	}
}

// A ServerStudy is the server rows of one study.
type ServerStudy struct {
	Title string
	Rows  []*ServerRow
}

// Columns are the figures the study's table shows, a column each.
func (ServerStudy) Columns() []result.Declared { return Columns(result.KindServer) }

// Cells are the row's figures in the server table's columns.
func (row *ServerRow) Cells() []Cell { return cells(result.KindServer, row.Side.Figures) }

// Workload describes the workloads of the study's rows.
func (s ServerStudy) Workload() string {
	var benchmarks []result.Benchmark
	for _, row := range s.Rows {
		benchmarks = append(benchmarks, row.Benchmark)
	}
	return workloadText(benchmarks)
}

// serverStudies groups the server rows by study, in their order.
func serverStudies(rows []*ServerRow) []ServerStudy {
	var studies []ServerStudy
	for _, group := range byStudy(rows, func(row *ServerRow) string { return row.Study }) {
		studies = append(studies, ServerStudy{Title: group[0].Study, Rows: group})
	}
	return studies
}

// RoundsText says how many rounds of how long the row measured.
func (row *ServerRow) RoundsText() string {
	return fmt.Sprintf("%d × %.0f s, %d connections", len(row.Server.Rounds), row.Server.Load.DurationSeconds, row.Server.Load.Connections)
}
