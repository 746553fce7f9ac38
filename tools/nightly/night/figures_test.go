package night

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
)

// Every figure the table declares charted (result.Declared) gets its
// trend chart and change-point search: the night reads its series from
// the history (chartedSeries), and of the declared figures only those.
func TestDeclaredChartedFiguresAreCharted(t *testing.T) {
	ctx := context.Background()
	db, err := history.Create(ctx, "sqlite:"+filepath.Join(t.TempDir(), "history.sqlite"), history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, kind := range []string{result.KindProgram, result.KindServer} {
		r := resulttest.Declared(kind)
		dir := t.TempDir()
		if err := result.Write(dir, r); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Ingest(ctx, dir); err != nil {
			t.Fatal(err)
		}
		q := history.Query{Benchmark: r.Benchmark.Name, Workload: r.Benchmark.Workload.Name, EnvKey: result.EnvironmentKey(r.Environment)}
		all, err := db.SeriesOf(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		charted, err := chartedSeries(ctx, db, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range result.Declarations(kind) {
			kept := slices.ContainsFunc(all, func(s history.Series) bool { return s.Figure == d.Name })
			got := slices.ContainsFunc(charted, func(s history.Series) bool { return s.Figure == d.Name })
			switch {
			case !kept:
				t.Errorf("%s: the history has no %s: record it in resulttest.Declared", kind, d.Name)
			case got != d.Charted:
				t.Errorf("%s %s: charted %v, declared %v", kind, d.Name, got, d.Charted)
			}
		}
	}
}
