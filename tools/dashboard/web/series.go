package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/verdict"
)

// A choice is one series of the history: what the series page draws. Its
// fields are the page's URL parameters.
type choice struct {
	Benchmark, Figure, Unit, Workload, Env string
}

func choiceOf(r *http.Request) choice {
	return choice{Benchmark: param(r, "benchmark"), Figure: param(r, "figure"), Unit: param(r, "unit"),
		Workload: param(r, "workload"), Env: param(r, "env")}
}

func (c choice) query() map[string][]string {
	return query("benchmark", c.Benchmark, "figure", c.Figure, "unit", c.Unit, "workload", c.Workload, "env", c.Env)
}

// An option is one value of a picker, and whether it is the chosen one.
type option struct {
	Value, Label string
	Selected     bool
}

// pickers are the series page's menus: each lists what the history has
// under the choices before it, so that every combination offered exists.
type pickers struct {
	Benchmarks, Figures, Units, Workloads, Envs []option
}

// resolve completes c from the history's series (seen): each part left
// empty becomes the first the history has under the parts before it (the
// environment: the one measured last). It returns the completed choice,
// the menus, and the first part the history does not have ("" when it has
// them all).
func resolve(c choice, seen []alert.Seen) (choice, pickers, string) {
	var p pickers
	pick := func(value *string, values []string, latest string) ([]option, bool) {
		if *value == "" {
			*value = latest
		}
		var opts []option
		found := false
		for _, v := range values {
			opts = append(opts, option{Value: v, Label: v, Selected: v == *value})
			found = found || v == *value
		}
		return opts, found
	}
	// distinct lists the values of field over the series match selects,
	// and the one of the newest of them.
	distinct := func(match func(alert.Seen) bool, field func(alert.Seen) string) ([]string, string) {
		var values []string
		var latest string
		var last time.Time
		for _, s := range seen {
			if !match(s) {
				continue
			}
			if v := field(s); !slices.Contains(values, v) {
				values = append(values, v)
			}
			if latest == "" || s.Last.After(last) {
				latest, last = field(s), s.Last
			}
		}
		slices.Sort(values)
		return values, latest
	}
	var ok bool
	benchmarks, _ := distinct(func(alert.Seen) bool { return true }, func(s alert.Seen) string { return s.Benchmark })
	first := ""
	if len(benchmarks) > 0 {
		first = benchmarks[0]
	}
	if p.Benchmarks, ok = pick(&c.Benchmark, benchmarks, first); !ok {
		return c, p, "benchmark"
	}
	figures, _ := distinct(func(s alert.Seen) bool { return s.Benchmark == c.Benchmark }, func(s alert.Seen) string { return s.Figure })
	if p.Figures, ok = pick(&c.Figure, figures, defaultFigure(figures)); !ok {
		return c, p, "figure"
	}
	units, _ := distinct(func(s alert.Seen) bool { return s.Benchmark == c.Benchmark && s.Figure == c.Figure },
		func(s alert.Seen) string { return s.Unit })
	if p.Units, ok = pick(&c.Unit, units, units[0]); !ok {
		return c, p, "unit"
	}
	workloads, newest := distinct(func(s alert.Seen) bool {
		return s.Benchmark == c.Benchmark && s.Figure == c.Figure && s.Unit == c.Unit
	}, func(s alert.Seen) string { return s.Workload })
	if p.Workloads, ok = pick(&c.Workload, workloads, newest); !ok {
		return c, p, "workload"
	}
	envs, newest := distinct(func(s alert.Seen) bool {
		return s.Benchmark == c.Benchmark && s.Figure == c.Figure && s.Unit == c.Unit && s.Workload == c.Workload
	}, func(s alert.Seen) string { return s.EnvKey })
	if p.Envs, ok = pick(&c.Env, envs, newest); !ok {
		return c, p, "env"
	}
	return c, p, ""
}

// defaultFigure is the figure a benchmark's page opens on: real time when
// it has it (every program does), else its first.
func defaultFigure(figures []string) string {
	if slices.Contains(figures, "real_seconds") {
		return "real_seconds"
	}
	if len(figures) == 0 {
		return ""
	}
	return figures[0]
}

type seriesPage struct {
	Nav     string
	Choice  choice
	Pickers pickers
	// Environment describes the chosen environment key.
	Environment string
	// Points is the URL of the points' JSON, which the page's script
	// fetches.
	Points string
}

// series serves the series page: the pickers, filled from the history,
// and the chart's place, which static/series.js fills from the points'
// JSON. A choice left incomplete is completed and redirected to, so that
// the address always names the series shown.
func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	seen, _, err := s.db.Seen(r.Context())
	if err != nil {
		s.fail(w, "series", http.StatusInternalServerError, err.Error())
		return
	}
	if len(seen) == 0 {
		s.fail(w, "series", http.StatusNotFound, "the history "+s.db.Name()+" has no series yet: ingest results into it (history ingest)")
		return
	}
	asked := choiceOf(r)
	c, p, unknown := resolve(asked, seen)
	if unknown != "" {
		s.render(w, http.StatusNotFound, "series", seriesPage{Nav: "series", Choice: c, Pickers: p})
		return
	}
	if c != asked {
		http.Redirect(w, r, link("/series", c.query()), http.StatusFound)
		return
	}
	var env history.Environment
	for i := range p.Envs {
		// Few keys: one per machine and toolchain the series ran on.
		e, err := s.db.Environment(r.Context(), p.Envs[i].Value)
		if err != nil {
			s.fail(w, "series", http.StatusInternalServerError, err.Error())
			return
		}
		p.Envs[i].Label = gitwork.Short(p.Envs[i].Value) + ": " + e.String()
		if p.Envs[i].Value == c.Env {
			env = e
		}
	}
	s.render(w, http.StatusOK, "series", seriesPage{Nav: "series", Choice: c, Pickers: p, Environment: env.String(),
		Points: link("/api/series", c.query())})
}

// A point is one result of a series as the chart draws it: the median of
// its runs and their range (verdict.NewSample, the comparison's own
// summary of runs).
type point struct {
	Commit string    `json:"commit"`
	Dirty  bool      `json:"dirty,omitempty"`
	Time   time.Time `json:"time"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Runs   int       `json:"runs"`
}

// seriesJSON is what /api/series answers.
type seriesJSON struct {
	Benchmark string `json:"benchmark"`
	Figure    string `json:"figure"`
	Unit      string `json:"unit"`
	Workload  string `json:"workload"`
	EnvKey    string `json:"env_key"`
	Better    string `json:"better"`
	Gated     bool   `json:"gated"`
	// Total is how many points the series has; Points holds them all, or
	// fewer (downsample) when they are more than the chart draws.
	Total  int     `json:"total"`
	Points []point `json:"points"`
}

// seriesPoints answers the points of one series, every part of it named:
// one environment key, never a mix; of a series longer than the chart is
// wide (width, in pixels), those it draws (downsample).
func (s *Server) seriesPoints(w http.ResponseWriter, r *http.Request) {
	c := choiceOf(r)
	if c.Benchmark == "" || c.Figure == "" || c.Unit == "" || c.Workload == "" || c.Env == "" {
		http.Error(w, "want benchmark, figure, unit, workload and env: one series", http.StatusBadRequest)
		return
	}
	all, err := s.db.Series(r.Context(), history.Query{Benchmark: c.Benchmark, Metric: c.Figure, Workload: c.Workload, EnvKey: c.Env})
	if err != nil {
		s.logf("%v", err)
		http.Error(w, "the history could not be read; the server's log says why", http.StatusInternalServerError)
		return
	}
	i := slices.IndexFunc(all, func(x history.Series) bool { return x.Unit == c.Unit })
	if i < 0 {
		http.Error(w, "no such series in the history", http.StatusNotFound)
		return
	}
	se := all[i]
	out := seriesJSON{Benchmark: se.Benchmark, Figure: se.Metric, Unit: se.Unit, Workload: se.Workload, EnvKey: se.EnvKey,
		Better: se.Better, Gated: se.Gated, Total: len(se.Points), Points: make([]point, 0, len(se.Points))}
	for _, p := range se.Points {
		sample := verdict.NewSample(p.Values)
		out.Points = append(out.Points, point{Commit: p.Commit, Dirty: p.Dirty, Time: p.Started, Median: sample.Median,
			Min: sample.Min, Max: sample.Max, Runs: sample.Runs})
	}
	out.Points = downsample(out.Points, pointsFor(param(r, "width")))
	w.Header().Set("Content-Type", "application/json")
	// encoding/json escapes <, > and & in strings as well.
	json.NewEncoder(w).Encode(out)
}
