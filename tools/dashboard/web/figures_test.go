package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
)

// Every figure the table declares (result.Declared), the charted ones
// among them, is a series of the dashboard once a result of its kind is
// in the history: offered on the benchmark's page, its points served,
// with no edit here.
func TestDeclaredFiguresAreSeries(t *testing.T) {
	db, err := history.Create(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "history.sqlite"), history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv := serve(t, db)
	for _, kind := range []string{result.KindProgram, result.KindServer} {
		r := resulttest.Declared(kind)
		ingestResult(t, db, r)
		env := result.EnvironmentKey(r.Environment)
		for _, d := range result.Declarations(kind) {
			q := url.Values{"benchmark": {r.Benchmark.Name}, "figure": {d.Name}, "unit": {d.Unit}, "workload": {result.WorkloadQuick}, "env": {env}}.Encode()
			resp, body := get(t, srv.URL, "/series?"+q)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<option value="`+d.Name+`" selected>`) {
				t.Errorf("%s %s: the series page: %s", kind, d.Name, resp.Status)
			}
			resp, body = get(t, srv.URL, "/api/series?"+q)
			var points seriesJSON
			if err := json.Unmarshal([]byte(body), &points); resp.StatusCode != http.StatusOK || err != nil || points.Figure != d.Name || len(points.Points) != 1 {
				t.Errorf("%s %s: the points: %s %v %+v", kind, d.Name, resp.Status, err, points)
			}
		}
	}
}
