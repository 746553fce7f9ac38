package night

// The history at scale (docs/scale.md): the lab's operations on a history
// that historytest generates, on SQLite and on PostgreSQL, each through
// the code that does it for real. By default a small history, which
// TestScale checks, so that the code cannot rot; -history.scale=10m runs
// the benchmarks on historytest.Scale (9,855,000 points):
//
//	go test ./tools/nightly/night -run '^$' -history.scale=10m -timeout 0 -benchtime 3x \
//	  -bench 'Scale//^(series|changepoint|compare|ingest|sweep-reads|sweep)$'
//
// (the sweep takes a minute or less at 10m, most of it Otava's search:
// docs/scale.md).
//
// The operations:
//
//   - ingest: a night's results (300 at Scale), each an outputs.zip as the
//     nightly job archives it, through history.DB.Ingest into a shared
//     history (the trust check) opened for the night (the integrity check
//     of its first write included: on SQLite, quick_check over the whole
//     file when it is not as the last checked writer left it, which is the
//     first night's on the copy);
//   - series: one series of one figure, every point (history.DB.Series);
//   - changepoint: that series read and searched by Apache Otava
//     (changeSeries, changepoint.Detect), as the nightly job does;
//   - compare: two nights on the dashboard's compare page
//     (tools/dashboard/web), named by their commits or by their dates;
//   - sweep: the nightly job's alert sweep of the night just ingested:
//     the change-point search of every charted series of its benchmarks,
//     each its newest changepoint.SearchedPoints points (detect), and the
//     night's findings entered into the alerts (alertStep: staleness over
//     every series, RecordAlerts); and, apart, the history's reads it
//     makes, to tell them from Otava's search.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint"
	"havlak-lab/tools/changepoint/otavatest"
	"havlak-lab/tools/dashboard/web"
	"havlak-lab/tools/history"
	"havlak-lab/tools/history/historytest"
	"havlak-lab/tools/history/pgtest"
	"havlak-lab/tools/result"
)

var scaleFlag = flag.String("history.scale", "small",
	"the history of the scale benchmarks: small (what go test runs) or 10m (historytest.Scale, docs/scale.md)")

// smallScale is the history TestScale and the default benchmarks run on.
var smallScale = historytest.Spec{Benchmarks: 3, Figures: 7, Nights: 12, Runs: 3, Alerts: 4, Trusted: true}

func scaleSpec(tb testing.TB) historytest.Spec {
	switch *scaleFlag {
	case "small":
		return smallScale
	case "10m":
		return historytest.Scale
	}
	tb.Fatalf("-history.scale=%s: want small or 10m", *scaleFlag)
	return historytest.Spec{}
}

// A scaled is one engine's generated history, open, and the nights
// ingested on top of it so far.
type scaled struct {
	spec    historytest.Spec
	db      *history.DB
	dsn     string
	otava   string
	nights  int // ingested after the spec's: night spec.Nights, spec.Nights+1, ...
	scratch string
}

// scaledHistory makes the engine's history of spec: on SQLite a copy of
// the cached one (historytest.Cached: the operations write to it), on
// PostgreSQL one filled on a server started for tb and stopped at its end.
func scaledHistory(tb testing.TB, engine string, spec historytest.Spec) *scaled {
	ctx := context.Background()
	s := &scaled{spec: spec, scratch: tb.TempDir(), otava: otavatest.Command(tb, filepath.Join("..", "..", "ci", "tools.sh"))}
	start := time.Now()
	switch engine {
	case "sqlite":
		path := filepath.Join(s.scratch, "history.sqlite")
		if err := copyHistory(historytest.Cached(tb, spec), path); err != nil {
			tb.Fatal(err)
		}
		s.dsn = "sqlite:" + path
	case "postgres":
		server := pgtest.Start(tb)
		s.dsn = server.CreateDatabase(tb, "scale")
		if err := historytest.Fill(ctx, s.dsn, spec); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Logf("%s: a history of %d results, %d points ready in %s", engine, spec.Results(), spec.Points(), time.Since(start).Round(time.Second))
	var err error
	if s.db, err = history.Open(ctx, s.dsn); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.db.Close() })
	return s
}

// tonight is the night last ingested (-1: none yet).
func (s *scaled) tonight() int { return s.spec.Nights + s.nights - 1 }

// writeNight archives the next night's results (historytest.WriteNight).
func (s *scaled) writeNight() ([]string, error) {
	return historytest.WriteNight(filepath.Join(s.scratch, fmt.Sprintf("night-%d", s.spec.Nights+s.nights)), s.spec, s.spec.Nights+s.nights)
}

// ingestNight ingests zips as the nightly job does: the history opened
// for the night (reopen), each result through Ingest (ingest). It returns
// how many it added.
func (s *scaled) ingestNight(ctx context.Context, zips []string) (int, error) {
	if err := s.reopen(ctx); err != nil {
		return 0, err
	}
	added, err := s.ingest(ctx, zips)
	s.nights++
	return added, err
}

func (s *scaled) reopen(ctx context.Context) error {
	s.db.Close()
	var err error
	s.db, err = history.Open(ctx, s.dsn)
	return err
}

func (s *scaled) ingest(ctx context.Context, zips []string) (int, error) {
	added := 0
	for _, zip := range zips {
		in, err := s.db.Ingest(ctx, zip)
		if err != nil {
			return added, err
		}
		if in.Added {
			added++
		}
	}
	return added, nil
}

// aSeries is the query of one series: a gated count of the last benchmark
// on the standard workload and the second machine.
func (s *scaled) aSeries() history.Query {
	return history.Query{Benchmark: historytest.Benchmark(s.spec.Benchmarks - 1), Figure: historytest.Figure(0),
		Workload: historytest.Workloads[1], EnvKey: historytest.EnvKey(1)}
}

// series reads aSeries, checking it has a point a night.
func (s *scaled) series(ctx context.Context) (history.Series, error) {
	all, err := s.db.Series(ctx, s.aSeries())
	if err != nil {
		return history.Series{}, err
	}
	if want := s.spec.Nights + s.nights; len(all) != 1 || len(all[0].Points) != want {
		return history.Series{}, fmt.Errorf("series %+v: %d series, want 1 of %d points", s.aSeries(), len(all), want)
	}
	return all[0], nil
}

// changePoints reads aSeries and searches it as the nightly job does; the
// generated series has one step (historytest.Result), which must be found.
func (s *scaled) changePoints(ctx context.Context) error {
	series, err := s.series(ctx)
	if err != nil {
		return err
	}
	found, err := changepoint.Detect(ctx, changepoint.DefaultOptions(s.otava), changeSeries(series))
	if err != nil {
		return err
	}
	if len(found) != 1 || len(found[0].Regressions()) == 0 {
		return fmt.Errorf("the change point of %s: %+v, want its step of 3%%", found[0].Series, found)
	}
	return nil
}

// compare serves the dashboard's comparison of the history's last two
// generated nights, named by their commits or by their dates.
func (s *scaled) compare(srv http.Handler, byDate bool) error {
	n := s.spec.Nights - 1
	a, b := historytest.Commit(n - 1)[:12], historytest.Commit(n)[:12]
	if byDate {
		a, b = historytest.NightTime(n-1).Format(time.DateOnly), historytest.NightTime(n).Format(time.DateOnly)
	}
	target := "/compare?a=" + a + "&b=" + b
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, historytest.Benchmark(s.spec.Benchmarks-1)) || !strings.Contains(body, "d1_misses") {
		return fmt.Errorf("GET %s: %d, lacking the last benchmark or d1_misses: %.300s", target, w.Code, body)
	}
	return nil
}

// sweep is the nightly job's alert sweep of the night last ingested, its
// results as FindAll finds them in its archive: the change points, then
// the alerts. A nightly job runs one workload on one machine (its report's
// trends chart a benchmark's figure once), so the night's sweep is one
// job's per machine and workload, in turn. It returns the alerts the night
// found.
func (s *scaled) sweep(ctx context.Context, out io.Writer) (int, error) {
	jobs, order, err := s.jobs()
	if err != nil {
		return 0, err
	}
	alerts := 0
	for _, job := range order {
		n := &night{artifacts: s.scratch, stdout: out, stderr: out, staleNights: alert.DefaultStaleNights,
			history: &historyConfig{dir: s.scratch, dsn: s.dsn, otava: s.otava}}
		changes, _, err := n.detect(ctx, s.db, jobs[job], filepath.Join(s.scratch, "trends.json"), nil)
		if err != nil {
			return alerts, fmt.Errorf("%s %s: %w", job[0], job[1], err)
		}
		tonight, err := n.alertStep(ctx, s.db, changes, jobs[job], nil, judged{})
		if err != nil {
			return alerts, fmt.Errorf("%s %s: %w", job[0], job[1], err)
		}
		alerts += len(tonight)
	}
	return alerts, nil
}

// jobs are the night last ingested's results, as FindAll finds them in
// its archive, by nightly job (machine and workload), in order.
func (s *scaled) jobs() (map[[2]string][]result.Found, [][2]string, error) {
	found, err := result.FindAll(filepath.Join(s.scratch, fmt.Sprintf("night-%d", s.tonight())))
	if err != nil {
		return nil, nil, err
	}
	jobs := map[[2]string][]result.Found{}
	var order [][2]string
	for _, f := range found {
		if f.Err != nil {
			return nil, nil, f.Err
		}
		job := [2]string{f.Result.Environment.Machine.Hostname, f.Result.Benchmark.Workload.Name}
		if jobs[job] == nil {
			order = append(order, job)
		}
		jobs[job] = append(jobs[job], f)
	}
	return jobs, order, nil
}

// sweepReads makes the history's reads of the night's sweep, and only
// them: per job, the alerts, each result's charted series (detect:
// chartedSeries) and the series seen and nights (alertStep). Otava's search, the rest of the sweep, is
// then the difference (docs/scale.md). It returns the points read.
func (s *scaled) sweepReads(ctx context.Context) (int, error) {
	jobs, order, err := s.jobs()
	if err != nil {
		return 0, err
	}
	points := 0
	for _, job := range order {
		if _, err := s.db.Alerts(ctx); err != nil {
			return points, err
		}
		for _, f := range jobs[job] {
			r := f.Result
			series, err := chartedSeries(ctx, s.db, history.Query{Benchmark: r.Benchmark.Name, Workload: r.Benchmark.Workload.Name,
				EnvKey: result.EnvironmentKey(r.Environment)})
			if err != nil {
				return points, err
			}
			for _, x := range series {
				points += len(x.Points)
			}
		}
		if _, _, err := s.db.Seen(ctx); err != nil {
			return points, err
		}
	}
	return points, nil
}

// copyHistory copies an SQLite history (gigabytes: not copyCapped, which
// bounds a result's zip).
func copyHistory(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

var engines = []string{"sqlite", "postgres"}

// TestScale runs every operation once on a small history of each engine
// and checks what it did.
func TestScale(t *testing.T) {
	ctx := context.Background()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := scaledHistory(t, engine, smallScale)
			if _, err := s.series(ctx); err != nil {
				t.Error(err)
			}
			if err := s.changePoints(ctx); err != nil {
				t.Error(err)
			}
			srv, err := web.New(s.db, web.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, byDate := range []bool{false, true} {
				if err := s.compare(srv, byDate); err != nil {
					t.Error(err)
				}
			}
			zips, err := s.writeNight()
			if err != nil {
				t.Fatal(err)
			}
			if added, err := s.ingestNight(ctx, zips); err != nil || added != len(zips) || added != smallScale.Results()/smallScale.Nights {
				t.Fatalf("ingest of a night: %d of %d results added, %v", added, len(zips), err)
			}
			// Each job reads its benchmarks' charted series (the gated count
			// and real time), a point a night, the newest
			// changepoint.SearchedPoints.
			want := smallScale.Results() / smallScale.Nights * 2 * min(smallScale.Nights+1, changepoint.SearchedPoints)
			if points, err := s.sweepReads(ctx); err != nil || points != want {
				t.Errorf("the sweep's reads: %d points, %v; want %d", points, err, want)
			}
			var out strings.Builder
			alerts, err := s.sweep(ctx, &out)
			if err != nil {
				t.Fatalf("sweep: %v\n%s", err, out.String())
			}
			// Each job (machine, workload) searches its benchmarks' charted
			// series: the gated count and real time. Their steps are older
			// than tonight, known, and open no alert; no series is stale.
			searched := fmt.Sprintf("Change points: Apache Otava over %d series", 2*smallScale.Benchmarks)
			if got := strings.Count(out.String(), searched); got != len(historytest.Machines)*len(historytest.Workloads) || alerts != 0 {
				t.Errorf("sweep: %d jobs searched %d series each, %d alerts tonight; want %d and none\n%s", got,
					2*smallScale.Benchmarks, alerts, len(historytest.Machines)*len(historytest.Workloads), out.String())
			}
		})
	}
}

// BenchmarkScale times each operation on each engine's history (see the
// top of this file). ingest reports results/s; each of its iterations
// ingests a night more, and sweep sweeps the night last ingested.
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	spec := scaleSpec(b)
	for _, engine := range engines {
		b.Run(engine, func(b *testing.B) {
			// Made once for the sub-benchmarks below, cleaned up at the
			// engine's end.
			s := scaledHistory(b, engine, spec)
			// The reads are timed warm: each is made once before.
			b.Run("series", func(b *testing.B) {
				if _, err := s.series(ctx); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := s.series(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("changepoint", func(b *testing.B) {
				for b.Loop() {
					if err := s.changePoints(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			for _, by := range []string{"commits", "nights"} {
				b.Run("compare/"+by, func(b *testing.B) {
					srv, err := web.New(s.db, web.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if err := s.compare(srv, by == "nights"); err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						if err := s.compare(srv, by == "nights"); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			// Each iteration ingests a night more. The first write of the
			// night's process runs the integrity check (on SQLite, its
			// quick_check over the whole file, unless the file is as the
			// last checked writer left it: all but the first night of the
			// copy, which the log shows): first-s is the first result's
			// time, the rest's rate is results/s-after-first.
			b.Run("ingest", func(b *testing.B) {
				var took, first time.Duration
				added := 0
				for range b.N {
					b.StopTimer()
					zips, err := s.writeNight()
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					start := time.Now()
					err = s.reopen(ctx)
					n := 0
					if err == nil {
						n, err = s.ingest(ctx, zips[:1])
					}
					firstTook := time.Since(start)
					first += firstTook
					if err == nil {
						var rest int
						rest, err = s.ingest(ctx, zips[1:])
						n += rest
					}
					took += time.Since(start)
					b.Logf("night %d: the first result in %s, %d in %s", s.tonight()+1, firstTook.Round(time.Millisecond),
						n, time.Since(start).Round(time.Millisecond))
					s.nights++
					if err != nil || n != len(zips) {
						b.Fatalf("%d of %d results added: %v", n, len(zips), err)
					}
					added += n
				}
				b.ReportMetric(float64(added)/took.Seconds(), "results/s")
				b.ReportMetric(first.Seconds()/float64(b.N), "first-s")
				b.ReportMetric(float64(added-b.N)/(took-first).Seconds(), "results/s-after-first")
			})
			// The sweep is of the night last ingested.
			tonight := func(b *testing.B) {
				if s.nights == 0 {
					b.Fatal("no night ingested to sweep: run ingest first (-bench Scale/ENGINE/)")
				}
			}
			b.Run("sweep-reads", func(b *testing.B) {
				tonight(b)
				for b.Loop() {
					if _, err := s.sweepReads(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("sweep", func(b *testing.B) {
				tonight(b)
				for b.Loop() {
					if _, err := s.sweep(ctx, io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// chartedSeries reads what reading every figure of a benchmark and keeping
// the charted series' newest changepoint.SearchedPoints points would: the
// same series, attributes and points, of a history longer than that.
func TestChartedSeries(t *testing.T) {
	ctx := context.Background()
	spec := historytest.Spec{Benchmarks: 2, Figures: 7, Nights: changepoint.SearchedPoints + 9, Runs: 3, Trusted: true}
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "history.sqlite")
	if err := historytest.Fill(ctx, dsn, spec); err != nil {
		t.Fatal(err)
	}
	db, err := history.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for b := range spec.Benchmarks {
		for w := range historytest.Workloads {
			q := history.Query{Benchmark: historytest.Benchmark(b), Workload: historytest.Workloads[w], EnvKey: historytest.EnvKey(1)}
			every, err := db.Series(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var want []history.Series
			for _, s := range every {
				if chartedFigure(s) {
					s.Points = s.Points[len(s.Points)-changepoint.SearchedPoints:]
					want = append(want, s)
				}
			}
			got, err := chartedSeries(ctx, db, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != 2 || len(every) != spec.Figures || !reflect.DeepEqual(got, want) {
				t.Errorf("%+v: the charted series of the newest %d points: %d series, want %d of the %d", q, changepoint.SearchedPoints,
					len(got), len(want), len(every))
			}
		}
	}
}
