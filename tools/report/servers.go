package main

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/result"
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
	// Speed-up: the throughput over the declared reference's; 0 without one.
	SpeedUp float64

	CPU, Mutex, Block *profile.Profile // nil when missing or unreadable
	Graphs            map[string][]byte
	Problems          []string
}

// findServers collects the server benchmarks' results under the roots,
// as FindResults does the programs': full-size over quick, the newest of
// several, unreadable ones as problems.
func findServers(roots ...string) ([]*ServerRow, []string, error) {
	found, err := result.FindAll(roots...)
	if err != nil {
		return nil, nil, err
	}
	var rows []*ServerRow
	full := false
	for _, f := range found {
		if f.Err != nil || f.Result.Benchmark.Kind != result.KindServer {
			continue // FindResults reports the unreadable ones
		}
		row := readServer(f)
		rows = append(rows, row)
		full = full || !row.Quick()
	}
	newest := map[string]*ServerRow{}
	var kept []*ServerRow
	for _, row := range rows {
		if full && row.Quick() {
			continue
		}
		if other, ok := newest[row.Name]; ok {
			if row.Median.Start > other.Median.Start {
				*other = *row
			}
			continue
		}
		newest[row.Name] = row
		kept = append(kept, row)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Study != b.Study {
			return a.Study < b.Study
		}
		if a.Stage != b.Stage {
			return a.Stage < b.Stage
		}
		return a.Name < b.Name
	})
	byName := map[string]*ServerRow{}
	for _, row := range kept {
		byName[row.Name] = row
	}
	var problems []string
	for _, row := range kept {
		if ref := byName[row.Reference]; ref != nil && ref.Median.Throughput > 0 {
			row.SpeedUp = row.Median.Throughput / ref.Median.Throughput
		}
		problems = append(problems, row.Problems...)
	}
	return kept, problems, nil
}

func readServer(f result.Found) *ServerRow {
	res := f.Result
	row := &ServerRow{
		Benchmark: res.Benchmark, Environment: res.Environment, Source: f.Path,
		Server: res.Server, Median: res.Server.Median(), Graphs: map[string][]byte{},
	}
	for _, p := range res.FilesWith(result.RoleProfile) {
		read := func() *profile.Profile {
			data, err := f.Outputs.ReadFile(p.Name)
			if err == nil {
				var prof *profile.Profile
				if prof, err = profile.ParseData(data); err == nil {
					return prof
				}
			}
			row.Problems = append(row.Problems, fmt.Sprintf("%s: %v", f.Outputs.Path(p.Name), err))
			return nil
		}
		switch p.Profile {
		case "cpu":
			row.CPU = read()
		case "mutex":
			row.Mutex = read()
		case "block":
			row.Block = read()
		}
	}
	for _, g := range res.FilesWith(result.RoleGraph) {
		if data, err := f.Outputs.ReadFile(g.Name); err == nil {
			row.Graphs[g.Name] = data
		}
	}
	return row
}

// A ServerStudy is the server rows of one study.
type ServerStudy struct {
	Title string
	Rows  []*ServerRow
}

// ServerStudies groups the server rows by study, in their order.
func (r *Report) ServerStudies() []ServerStudy {
	var studies []ServerStudy
	for _, row := range r.Servers {
		if n := len(studies); n == 0 || studies[n-1].Title != row.Study {
			studies = append(studies, ServerStudy{Title: row.Study})
		}
		studies[len(studies)-1].Rows = append(studies[len(studies)-1].Rows, row)
	}
	return studies
}

// Contention is what a mutex or block profile recorded, without the
// profiler's own waiting (net/http/pprof's handlers sleep while they take
// a profile): the total delay, and the sites that waited most, a site
// being the first function on the stack outside the runtime and sync.
type Contention struct {
	Seconds    float64 // total delay
	Events     int64
	Window     float64 // the profile's duration, seconds
	Sites      []FuncStat
	HasProfile bool
}

// contention summarises a mutex or block profile.
func contention(p *profile.Profile, n int) Contention {
	if p == nil {
		return Contention{}
	}
	c := Contention{HasProfile: true, Window: float64(p.DurationNanos) / 1e9}
	delay, count := -1, -1
	for i, st := range p.SampleType {
		switch st.Type {
		case "delay":
			delay = i
		case "contentions":
			count = i
		}
	}
	if delay < 0 {
		return c
	}
	sites := map[string]int64{}
	var total int64
sample:
	for _, s := range p.Sample {
		frames := stack(s)
		for _, f := range frames {
			if strings.HasPrefix(f, "net/http/pprof.") || strings.HasPrefix(f, "runtime/pprof.") {
				continue sample
			}
		}
		v := s.Value[delay]
		total += v
		if count >= 0 {
			c.Events += s.Value[count]
		}
		site := "(runtime)"
		for i := len(frames) - 1; i >= 0; i-- {
			f := frames[i]
			if !strings.HasPrefix(f, "runtime.") && !strings.HasPrefix(f, "sync.") && !strings.HasPrefix(f, "internal/") && !strings.HasPrefix(f, "_.") {
				site = f
				break
			}
		}
		sites[site] += v
	}
	c.Seconds = float64(total) / 1e9 // delay is in nanoseconds
	for name, v := range sites {
		c.Sites = append(c.Sites, FuncStat{Name: name, Value: v, Fraction: float64(v) / float64(max(total, 1))})
	}
	sort.Slice(c.Sites, func(i, j int) bool {
		if c.Sites[i].Value != c.Sites[j].Value {
			return c.Sites[i].Value > c.Sites[j].Value
		}
		return c.Sites[i].Name < c.Sites[j].Name
	})
	if len(c.Sites) > n {
		c.Sites = c.Sites[:n]
	}
	return c
}

// Text describes the contention in a table cell.
func (c Contention) Text() string {
	if !c.HasProfile {
		return "–"
	}
	if c.Seconds == 0 {
		return "none"
	}
	var sites []string
	for _, s := range c.Sites {
		sites = append(sites, fmt.Sprintf("`%s` %.0f%%", s.Name, 100*s.Fraction))
	}
	return fmt.Sprintf("%s in %.1f s (%d events): %s", duration(c.Seconds), c.Window, c.Events, strings.Join(sites, ", "))
}

// MutexContention and BlockContention are the row's, top 3 sites.
func (row *ServerRow) MutexContention() Contention { return contention(row.Mutex, 3) }
func (row *ServerRow) BlockContention() Contention { return contention(row.Block, 3) }

func duration(seconds float64) string {
	switch {
	case seconds >= 1:
		return fmt.Sprintf("%.2f s", seconds)
	case seconds >= 1e-3:
		return fmt.Sprintf("%.2f ms", seconds*1e3)
	}
	return fmt.Sprintf("%.0f µs", seconds*1e6)
}

// Millis shows a latency in milliseconds.
func Millis(seconds float64) string { return fmt.Sprintf("%.3f", seconds*1e3) }

// RoundsText says how many rounds of how long the row measured.
func (row *ServerRow) RoundsText() string {
	return fmt.Sprintf("%d × %.0f s, %d connections", len(row.Server.Rounds), row.Server.Load.DurationSeconds, row.Server.Load.Connections)
}

// writeServerTables writes a table per server study: throughput and
// latency percentiles (medians of the rounds), errors, contention.
func (r *Report) writeServerTables(w io.Writer, after bool) {
	for i, s := range r.ServerStudies() {
		if after || i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n", s.Title)
		fmt.Fprintln(w, "| benchmark | stage | throughput req/s | × reference | p50 ms | p90 ms | p99 ms | max ms | errors / requests | rounds | mutex contention | clean exit |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
		for _, row := range s.Rows {
			m := row.Median
			fmt.Fprintf(w, "| %s | %d | %.0f | %s | %s | %s | %s | %s | %d / %d | %s | %s | %v |\n",
				row.Name, row.Stage, m.Throughput, ratio(row.SpeedUp), Millis(m.Latency.P50), Millis(m.Latency.P90),
				Millis(m.Latency.P99), Millis(m.Latency.Max), m.Errors, m.Requests, row.RoundsText(),
				short(row.MutexContention()), row.Server.Exit.Clean)
		}
	}
}

// short is a contention's total and first site.
func short(c Contention) string {
	switch {
	case !c.HasProfile:
		return "–"
	case c.Seconds == 0 || len(c.Sites) == 0:
		return "none"
	}
	return fmt.Sprintf("%s, %.0f%% at `%s`", duration(c.Seconds), 100*c.Sites[0].Fraction, c.Sites[0].Name)
}

// writeServerProfiles writes, per server benchmark, the CPU profile's top
// functions and the mutex and block contention.
func (r *Report) writeServerProfiles(w io.Writer) {
	for _, s := range r.ServerStudies() {
		fmt.Fprintf(w, "\n## %s: profiles under load\n", s.Title)
		fmt.Fprintln(w, "\nThroughput and latencies are the medians of the measured rounds, which ran with no profile being taken; the profiles are of a further round under the same load. Latency is the load generator's (client side, on the same machine). Contention leaves out the profiler's own waiting.")
		for _, row := range s.Rows {
			fmt.Fprintf(w, "\n### %s (stage %d)\n\n", row.Name, row.Stage)
			rates := row.Server.Rates
			fmt.Fprintf(w, "- mutex contention (fraction 1/%d): %s\n", rates.MutexProfileFraction, row.MutexContention().Text())
			fmt.Fprintf(w, "- blocking (rate %d ns): %s\n", rates.BlockProfileRate, row.BlockContention().Text())
			if row.CPU == nil {
				fmt.Fprintln(w, "\nNo CPU profile.")
				continue
			}
			fmt.Fprintln(w)
			writeTopFunctions(w, row.CPU)
		}
	}
}

// serverSection is the page's section of each server study.
var serverSection = template.Must(template.New("servers").Funcs(template.FuncMap{
	"millis": Millis,
	"ratio":  ratio,
	"plain":  func(s string) string { return strings.ReplaceAll(s, "`", "") },
}).Parse(`{{range .ServerStudies}}
<h2>{{.Title}}</h2>
<div class="wide"><table id="servers-{{js .Title}}">
<thead><tr><th>benchmark</th><th>stage</th><th>throughput req/s</th><th>× reference</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>errors / requests</th><th>mutex contention</th><th>blocking</th><th>profiles</th></tr></thead>
<tbody>
{{range .Rows}}{{$row := .}}<tr data-stage="{{.Name}}"><td>{{.Name}}</td><td>{{.Stage}}</td><td>{{printf "%.0f" .Median.Throughput}}</td><td>{{ratio .SpeedUp}}</td><td>{{millis .Median.Latency.P50}}</td><td>{{millis .Median.Latency.P90}}</td><td>{{millis .Median.Latency.P99}}</td><td>{{millis .Median.Latency.Max}}</td><td>{{.Median.Errors}} / {{.Median.Requests}}</td><td class="text">{{plain .MutexContention.Text}}</td><td class="text">{{plain .BlockContention.Text}}</td>
<td class="text">{{if .CPU}}<a href="stages/{{.Name}}/flame.svg">flame</a>{{end}}{{range $file, $_ := .Graphs}} · <a href="stages/{{$row.Name}}/{{$file}}">{{$file}}</a>{{end}}</td></tr>
{{end}}</tbody></table></div>
<p class="note">Medians of the measured rounds (no profile being taken); latency as the load generator saw it, on the same machine. Contention from the mutex and block profiles of a further round, without the profiler's own waiting.</p>
{{end}}`))

// ServerSections renders the server studies for the page.
func (r *Report) ServerSections() (template.HTML, error) {
	var b strings.Builder
	if err := serverSection.Execute(&b, r); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
