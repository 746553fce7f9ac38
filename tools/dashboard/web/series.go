package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
)

// A choice is one series of the history: what the series page draws. Its
// fields are the page's URL parameters.
type choice struct {
	Benchmark, Figure, Unit, Workload, Env string
}

func choiceOf(r *http.Request) choice {
	return choice{Benchmark: name(r, "benchmark"), Figure: name(r, "figure"), Unit: name(r, "unit"),
		Workload: name(r, "workload"), Env: name(r, "env")}
}

// name is a query parameter that names something of the history, as it
// is: never trimmed, since a name may begin or end with a space. The
// history validates it: a name it does not have is not found.
func name(r *http.Request, key string) string { return r.URL.Query().Get(key) }

func (c choice) query() url.Values {
	return query("benchmark", c.Benchmark, "figure", c.Figure, "unit", c.Unit, "workload", c.Workload, "env", c.Env)
}

// param is c as the series page's repeatable s parameter names a series
// overlaid on the chart: benchmark|figure|unit|workload|env, each part
// with its "%" and "|" percent-encoded (%25, %7C), so that a name holding
// either reads back whole. A name with neither is written as it is: the
// links of before the encoding still open.
func (c choice) param() string {
	parts := []string{c.Benchmark, c.Figure, c.Unit, c.Workload, c.Env}
	for i, p := range parts {
		parts[i] = partEscaper.Replace(p)
	}
	return strings.Join(parts, "|")
}

var partEscaper = strings.NewReplacer("%", "%25", "|", "%7C")

// choiceOfParam reads an s parameter: every part of one series. A part
// that is no valid percent-encoding is taken as it is (an older link of a
// name with a "%").
func choiceOfParam(s string) (choice, error) {
	parts := strings.Split(s, "|")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			parts[i] = u
		}
	}
	if len(parts) != 5 || slices.Contains(parts, "") {
		return choice{}, fmt.Errorf("s=%s: want benchmark|figure|unit|workload|env, every part of one series", clip(s))
	}
	return choice{Benchmark: parts[0], Figure: parts[1], Unit: parts[2], Workload: parts[3], Env: parts[4]}, nil
}

// viewParams are the series page's parameters of how its chart is drawn,
// which its script keeps in the address (static/series.js): values
// (view=relative, from the reference point ref), y range (y=zero), scale
// (scale=log) and zoom (from, to). A redirect carries them on.
var viewParams = []string{"view", "ref", "y", "scale", "from", "to"}

// String names the series for people: "havlak6 real_seconds (s, quick)".
func (c choice) String() string {
	return fmt.Sprintf("%s %s (%s, %s)", c.Benchmark, c.Figure, c.Unit, c.Workload)
}

// exists tells whether the history has the series c names.
func (c choice) exists(seen []alert.Seen) bool {
	return slices.ContainsFunc(seen, func(s alert.Seen) bool {
		return s.Benchmark == c.Benchmark && s.Figure == c.Figure && s.Unit == c.Unit && s.Workload == c.Workload && s.EnvKey == c.Env
	})
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

// defaultFigure is the figure a benchmark's page opens on: its headline
// (result.Headline: a program's real time, a server's throughput), else
// its first.
func defaultFigure(figures []string) string { return result.Headline(figures) }

type seriesPage struct {
	Nav     string
	Choice  choice
	Pickers pickers
	// Environment describes the chosen environment key.
	Environment string
	// Points is the URL of the points' JSON, which the page's script
	// fetches.
	Points string
	// Kept are the series the URL keeps on the chart (its s parameters),
	// which the pickers' form carries on; Keep is the chosen series as an
	// s parameter, "" when it is kept already. Overlays are the series
	// kept but the chosen one, each drawn with it.
	Kept     []string
	Keep     string
	Overlays []overlay
	// Message says what was wrong with an s parameter.
	Message string
	// Multiples is the page of the chosen figure across benchmarks.
	Multiples string
}

// An overlay is a series drawn on the chart with the chosen one.
type overlay struct {
	Choice choice
	Param  string // its s parameter
	Points string // its points' JSON
	Remove string // the page without it
}

// maxOverlays bounds the series one chart draws; maxUnits the units it
// has axes for: the chosen series' on the left, another on the right.
const (
	maxOverlays = 10 // as many as static/chart.js has distinct colours
	maxUnits    = 2
)

// overlaysOf reads the s parameters: the series kept on the chart, each
// once, and those of them drawn with the chosen one (c): all but c. A
// series the history lacks, a third unit or too many series is the
// user's mistake, said with status.
func overlaysOf(r *http.Request, c choice, seen []alert.Seen) ([]string, []overlay, int, error) {
	var kept []choice
	var params []string
	for _, s := range r.URL.Query()["s"] {
		o, err := choiceOfParam(s)
		if err != nil {
			return nil, nil, http.StatusBadRequest, err
		}
		if !o.exists(seen) {
			return nil, nil, http.StatusNotFound, fmt.Errorf("s=%s: the history has no such series", clip(s))
		}
		if slices.Contains(params, o.param()) {
			continue
		}
		params = append(params, o.param())
		if o != c {
			kept = append(kept, o)
		}
	}
	if len(kept)+1 > maxOverlays {
		return nil, nil, http.StatusBadRequest, fmt.Errorf("%d series: one chart draws at most %d", len(kept)+1, maxOverlays)
	}
	units := []string{c.Unit}
	for _, o := range kept {
		if !slices.Contains(units, o.Unit) {
			units = append(units, o.Unit)
		}
	}
	if len(units) > maxUnits {
		return nil, nil, http.StatusBadRequest, fmt.Errorf("series in %d units (%s): one chart has an axis for at most %d", len(units), strings.Join(units, ", "), maxUnits)
	}
	var out []overlay
	for _, o := range kept {
		q := c.query()
		for _, other := range params {
			if other != o.param() {
				q.Add("s", other)
			}
		}
		out = append(out, overlay{Choice: o, Param: o.param(), Points: link("/api/series", o.query()), Remove: link("/series", q)})
	}
	return params, out, 0, nil
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
	asks := r.URL.Query()["s"]
	if asked == (choice{}) && len(asks) > 0 {
		// Only overlays: the first is the chosen series.
		first, err := choiceOfParam(asks[0])
		if err != nil {
			s.fail(w, "series", http.StatusBadRequest, err.Error())
			return
		}
		asked = first
	}
	c, p, unknown := resolve(asked, seen)
	if unknown != "" {
		// The page's title says the choice: what the history lacks, clipped.
		shown := choice{Benchmark: clip(c.Benchmark), Figure: clip(c.Figure), Unit: clip(c.Unit), Workload: clip(c.Workload), Env: clip(c.Env)}
		s.render(w, http.StatusNotFound, "series", seriesPage{Nav: "series", Choice: shown, Pickers: p})
		return
	}
	if c != asked || name(r, "benchmark") == "" {
		q := c.query()
		for _, k := range asks {
			q.Add("s", k)
		}
		for _, k := range viewParams {
			if v := r.URL.Query().Get(k); v != "" {
				q.Set(k, v)
			}
		}
		http.Redirect(w, r, link("/series", q), http.StatusFound)
		return
	}
	kept, overlays, status, err := overlaysOf(r, c, seen)
	if err != nil {
		s.render(w, status, "series", seriesPage{Nav: "series", Choice: c, Pickers: p, Message: err.Error()})
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
	page := seriesPage{Nav: "series", Choice: c, Pickers: p, Environment: env.String(),
		Points: link("/api/series", c.query()), Kept: kept, Keep: c.param(), Overlays: overlays, Multiples: multiplesLink(c)}
	if slices.Contains(kept, page.Keep) {
		page.Keep = ""
	}
	s.render(w, http.StatusOK, "series", page)
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
	// Compare is the compare page of the point's commit against the
	// series' point before it ("" for the first). Report is the
	// dashboard's address of the night's report, and Profiles of pprof's
	// flame graph of each profile the result keeps, when the result was
	// ingested from the nightly job's archive (archive.go); none
	// otherwise.
	Compare  string         `json:"compare,omitempty"`
	Report   string         `json:"report,omitempty"`
	Profiles []pointProfile `json:"profiles,omitempty"`
}

// A pointProfile is a profile a point's result keeps.
type pointProfile struct {
	Kind       string `json:"kind"`
	Flamegraph string `json:"flamegraph"`
}

// archivedProfiles are the flame graphs of the profiles that the result
// of p keeps, if it is a result of the archive.
func archivedProfiles(p history.Point) []pointProfile {
	if _, _, ok := archived(p.Source); !ok || !result.IsSHA256(p.SHA256) {
		return nil
	}
	var out []pointProfile
	for _, f := range p.Profiles() {
		if profileKind(f.Profile) && !slices.ContainsFunc(out, func(o pointProfile) bool { return o.Kind == f.Profile }) {
			out = append(out, pointProfile{Kind: f.Profile, Flamegraph: profileLink(p.SHA256, "", f.Profile, "flamegraph")})
		}
	}
	return out
}

// A marker is an alert of the series as the chart draws it: the range of
// commits the change came in, with its state. The history keeps the
// change points the nightly job finds only as the alerts they open
// (kinds change_point and regression): these are what the chart marks.
type marker struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	State    string    `json:"state"`
	Colour   string    `json:"colour"` // its state's (tools/alert.Rules)
	From     string    `json:"from"`
	To       string    `json:"to"`
	FromTime time.Time `json:"from_time"`
	ToTime   time.Time `json:"to_time"`
	Change   string    `json:"change"`
	Page     string    `json:"page"`
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
	// Name names the series on the chart; Series is its page.
	Name   string `json:"name"`
	Series string `json:"series"`
	// Total is how many points the series has; Points holds them all, or
	// fewer (downsample) when they are more than the chart draws.
	Total   int      `json:"total"`
	Points  []point  `json:"points"`
	Markers []marker `json:"markers"`
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
	all, err := s.db.Series(r.Context(), history.Query{Benchmark: c.Benchmark, Figure: c.Figure, Workload: c.Workload, EnvKey: c.Env})
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
	out := seriesJSON{Benchmark: se.Benchmark, Figure: se.Figure, Unit: se.Unit, Workload: se.Workload, EnvKey: se.EnvKey,
		Better: se.Better, Gated: se.Gated, Name: c.String(), Series: link("/series", c.query()),
		Total: len(se.Points), Points: make([]point, 0, len(se.Points)), Markers: []marker{}}
	for i, p := range se.Points {
		sample := result.NewSample(p.Values)
		pt := point{Commit: p.Commit, Dirty: p.Dirty, Time: p.Started, Median: sample.Median,
			Min: sample.Min, Max: sample.Max, Runs: sample.Runs, Report: reportLink(p.Source), Profiles: archivedProfiles(p)}
		if i > 0 {
			pt.Compare = link("/compare", query("a", se.Points[i-1].Commit, "b", p.Commit))
		}
		out.Points = append(out.Points, pt)
	}
	alerts, err := s.db.Alerts(r.Context())
	if err != nil {
		s.logf("%v", err)
		http.Error(w, "the history could not be read; the server's log says why", http.StatusInternalServerError)
		return
	}
	for _, a := range alerts {
		if (a.Kind == alert.Regression || a.Kind == alert.ChangePoint) && a.Benchmark == c.Benchmark && a.Figure == c.Figure &&
			a.Unit == c.Unit && a.Workload == c.Workload && a.EnvKey == c.Env && !a.Range.ToTime.IsZero() {
			out.Markers = append(out.Markers, marker{ID: a.ID, Kind: string(a.Kind), State: string(a.State()), Colour: alert.RuleOf(a.State()).Colour, From: a.Range.From,
				To: a.Range.To, FromTime: a.Range.FromTime, ToTime: a.Range.ToTime, Change: a.ChangeText(), Page: alertRowOf(a).Page})
		}
	}
	out.Points = downsample(out.Points, pointsFor(param(r, "width")))
	w.Header().Set("Content-Type", "application/json")
	// encoding/json escapes <, > and & in strings as well.
	json.NewEncoder(w).Encode(out)
}
