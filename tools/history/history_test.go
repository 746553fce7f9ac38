package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
)

// The same checks run on SQLite here and on a real PostgreSQL server in
// postgres_test.go; newDSN gives each check an empty database of its own.
func checkEngine(t *testing.T, newDSN func(t *testing.T) string) {
	t.Run("results for the exports", func(t *testing.T) { checkResults(t, newDSN(t)) })
	t.Run("recent results of one identity", func(t *testing.T) { checkRecent(t, newDSN(t)) })
	t.Run("ingest and series", func(t *testing.T) { checkIngestAndSeries(t, newDSN(t)) })
	t.Run("idempotent", func(t *testing.T) { checkIdempotent(t, newDSN(t)) })
	t.Run("many rows a statement", func(t *testing.T) { checkInsertRows(t, newDSN(t)) })
	t.Run("corrupt input changes nothing", func(t *testing.T) { checkCorrupt(t, newDSN(t)) })
	t.Run("trust", func(t *testing.T) { checkTrust(t, newDSN(t), newDSN(t)) })
	t.Run("go test and server figures", func(t *testing.T) { checkOtherKinds(t, newDSN(t)) })
	t.Run("alerts", func(t *testing.T) { checkAlerts(t, newDSN(t)) })
	t.Run("concurrent triage", func(t *testing.T) { checkConcurrentTriage(t, newDSN(t)) })
	t.Run("a database from before alerts", func(t *testing.T) { checkMigration(t, newDSN(t)) })
	t.Run("users and sessions", func(t *testing.T) { checkUsers(t, newDSN(t)) })
	t.Run("a database from before users", func(t *testing.T) { checkMigrationToUsers(t, newDSN(t)) })
	t.Run("a database from before the indexes", func(t *testing.T) { checkMigrationToIndexes(t, newDSN(t)) })
	t.Run("function series", func(t *testing.T) { checkFunctionSeries(t, newDSN(t)) })
	t.Run("backup and restore", func(t *testing.T) { checkBackupRestore(t, newDSN) })
	t.Run("ingest beside the dashboard's writes", func(t *testing.T) { checkIngestBesideDashboard(t, newDSN(t)) })
}

func TestSQLite(t *testing.T) {
	checkEngine(t, func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "history.db") })
}

func create(t *testing.T, dsn string, access Access) *DB {
	t.Helper()
	d, err := Create(context.Background(), dsn, access)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func ingest(t *testing.T, d *DB, path string) Ingested {
	t.Helper()
	in, err := d.Ingest(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

var day0 = time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)

func checkIngestAndSeries(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	root := t.TempDir()
	nights := []night{
		{commit: "c3", started: day0.Add(48 * time.Hour), real: []float64{1.3, 1.2, 1.25}, instrs: []float64{300, 301}, origin: nightly},
		{commit: "c1", started: day0, real: []float64{1.0, 1.1}, instrs: []float64{100, 101}, origin: nightly},
		{commit: "c2", started: day0.Add(24 * time.Hour), real: []float64{1.2}, instrs: []float64{200}, origin: nightly},
	}
	// Out of time order, as a directory, a zip and a directory.
	paths := []string{
		nights[0].write(t, filepath.Join(root, "n3")),
		resulttest.ZipDir(t, nights[1].write(t, filepath.Join(root, "n1")), filepath.Join(root, "zips", "n1", result.ZipName)),
		nights[2].write(t, filepath.Join(root, "n2")),
	}
	for _, p := range paths {
		if in := ingest(t, d, p); !in.Added || in.Benchmark != "havlak6" || len(in.SHA256) != 64 {
			t.Errorf("Ingest(%s) = %+v, want havlak6 added", p, in)
		}
	}
	// A second benchmark is no part of havlak6's series.
	ingest(t, d, night{benchmark: "havlak7", commit: "c1", started: day0, real: []float64{0.5}, instrs: []float64{9}, origin: nightly}.
		write(t, filepath.Join(root, "other")))

	series, err := d.Series(ctx, Query{Benchmark: "havlak6", Figure: "real_seconds"})
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 {
		t.Fatalf("Series(havlak6, real_seconds) = %d series, want 1: %+v", len(series), series)
	}
	s := series[0]
	env := result.EnvironmentKey(nights[0].result().Environment)
	if s.Benchmark != "havlak6" || s.Workload != result.WorkloadStandard || s.Unit != "s" || s.EnvKey != env ||
		!s.Gated || !s.LowerIsBetter() || s.Source != "xtime" {
		t.Errorf("series = %+v, want havlak6's real_seconds in s, lower is better, gated (result.Declared), env %s", s, env)
	}
	var commits []string
	for _, p := range s.Points {
		commits = append(commits, p.Commit)
	}
	if strings.Join(commits, ",") != "c1,c2,c3" {
		t.Fatalf("points' commits %v, want c1,c2,c3 (time order)", commits)
	}
	p := s.Points[0]
	if !slices.Equal(p.Values, []float64{1.0, 1.1}) || !p.Started.Equal(day0) || p.Source != paths[1] {
		t.Errorf("first point = %+v, want runs [1 1.1] at %v from %s (the failed run left out)", p, day0, paths[1])
	}
	if !slices.Equal(s.Points[2].Values, []float64{1.3, 1.2, 1.25}) {
		t.Errorf("third point's values %v, want the runs in their order", s.Points[2].Values)
	}
	var profiles []string
	for _, f := range p.Profiles() {
		profiles = append(profiles, f.Profile+":"+f.Name)
	}
	if strings.Join(profiles, ",") != "cpu:cpu.pb.gz,heap:heap.pb.gz" || len(p.Files) != 3 {
		t.Errorf("first point's files %v, profiles %v; want its 3 files, 2 profiles", p.Files, profiles)
	}

	gated, err := d.Series(ctx, Query{Benchmark: "havlak6", Figure: "own_instructions"})
	if err != nil {
		t.Fatal(err)
	}
	if len(gated) != 1 || !gated[0].Gated || gated[0].Threshold != 0.01 || len(gated[0].Points) != 3 ||
		!slices.Equal(gated[0].Points[1].Values, []float64{200}) || gated[0].Source != "cachegrind" {
		t.Errorf("own_instructions series = %+v, want 3 points, gated at 0.01", gated)
	}
	// All of havlak6's figures: the measured metric and the timing
	// columns; the unavailable metric makes no series.
	all, err := d.Series(ctx, Query{Benchmark: "havlak6"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range all {
		names = append(names, s.Figure)
	}
	if strings.Join(names, ",") != "cpu_seconds,max_rss_kib,own_instructions,real_seconds,sys_seconds,user_seconds" {
		t.Errorf("havlak6's series %v", names)
	}
	// The newest points of a series: its last two, with their files; more
	// than it has, all of them; not of several series.
	for _, c := range []struct {
		newest  int
		commits string
	}{{2, "c2,c3"}, {1, "c3"}, {5, "c1,c2,c3"}} {
		cut, err := d.Series(ctx, Query{Benchmark: "havlak6", Figure: "real_seconds", Workload: result.WorkloadStandard, EnvKey: env, Newest: c.newest})
		if err != nil || len(cut) != 1 {
			t.Fatalf("Series(the newest %d of havlak6's real_seconds) = %+v, %v; want 1 series", c.newest, cut, err)
		}
		var commits []string
		for _, p := range cut[0].Points {
			commits = append(commits, p.Commit)
			if len(p.Files) != 3 {
				t.Errorf("the newest %d: %s's files %v, want its 3", c.newest, p.Commit, p.Files)
			}
		}
		if strings.Join(commits, ",") != c.commits || cut[0].Source != s.Source || cut[0].Unit != "s" {
			t.Errorf("the newest %d of havlak6's real_seconds: %v (%+v), want %s", c.newest, commits, cut[0], c.commits)
		}
	}
	if _, err := d.Series(ctx, Query{Benchmark: "havlak6", Newest: 2}); err == nil {
		t.Error("the newest points of every figure of havlak6: no error")
	}
	// SeriesOf is Series without the points, from the table of series.
	for _, q := range []Query{{}, {Benchmark: "havlak6"}, {Benchmark: "havlak6", Figure: "own_instructions"}, {Benchmark: "havlak7", EnvKey: env}} {
		want, err := d.Series(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			want[i].Points = nil
		}
		got, err := d.SeriesOf(ctx, q)
		if err != nil || len(want) == 0 || !slices.EqualFunc(got, want, func(a, b Series) bool {
			return sameSeries(a, b) && a.Source == b.Source && a.Gated == b.Gated && a.Threshold == b.Threshold && a.Better == b.Better && a.Points == nil
		}) {
			t.Errorf("SeriesOf(%+v) = %+v, %v; want %+v", q, got, err, want)
		}
	}
	if none, err := d.Series(ctx, Query{Benchmark: "havlak6", EnvKey: "0000000000000000"}); err != nil || len(none) != 0 {
		t.Errorf("Series of another environment = %v, %v; want none", none, err)
	}
	e, err := d.Environment(ctx, env)
	if err != nil || e.Hostname != "perf-1" || e.Go != "go1.27.4" || e.Cores != 2 {
		t.Errorf("Environment(%s) = %+v, %v", env, e, err)
	}
	if n, err := d.Count(ctx); err != nil || n != 4 {
		t.Errorf("Count = %d, %v; want 4", n, err)
	}
}

// insertRows puts in every row, over as many statements as the bound of a
// statement's values takes, in one transaction.
func checkInsertRows(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Personal)
	if _, err := d.db.ExecContext(ctx, "CREATE TABLE many (a INTEGER NOT NULL, b TEXT NOT NULL, c DOUBLE PRECISION NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	var all [][]any
	for i := range 2*maxStatementArgs + 7 {
		all = append(all, []any{i, fmt.Sprint("row", i), float64(i) / 2})
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error { return d.insertRows(ctx, tx, "INSERT INTO many (a, b, c) VALUES ", "", all) })
	if err != nil {
		t.Fatal(err)
	}
	var n, sum int
	var last string
	if err := d.db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(a), MAX(b) FROM many").Scan(&n, &sum, &last); err != nil {
		t.Fatal(err)
	}
	if want := len(all); n != want || sum != want*(want-1)/2 || last != "row999" {
		t.Errorf("insertRows of %d rows: %d rows, their a sum to %d, the greatest b %s", want, n, sum, last)
	}
}

func checkIdempotent(t *testing.T, dsn string) {
	d := create(t, dsn, Shared)
	root := t.TempDir()
	dir := night{commit: "c1", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(root, "dir"))
	zipPath := resulttest.ZipDir(t, dir, filepath.Join(root, "z", result.ZipName))
	first := ingest(t, d, dir)
	before := dump(t, d)
	// Again, and the same result.json from its zip.
	for _, p := range []string{dir, zipPath} {
		if again := ingest(t, d, p); again.Added || again.SHA256 != first.SHA256 {
			t.Errorf("ingesting %s again: %+v, want not added, sha256 %s", p, again, first.SHA256)
		}
	}
	if after := dump(t, d); after != before {
		t.Errorf("ingesting twice changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func checkCorrupt(t *testing.T, dsn string) {
	d := create(t, dsn, Shared)
	root := t.TempDir()
	good := night{commit: "c1", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}
	ingest(t, d, good.write(t, filepath.Join(root, "good")))
	before := dump(t, d)

	mk := func(name string, edit func(dir string)) string {
		n := good
		n.commit = "c" + name
		dir := n.write(t, filepath.Join(root, name))
		edit(dir)
		return dir
	}
	writeFile := func(path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notZip := filepath.Join(root, "bad", result.ZipName)
	os.MkdirAll(filepath.Dir(notZip), 0o755)
	writeFile(notZip, "PK\x03\x04 not really a zip")
	halfWritten := mk("half", func(dir string) {
		data, _ := os.ReadFile(filepath.Join(dir, result.FileName))
		writeFile(filepath.Join(dir, result.FileName), string(data[:len(data)/2]))
	})
	invalid := mk("invalid", func(dir string) {
		data, _ := os.ReadFile(filepath.Join(dir, result.FileName))
		writeFile(filepath.Join(dir, result.FileName), strings.Replace(string(data), `"kind": "program"`, `"kind": "benchmark"`, 1))
	})
	missingFile := mk("missing", func(dir string) { os.Remove(filepath.Join(dir, "heap.pb.gz")) })
	badTime := mk("time", func(dir string) {
		data, _ := os.ReadFile(filepath.Join(dir, result.FileName))
		writeFile(filepath.Join(dir, result.FileName), strings.Replace(string(data), `"started": "2026`, `"started": "yesterday 2026`, 1))
	})
	// Valid, but the database refuses its second file of the same name
	// after the result's row went in: the transaction must undo that row.
	twice := night{commit: "ctwice", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}.result()
	twice.Files = append(twice.Files, twice.Files[0])
	dupFile := writeResult(t, filepath.Join(root, "twice"), twice, map[string]string{})
	badBench := filepath.Join(root, "gobench")
	goTestResult(t, badBench)
	writeFile(filepath.Join(badBench, "bench.txt"), "BenchmarkNaive-2 1000 fast ns/op\n")

	for _, c := range []struct{ path, names, says string }{
		{notZip, notZip, "zip"},
		{halfWritten, filepath.Join(halfWritten, result.FileName), "unexpected end of JSON"},
		{invalid, filepath.Join(invalid, result.FileName), "benchmark.kind"},
		{missingFile, filepath.Join(missingFile, "heap.pb.gz"), "unreadable"},
		{badTime, filepath.Join(badTime, result.FileName), "RFC 3339"},
		{dupFile, filepath.Join(dupFile, result.FileName), "storing"},
		{badBench, filepath.Join(badBench, "bench.txt") + ":1", "parsing measurement"},
	} {
		_, err := d.Ingest(context.Background(), c.path)
		if err == nil || !strings.Contains(err.Error(), c.names) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Ingest(%s): %v; want an error naming %s and saying %q", c.path, err, c.names, c.says)
		}
		if after := dump(t, d); after != before {
			t.Errorf("refused %s but the database changed:\nbefore:\n%s\nafter:\n%s", c.path, before, after)
		}
	}
}

func checkTrust(t *testing.T, sharedDSN, personalDSN string) {
	ctx := context.Background()
	shared := create(t, sharedDSN, Shared)
	root := t.TempDir()
	workstation := night{commit: "c1", started: day0, real: []float64{1}, instrs: []float64{1}}.write(t, filepath.Join(root, "mine"))
	pr := night{commit: "c2", started: day0, real: []float64{1}, instrs: []float64{1},
		origin: result.Origin{CI: "buildkite", BuildSource: "webhook", Branch: "feature", PullRequest: "42",
			Repository: "a", PullRequestRepository: "fork"}}.write(t, filepath.Join(root, "pr"))
	before := dump(t, shared)
	for _, c := range []struct{ path, origin string }{
		{workstation, "origin workstation"},
		{pr, "pull request #42 from the fork fork"},
	} {
		_, err := shared.Ingest(ctx, c.path)
		if !errors.Is(err, ErrUntrusted) {
			t.Fatalf("shared database took %s: %v", c.path, err)
		}
		for _, want := range []string{c.path, "havlak6", c.origin, "history init --personal"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not say %q", err, want)
			}
		}
	}
	if dump(t, shared) != before {
		t.Error("refusing untrusted results changed the database")
	}
	ingest(t, shared, night{commit: "c3", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}.
		write(t, filepath.Join(root, "nightly")))

	personal := create(t, personalDSN, Personal)
	for _, p := range []string{workstation, pr} {
		if in := ingest(t, personal, p); !in.Added {
			t.Errorf("personal database did not take %s", p)
		}
	}
	// The access is remembered, and kept.
	personal.Close()
	again, err := Open(ctx, personalDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Access() != Personal {
		t.Errorf("reopened personal database is %s", again.Access())
	}
	if _, err := Create(ctx, personalDSN, Shared); err == nil || !strings.Contains(err.Error(), "already a personal database") {
		t.Errorf("Create(shared) on a personal database: %v, want a refusal", err)
	}
	if d, err := Create(ctx, sharedDSN, Shared); err != nil {
		t.Errorf("Create on a shared database again: %v, want it opened", err)
	} else {
		d.Close()
	}
}

func checkOtherKinds(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	ingest(t, d, goTestResult(t, filepath.Join(t.TempDir(), "go")))
	ingest(t, d, serverResult(t, filepath.Join(t.TempDir(), "server")))

	series, err := d.Series(ctx, Query{Benchmark: "explodepath"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Series{}
	for _, s := range series {
		got[s.Figure+" "+s.Unit] = s
	}
	if len(got) != 5 {
		t.Errorf("explodepath's series: %v, want Naive-2 in sec/op, B/op, allocs/op and Split/fields-2 in sec/op, B/s", got)
	}
	naive := got["Naive-2 sec/op"]
	if len(naive.Points) != 1 || !near(naive.Points[0].Values, []float64{1200e-9, 1300e-9}) || naive.Source != "go test" {
		t.Errorf("Naive-2 sec/op = %+v, want one point with the two lines' values", naive)
	}
	if speed := got["Split/fields-2 B/s"]; speed.LowerIsBetter() || len(speed.Points) != 1 {
		t.Errorf("a speed (B/s) = %+v, want higher is better", speed)
	}
	tput, err := d.Series(ctx, Query{Benchmark: "router_mutex", Figure: "throughput", Workload: result.WorkloadQuick})
	if err != nil || len(tput) != 1 || tput[0].LowerIsBetter() || !slices.Equal(tput[0].Points[0].Values, []float64{5000, 5100}) {
		t.Errorf("router_mutex throughput = %+v, %v; want the rounds, higher is better", tput, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "typo.db")
	if _, err := Open(ctx, missing); err == nil || !strings.Contains(err.Error(), "history init") {
		t.Errorf("Open(%s): %v, want a pointer to history init", missing, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("Open made %s", missing)
	}
	notHistory := filepath.Join(dir, "other.db")
	os.WriteFile(notHistory, nil, 0o644)
	if _, err := Open(ctx, notHistory); err == nil || !strings.Contains(err.Error(), "not a results database") {
		t.Errorf("Open(an empty file): %v", err)
	}
	for _, dsn := range []string{"", "mysql://x", "sqlite:"} {
		if _, err := Open(ctx, dsn); err == nil {
			t.Errorf("Open(%q) succeeded", dsn)
		}
	}
}

// near tells whether got and want are equal but for rounding (benchfmt
// scales ns/op to sec/op).
func near(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Abs(want[i]) {
			return false
		}
	}
	return true
}
