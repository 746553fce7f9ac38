package historytest

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/history"
	"havlak-lab/tools/history/pgtest"
)

var small = Spec{Benchmarks: 3, Figures: 7, Nights: 4, Runs: 2, Alerts: 5}

// dump is every row of the results' tables but their ingested_ns (the
// time of the ingest), in order.
func dump(t *testing.T, driver, dsn string) map[string][]string {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := map[string][]string{}
	for _, table := range tables {
		columns := strings.Join(table.columns, ", ")
		columns = strings.Replace(columns, "ingested_ns", "0", 1)
		rows, err := db.Query(fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", columns, table.name, table.columns[0]+", 2, 3"))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			values := make([]any, len(table.columns))
			ptrs := make([]any, len(values))
			for i := range values {
				ptrs[i] = &values[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			all[table.name] = append(all[table.name], fmt.Sprint(values...))
		}
		rows.Close()
		slices.Sort(all[table.name])
	}
	return all
}

// The bulk path leaves the tables as ingesting each result does.
func TestBulkIsIngest(t *testing.T) {
	ctx := context.Background()
	ingested := filepath.Join(t.TempDir(), "ingested.sqlite")
	db, err := history.Create(ctx, ingested, history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	if err := Ingest(ctx, db, small); err != nil {
		t.Fatal(err)
	}
	db.Close()
	bulk := filepath.Join(t.TempDir(), "bulk.sqlite")
	if err := Fill(ctx, bulk, small); err != nil {
		t.Fatal(err)
	}
	a, b := dump(t, "sqlite", ingested), dump(t, "sqlite", bulk)
	if len(a["figure_values"]) != small.Results()*(5*small.Runs+small.Figures-5) || len(a["figures"]) != small.Points() {
		t.Errorf("ingested %d figures and %d values, want %d and %d", len(a["figures"]), len(a["figure_values"]),
			small.Points(), small.Results()*(5*small.Runs+small.Figures-5))
	}
	for _, table := range tables {
		if !reflect.DeepEqual(a[table.name], b[table.name]) {
			t.Errorf("table %s: bulk wrote %d rows, ingest %d, or other rows", table.name, len(b[table.name]), len(a[table.name]))
		}
	}

	// The generated history reads back through tools/history.
	db, err = history.Open(ctx, bulk)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	series, err := db.Series(ctx, history.Query{Benchmark: Benchmark(1), Figure: Figure(0), Workload: Workloads[1], EnvKey: EnvKey(1)})
	if err != nil || len(series) != 1 || len(series[0].Points) != small.Nights {
		t.Fatalf("series of %s: %v, %d series", Benchmark(1), err, len(series))
	}
	alerts, err := db.Alerts(ctx)
	if err != nil || len(alerts) != small.Alerts {
		t.Errorf("%d alerts, %v; want %d", len(alerts), err, small.Alerts)
	}
}

// On PostgreSQL too, where the bulk path COPYs, and with trusted results
// into a shared history.
func TestBulkIsIngestPostgres(t *testing.T) {
	ctx := context.Background()
	server := pgtest.Start(t)
	s := small
	s.Trusted = true
	ingested := server.CreateDatabase(t, "ingested")
	db, err := history.Create(ctx, ingested, history.Shared)
	if err != nil {
		t.Fatal(err)
	}
	if err := Ingest(ctx, db, s); err != nil {
		t.Fatal(err)
	}
	db.Close()
	bulk := server.CreateDatabase(t, "bulk")
	if err := Fill(ctx, bulk, s); err != nil {
		t.Fatal(err)
	}
	a, b := dump(t, "pgx", ingested), dump(t, "pgx", bulk)
	if len(a["results"]) != s.Results() || !strings.Contains(a["results"][0], "true") {
		t.Errorf("ingested %d results, want %d, trusted: %.200s", len(a["results"]), s.Results(), a["results"])
	}
	for _, table := range tables {
		if !reflect.DeepEqual(a[table.name], b[table.name]) {
			t.Errorf("table %s: bulk wrote %d rows, ingest %d, or other rows", table.name, len(b[table.name]), len(a[table.name]))
		}
	}
	db, err = history.Open(ctx, bulk)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Access() != history.Shared {
		t.Errorf("a trusted spec's history is %s, want shared", db.Access())
	}
}

// One night of the Year suite (160 results) through ingest, a transaction
// per result, and in bulk: why Fill takes the bulk path.
func BenchmarkIngestNight(b *testing.B) {
	ctx := context.Background()
	night := Year
	night.Nights = 1
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "h.sqlite")
		db, err := history.Create(ctx, path, history.Personal)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := Ingest(ctx, db, night); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

func BenchmarkBulkNight(b *testing.B) {
	ctx := context.Background()
	night := Year
	night.Nights, night.Alerts = 1, 0
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "h.sqlite")
		db, err := history.Create(ctx, path, history.Personal)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
		b.StartTimer()
		if err := Bulk(ctx, path, night); err != nil {
			b.Fatal(err)
		}
	}
}
