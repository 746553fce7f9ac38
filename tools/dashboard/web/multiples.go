package web

import (
	"fmt"
	"net/http"
	"slices"

	"havlak-lab/tools/alert"
)

// maxMultiples bounds the charts of the small multiples page.
const maxMultiples = 48

type multiplesPage struct {
	Nav                    string
	Figure, Unit, Workload string
	// Charts are the benchmarks' series of the figure, by name.
	Charts []multiple
	// Message says what the page leaves out.
	Message string
}

// A multiple is one benchmark's series on the small multiples page.
type multiple struct {
	Choice choice
	Points string // its points' JSON
	Series string // its series page
}

// multiples serves one figure across every benchmark that has it
// (/series/multiples?figure=F&unit=U&workload=W): a small chart each,
// static/multiples.js drawing them, each benchmark in the environment it
// was measured in last.
func (s *Server) multiples(w http.ResponseWriter, r *http.Request) {
	p := multiplesPage{Nav: "series", Figure: name(r, "figure"), Unit: name(r, "unit"), Workload: name(r, "workload")}
	if p.Figure == "" || p.Unit == "" || p.Workload == "" {
		s.fail(w, "series", http.StatusBadRequest, "want figure, unit and workload: /series/multiples?figure=F&unit=U&workload=W")
		return
	}
	seen, _, err := s.db.Seen(r.Context())
	if err != nil {
		s.fail(w, "series", http.StatusInternalServerError, err.Error())
		return
	}
	latest := map[string]alert.Seen{}
	var benchmarks []string
	for _, se := range seen {
		if se.Figure != p.Figure || se.Unit != p.Unit || se.Workload != p.Workload {
			continue
		}
		old, ok := latest[se.Benchmark]
		if !ok {
			benchmarks = append(benchmarks, se.Benchmark)
		}
		if !ok || se.Last.After(old.Last) {
			latest[se.Benchmark] = se
		}
	}
	if len(benchmarks) == 0 {
		s.fail(w, "series", http.StatusNotFound, fmt.Sprintf("no benchmark of the history has figure %q in %q on the %q workload",
			clip(p.Figure), clip(p.Unit), clip(p.Workload)))
		return
	}
	slices.Sort(benchmarks)
	if len(benchmarks) > maxMultiples {
		p.Message = fmt.Sprintf("The first %d of %d benchmarks, by name.", maxMultiples, len(benchmarks))
		benchmarks = benchmarks[:maxMultiples]
	}
	for _, b := range benchmarks {
		se := latest[b]
		c := choice{Benchmark: b, Figure: p.Figure, Unit: p.Unit, Workload: p.Workload, Env: se.EnvKey}
		p.Charts = append(p.Charts, multiple{Choice: c, Points: link("/api/series", c.query()), Series: link("/series", c.query())})
	}
	s.render(w, http.StatusOK, "multiples", p)
}

// multiplesLink is the small multiples page of c's figure.
func multiplesLink(c choice) string {
	return link("/series/multiples", query("figure", c.Figure, "unit", c.Unit, "workload", c.Workload))
}
