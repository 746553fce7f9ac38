package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"havlak-lab/tools/history"
	"havlak-lab/tools/history/historytest"
	"havlak-lab/tools/history/pgtest"
)

// The benchmarks measure the server's time of the pages on a year of
// history (historytest.Year: 58,400 results, 1,752,000 points, 300
// alerts), on SQLite and on PostgreSQL: from the request to the last byte
// of the answer, in the process, without the network. docs/dashboard.md
// ("Speed") has the figures and the command.
//
// The SQLite history is made once and cached under the system's temporary
// directory (historytest.Cached); the PostgreSQL one is made once per run,
// on a server started for the run and stopped at its end (TestMain).

// year is the PostgreSQL history of the run, made when a benchmark first
// needs it.
var year struct {
	sync.Once
	server *pgtest.Server
	dsn    string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if year.server != nil {
		year.server.Stop()
	}
	os.Exit(code)
}

// engines runs fn as a sub-benchmark on each engine's year of history.
func engines(b *testing.B, fn func(b *testing.B, s *Server)) {
	ctx := context.Background()
	open := map[string]func(b *testing.B) string{
		"sqlite": func(b *testing.B) string { return historytest.Cached(b, historytest.Year) },
		"postgres": func(b *testing.B) string {
			year.Do(func() {
				if year.server, year.err = pgtest.Launch(); year.err != nil {
					return
				}
				year.dsn = year.server.DSN("year")
				if _, year.err = year.server.DB.Exec("CREATE DATABASE year"); year.err == nil {
					year.err = historytest.Fill(ctx, year.dsn, historytest.Year)
				}
			})
			if year.err != nil {
				b.Fatal(year.err)
			}
			return year.dsn
		},
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			db, err := history.Open(ctx, open[engine](b))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s, err := New(db, Options{})
			if err != nil {
				b.Fatal(err)
			}
			fn(b, s)
		})
	}
}

// serveGET serves one GET of target and returns its answer, failing b unless
// it is 200.
func serveGET(b *testing.B, s *Server, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", target, w.Code, w.Body.String())
	}
	return w
}

// measure times GETs of target, after checking its first answer.
func measure(b *testing.B, s *Server, target string, check func(body string) error) {
	if err := check(serveGET(b, s, target).Body.String()); err != nil {
		b.Fatalf("GET %s: %v", target, err)
	}
	b.ResetTimer()
	for b.Loop() {
		serveGET(b, s, target)
	}
}

// BenchmarkSeriesPage: the points of one series (/api/series, what the
// chart draws: a year of nights), and the page around them (/series: its
// menus, from every series the history has).
func BenchmarkSeriesPage(b *testing.B) {
	c := choice{Benchmark: historytest.Benchmark(17), Figure: historytest.Figure(1), Unit: "count",
		Workload: historytest.Workloads[1], Env: historytest.EnvKey(1)}
	engines(b, func(b *testing.B, s *Server) {
		b.Run("data", func(b *testing.B) {
			measure(b, s, link("/api/series", c.query()), func(body string) error {
				var got seriesJSON
				if err := json.Unmarshal([]byte(body), &got); err != nil {
					return err
				}
				if len(got.Points) != historytest.Year.Nights {
					return fmt.Errorf("%d points, want %d", len(got.Points), historytest.Year.Nights)
				}
				return nil
			})
		})
		b.Run("page", func(b *testing.B) {
			measure(b, s, link("/series", c.query()), contains(historytest.Benchmark(39), "/api/series?"))
		})
	})
}

// BenchmarkComparePage: two nights, every benchmark and figure judged.
func BenchmarkComparePage(b *testing.B) {
	engines(b, func(b *testing.B, s *Server) {
		target := link("/compare", query("a", historytest.Commit(200)[:12], "b", historytest.Commit(201)[:12]))
		measure(b, s, target, contains(historytest.Benchmark(39), "d1_misses"))
	})
}

// BenchmarkAlertList: the open alerts, and all of them.
func BenchmarkAlertList(b *testing.B) {
	engines(b, func(b *testing.B, s *Server) {
		b.Run("open", func(b *testing.B) {
			measure(b, s, "/alerts", contains("/alerts/299\""))
		})
		b.Run("all", func(b *testing.B) {
			measure(b, s, "/alerts?state=all", contains("/alerts/300\"", "reverted"))
		})
	})
}

func contains(want ...string) func(string) error {
	return func(body string) error {
		for _, w := range want {
			if !strings.Contains(body, w) {
				return fmt.Errorf("the page lacks %q", w)
			}
		}
		return nil
	}
}

// BenchmarkCompareFixtures: the compare page of the tests' history
// (testHistory: 3 or 4 results a night), its first night against its last.
func BenchmarkCompareFixtures(b *testing.B) {
	db, _ := testHistory(b)
	s, err := New(db, Options{Archive: filepath.Dir(db.Name())})
	if err != nil {
		b.Fatal(err)
	}
	target := link("/compare", query("a", commitOf(0), "b", commitOf(nights-1)))
	measure(b, s, target, contains("havlak6cc", "own_instructions"))
}
