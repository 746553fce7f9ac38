package night

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

var (
	fixtures = flag.String("fixtures", "", "a directory of benchmark results: <test>/outputs.zip")
)

// readZip returns a zip's files.
func readZip(t *testing.T, path string) map[string][]byte {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	files := map[string][]byte{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], err = io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// writeZip writes files into a zip at path, the same bytes for the same files.
func writeZip(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		w, err := z.Create(name)
		if err == nil {
			_, err = w.Write(files[name])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editResult changes the result.json of files.
func editResult(t *testing.T, files map[string][]byte, edit func(r *result.Result)) {
	t.Helper()
	r, err := result.Decode(files[result.FileName], result.FileName)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	files[result.FileName], _ = json.MarshalIndent(r, "", "  ")
}

// A nightSpec is one night's changes to the fixtures.
type nightSpec struct {
	allocs   int    // allocations of each Go benchmark op
	slow     string // a benchmark whose real time triples
	alsoSlow string // and another
	// counted gives havlak7 a gated instruction count of this value,
	// when not 0; loosened declares it ungated at a threshold of 100%, as
	// a change that edited its own benchmark's declaration would.
	counted    float64
	loosened   bool
	newGoSDK   string             // a Go toolchain every result reports instead
	goBenchEnv result.Environment // the Go benchmark's environment
	// lab is the version of the lab every program's result names
	// (identity.lab_sha256), when not "": a result with no identity gets
	// one of its own binary and run.
	lab string
	// drop is a test whose outputs the night lacks; truncate, one whose
	// outputs.zip is cut in half.
	drop, truncate string
	// commit is the commit every result names, when not "".
	commit string
	// origin is who ran the night, for every result; nil: the nightly
	// schedule on main (trusted).
	origin *result.Origin
	// started is when every result started, when not zero.
	started time.Time
}

// scheduledMain is the origin of a real night: the schedule's build of main.
var scheduledMain = result.Origin{CI: "buildkite", BuildSource: "schedule", Branch: result.TrustedBranch,
	Repository: "git@github.com:havlak-lab/havlak-lab.git", Pipeline: "havlak-lab"}

// makeNight writes an artifacts directory as nightly collect makes it.
func makeNight(t *testing.T, spec nightSpec) string {
	t.Helper()
	dir := t.TempDir()
	zips, _ := filepath.Glob(filepath.Join(*fixtures, "*", result.ZipName))
	if len(zips) == 0 {
		t.Fatalf("no fixtures in %s", *fixtures)
	}
	var env result.Environment
	for _, zipPath := range zips {
		test := filepath.Base(filepath.Dir(zipPath))
		files := readZip(t, zipPath)
		editResult(t, files, func(r *result.Result) {
			if test == spec.slow+"_quick_test" || test == spec.alsoSlow+"_quick_test" {
				for i := range r.Timing.Runs {
					r.Timing.Runs[i].RealSeconds *= 3
				}
			}
			if test == "havlak7_quick_test" && spec.counted != 0 {
				m := result.Metric{Name: "instructions", Unit: "instructions", Source: "test",
					Values: []float64{spec.counted}, Gated: true, Threshold: 0.01, Exact: true}
				if spec.loosened {
					m.Gated, m.Threshold = false, 1
				}
				r.Metrics = append(r.Metrics, m)
			}
			if spec.newGoSDK != "" {
				r.Environment.Toolchains.Go = spec.newGoSDK
			}
			if spec.lab != "" {
				if r.SchemaVersion = result.SchemaVersion; r.Identity == nil {
					sum := fmt.Sprintf("%x", sha256.Sum256([]byte(test)))
					r.Identity = &result.Identity{BinarySHA256: sum, RunSHA256: sum}
				}
				r.Identity.LabSHA256 = spec.lab
			}
			r.Environment.Origin = scheduledMain
			if spec.commit != "" {
				r.Environment.Source = result.Source{Commit: spec.commit}
			}
			if spec.origin != nil {
				r.Environment.Origin = *spec.origin
			}
			if !spec.started.IsZero() {
				r.Environment.Started = spec.started.Format(time.RFC3339)
			}
			env = r.Environment
		})
		writeZip(t, filepath.Join(dir, test, result.ZipName), files)
	}
	var bench strings.Builder
	bench.WriteString("goos: linux\ngoarch: amd64\npkg: havlak-lab/go/explodepath\n")
	for i := 0; i < 6; i++ {
		for _, path := range []string{"a", "b"} {
			fmt.Fprintf(&bench, "BenchmarkSplit/path=%s-2\t1000000\t%d.0 ns/op\t%d B/op\t%d allocs/op\n",
				path, 100+i, 16*spec.allocs, spec.allocs)
		}
	}
	goBench := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "explodepath", Kind: result.KindGoTest, Study: "explodePath", Language: "Go",
			Workload: result.Workload{Name: result.WorkloadStandard}, Repetitions: 6},
		Environment: env,
		GoBench:     "bench.txt",
	}
	data, _ := json.MarshalIndent(goBench, "", "  ")
	writeZip(t, filepath.Join(dir, "explodepath_test", result.ZipName), map[string][]byte{
		result.FileName: data, "bench.txt": []byte(bench.String()),
	})
	if spec.drop != "" {
		if err := os.RemoveAll(filepath.Join(dir, spec.drop)); err != nil {
			t.Fatal(err)
		}
	}
	if spec.truncate != "" {
		zip := filepath.Join(dir, spec.truncate, result.ZipName)
		data, err := os.ReadFile(zip)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(zip, data[:len(data)/2], 0o644)
	}
	return dir
}

// gateNight gates artifacts against baseline with the report, as nightly
// gate does, after each of with (if not nil) edits
// the options; it returns the exit status and everything printed.
func gateNight(t *testing.T, baseline, artifacts string, with ...func(o *GateOptions)) (int, string) {
	t.Helper()
	var out bytes.Buffer
	o := gateOptions(t, baseline, artifacts, &out)
	for _, edit := range with {
		if edit != nil {
			edit(&o)
		}
	}
	status := cli.Report(&out, "nightly", Gate(o))
	return status, out.String()
}

// gateOptions gate artifacts against baseline with the report, writing
// everything to out, into a history of their own: the gate always has
// one, and a test's must not be the user's (the lab's cache).
func gateOptions(t *testing.T, baseline, artifacts string, out io.Writer) GateOptions {
	return GateOptions{Artifacts: artifacts, Baseline: baseline, HistoryDir: t.TempDir(),
		StaleAfter: alert.DefaultStaleNights, Stdout: out, Stderr: out}
}

// snapshot is the baseline's files and their contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var s strings.Builder
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			fmt.Fprintf(&s, "%s %x\n", rel, data)
		}
		return err
	})
	return s.String()
}

// checkNight checks a gated night, named name: its exit status, what its
// log says, and whether the baseline, as it was before (a snapshot), was
// replaced; it returns the baseline's snapshot now, for the next night.
func checkNight(t *testing.T, name string, status int, log string, wantStatus int, says []string, baseline, before string, newBaseline bool) string {
	t.Helper()
	if status != wantStatus {
		t.Errorf("%s: exit status %d, want %d:\n%s", name, status, wantStatus, log)
	}
	for _, want := range says {
		if !strings.Contains(log, want) {
			t.Errorf("%s: the log does not say %q:\n%s", name, want, log)
		}
	}
	after := snapshot(t, baseline)
	if (after != before) != newBaseline {
		t.Errorf("%s: baseline replaced %v, want %v", name, after != before, newBaseline)
	}
	return after
}

// needCommands skips a test run without the fixtures, and makes their
// runfiles path absolute.
func needCommands(t *testing.T) {
	t.Helper()
	if *fixtures == "" {
		t.Skip("needs -fixtures (bazel test //tools/nightly/night:night_test)")
	}
	// Bazel gives runfiles paths, relative to the workspace's runfiles
	// directory; go_test runs in the package's.
	for _, path := range []*string{fixtures} {
		if dir := os.Getenv("TEST_SRCDIR"); dir != "" && !filepath.IsAbs(*path) {
			*path = filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), *path)
		}
	}
}

func TestGate(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	baseline := filepath.Join(t.TempDir(), "baseline")

	first := makeNight(t, nightSpec{allocs: 1})
	status, log := gateNight(t, baseline, first)
	if status != 0 || !strings.Contains(log, "No baseline yet") {
		t.Fatalf("first night: exit status %d, want 0 and no baseline:\n%s", status, log)
	}
	if !isFile(filepath.Join(first, "report", "index.html")) || !isFile(filepath.Join(baseline, "havlak6_quick_test", result.ZipName)) ||
		!isFile(filepath.Join(baseline, "explodepath_test", result.ZipName)) {
		t.Fatalf("first night: no report, or it did not become the baseline:\n%s", log)
	}
	before := snapshot(t, baseline)

	for _, c := range []struct {
		name        string
		spec        nightSpec
		with        func(o *GateOptions)
		status      int
		says        []string
		newBaseline bool
	}{
		{"unchanged", nightSpec{allocs: 1}, nil, 0, []string{"| havlak6 | Go |", "| unchanged | <details><summary>2 unchanged</summary>real_seconds +0.00%", "Baseline: " + baseline}, false},
		// With a dashboard, each row links to its compare page of the
		// baseline's commit and tonight's.
		{"unchanged, with a dashboard", nightSpec{allocs: 1}, func(o *GateOptions) { o.Dashboard = "http://127.0.0.1:8080/lab" }, 0,
			[]string{"| [havlak6](http://127.0.0.1:8080/lab/compare?a=495bf23dbc25b34ae073750428d0e4a16e63690a&b=495bf23dbc25b34ae073750428d0e4a16e63690a) | Go |"}, false},
		{"a dashboard that is no web address", nightSpec{allocs: 1}, func(o *GateOptions) { o.Dashboard = "ftp://lab/" }, 2,
			[]string{"--dashboard: the dashboard's address \"ftp://lab/\": want http"}, false},
		{"havlak6 three times slower", nightSpec{allocs: 1, slow: "havlak6"}, nil, 1,
			[]string{"report: havlak6 regressed", "**Regressions**"}, false},
		{"a Go benchmark allocating twice", nightSpec{allocs: 2}, nil, 1,
			[]string{"explodepath regressed: Split/path=a-2 +100.00% (REGRESSED", "| **REGRESSED** | **REGRESSED** Split/path=a-2 +100.00%"}, false},
		{"tests failed", nightSpec{allocs: 0}, func(o *GateOptions) { o.TestsFailed = true }, 0, []string{"the baseline stays"}, false},
		// Good nights, but not the schedule's: refused, whatever else they are.
		{"a fork's pull request", nightSpec{allocs: 1, origin: &result.Origin{CI: "buildkite", BuildSource: "webhook",
			Branch: "patch-1", PullRequest: "17", PullRequestRepository: "git://github.com/a-fork/havlak-lab.git",
			Repository: scheduledMain.Repository}}, nil, 0,
			[]string{"not promoted to baseline", "come from elsewhere",
				"a buildkite build of pull request #17 from the fork git://github.com/a-fork/havlak-lab.git"}, false},
		{"a workstation", nightSpec{allocs: 1, origin: &result.Origin{}}, nil, 0,
			[]string{"not promoted to baseline", "havlak6_quick_test/outputs.zip: a run outside CI"}, false},
		{"a scheduled build of another branch", nightSpec{allocs: 1, origin: &result.Origin{CI: "buildkite",
			BuildSource: "schedule", Branch: "experiment"}}, nil, 0,
			[]string{`a scheduled buildkite build of branch "experiment", not "main"`}, false},
		// What the gate cannot see fails the night, named.
		{"havlak6 vanished", nightSpec{allocs: 1, drop: "havlak6_quick_test"}, nil, 1,
			[]string{"havlak6 MISSING: the baseline has it", "| havlak6 |  |  | **MISSING** |"}, false},
		{"the Go benchmark vanished", nightSpec{allocs: 1, drop: "explodepath_test"}, nil, 1,
			[]string{"explodepath MISSING: the baseline has it", "tonight has no result of it"}, false},
		{"a truncated outputs.zip", nightSpec{allocs: 1, truncate: "havlak7_quick_test"}, nil, 1,
			[]string{"**Unreadable results**", "havlak7_quick_test/outputs.zip: zip: not a valid zip file", "havlak7 MISSING"}, false},
		{"another Go SDK", nightSpec{allocs: 1, newGoSDK: "go1.99"}, nil, 0,
			[]string{`toolchains.go: "go1.27.4" → "go1.99"`, "**Environment changed**"}, true},
		// Leaving the suite on purpose is said, and the baseline goes on
		// without it.
		{"havlak6 retired", nightSpec{allocs: 1, newGoSDK: "go1.99", drop: "havlak6_quick_test"}, func(o *GateOptions) { o.Retire = []string{"havlak6"} }, 0,
			[]string{"| havlak6 |  |  | retired |", "This night becomes the baseline"}, true},
	} {
		status, log := gateNight(t, baseline, makeNight(t, c.spec), c.with)
		before = checkNight(t, c.name, status, log, c.status, c.says, baseline, before, c.newBaseline)
	}

	better := makeNight(t, nightSpec{allocs: 0, newGoSDK: "go1.99"})
	if status, log := gateNight(t, baseline, better); status != 0 || snapshot(t, baseline) == before {
		t.Errorf("a better night: exit status %d, baseline replaced %v; want 0 and replaced:\n%s", status, snapshot(t, baseline) != before, log)
	}
	// The night writes one summary, its report's: the programs, servers
	// and Go benchmarks judged together.
	one, err := summary.Read(filepath.Join(better, nightdir.Report, summary.FileName))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, b := range one.Benchmarks {
		kinds[b.Name] = true
	}
	if !kinds["explodepath"] || !kinds["havlak7"] || exists(filepath.Join(better, nightdir.Benchgate)) {
		t.Errorf("the night's summary has %v, a second summary %v; want the Go benchmarks and the programs in one",
			kinds, exists(filepath.Join(better, nightdir.Benchgate)))
	}
}

// A night cannot loosen the gate it is judged by: a benchmark whose
// declaration tonight drops its gate and sets a threshold of 100% is
// judged by the baseline's declaration, and 5% more instructions fail.
func TestGateCannotBeLoosened(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	baseline := filepath.Join(t.TempDir(), "baseline")
	if status, log := gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1, counted: 1e9})); status != 0 {
		t.Fatalf("first night: exit status %d, want 0:\n%s", status, log)
	}
	before := snapshot(t, baseline)
	status, log := gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1, counted: 1.05e9, loosened: true}))
	if status != 1 {
		t.Errorf("5%% more instructions, the gate loosened: exit status %d, want 1:\n%s", status, log)
	}
	for _, want := range []string{"report: havlak7 regressed", "the change no longer gates it"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
	if snapshot(t, baseline) != before {
		t.Error("the loosened night became the baseline")
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "testlogs")
	// The baseline and the history, where collect never writes.
	state := t.TempDir()
	baseline, historyDir := filepath.Join(state, "baseline"), filepath.Join(state, "history")
	t.Setenv("HAVLAK_LAB_BASELINE", baseline)
	t.Setenv(history.DirEnv, historyDir)
	zipOf := func(name, content string) string {
		path := filepath.Join(dir, "testlogs", name, "outputs.zip")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(content), 0o644)
		return path
	}
	first, retry, other := zipOf("a1", "first attempt"), zipOf("a2", "last attempt"), zipOf("b", "b's")
	otherLogs := filepath.Join(dir, "elsewhere", "testlogs", "x", "outputs.zip")
	os.MkdirAll(filepath.Dir(otherLogs), 0o755)
	os.WriteFile(otherLogs, []byte("not this build's"), 0o644)
	link := filepath.Join(logs, "l", "outputs.zip")
	os.MkdirAll(filepath.Dir(link), 0o755)
	os.Symlink(otherLogs, link)
	event := func(label, uri string) string {
		return fmt.Sprintf(`{"id":{"testResult":{"label":%q}},"testResult":{"testActionOutput":[{"name":"test.log","uri":"file:///x"},{"name":%q,"uri":%q}]}}`,
			label, result.TestOutputsEvent, uri)
	}
	events := filepath.Join(dir, "events.json")
	os.WriteFile(events, []byte(strings.Join([]string{
		`{"id":{"started":{}},"started":{"uuid":"x"}}`,
		event("//benchmarks:havlak6_test", "file://"+first),
		event("//tools:other_test", "file://"+other),
		event("//benchmarks:havlak6_test", "file://"+retry),
	}, "\n")+"\n"), 0o644)
	dest := filepath.Join(dir, "artifacts")
	dirs, err := Collect(events, logs, dest)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	if want := []string{filepath.Join(dest, "havlak6_test"), filepath.Join(dest, "other_test")}; !slices.Equal(dirs, want) {
		t.Errorf("collect made %q, want %q", dirs, want)
	}
	if data, _ := os.ReadFile(filepath.Join(dest, "havlak6_test", "outputs.zip")); string(data) != "last attempt" {
		t.Errorf("havlak6_test: %q, want the last attempt's outputs", data)
	}
	// A night elsewhere than the event file (a shard's) keeps a copy of
	// it: how its build ended, which the merge reads.
	eventFile, _ := os.ReadFile(events)
	if data, _ := os.ReadFile(filepath.Join(dest, nightdir.Events)); string(data) != string(eventFile) {
		t.Errorf("the night's %s: %q, want the event file's copy", nightdir.Events, data)
	}

	for name, c := range map[string]struct{ events, want string }{
		"not events": {"{\"id\": {}}\nnot json\n", events + ":2: not a build event"},
		"remote":     {event("//a:t", "bytestream://cache/blobs/1") + "\n", "not a local file"},
		"same names": {event("//a:t", "file://"+first) + "\n" + event("//b:t", "file://"+other) + "\n", "two tests named t"},
		"a label out of the destination": {event("//benchmarks:../../ESCAPED", "file://"+first) + "\n",
			`test "//benchmarks:../../ESCAPED": name "../../ESCAPED" starts with a dot`},
		"a test named like the gate's report": {event("//a:report", "file://"+first) + "\n",
			"test //a:report: the nightly job writes its own report into the night's directory"},
		"a zip outside the testlogs": {event("//a:t", "file:///etc/passwd") + "\n",
			`"/etc/passwd" is not an outputs.zip under Bazel's test logs ` + logs + " (--testlogs)"},
		"a zip up and out": {event("//a:t", "file://"+dir+"/testlogs/../../x/outputs.zip") + "\n", "not an outputs.zip under Bazel's test logs"},
		// Once, any path with /testlogs/ in it passed.
		"a zip in another testlogs": {event("//a:t", "file://"+otherLogs) + "\n",
			fmt.Sprintf("%q is not an outputs.zip under Bazel's test logs %s", otherLogs, logs)},
		"a link out of the testlogs": {event("//a:t", "file://"+link) + "\n",
			"its outputs.zip " + link + " leads to " + otherLogs + ", outside Bazel's test logs " + logs},
	} {
		os.WriteFile(events, []byte(c.events), 0o644)
		empty := t.TempDir()
		_, err := Collect(events, logs, empty)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
		if entries, _ := os.ReadDir(empty); len(entries) > 0 {
			t.Errorf("%s: collect wrote %d files before it refused", name, len(entries))
		}
	}

	// Where collect may not write, it writes nothing: the baseline and the
	// history's directory, what holds them or is in them; a file; a
	// directory that is not a night.
	os.WriteFile(events, []byte(event("//a:t", "file://"+first)+"\n"), 0o644)
	os.MkdirAll(filepath.Join(baseline, "t"), 0o755)
	os.MkdirAll(filepath.Join(historyDir, history.NightsDir), 0o755)
	notes := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(notes, "Documents"), 0o755)
	os.WriteFile(filepath.Join(notes, "Documents", "notes.txt"), []byte("precious"), 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("precious"), 0o644)
	for what, c := range map[string]struct{ dest, want string }{
		"the baseline":           {baseline, "DEST " + baseline + " and the baseline " + baseline + " are the same directory: collect never writes there"},
		"inside the baseline":    {filepath.Join(baseline, "t"), "is inside the baseline"},
		"the history's archive":  {filepath.Join(historyDir, history.NightsDir), "is inside the history's directory " + historyDir},
		"what holds the history": {state, "is inside DEST"},
		"a file":                 {file, "DEST " + file + ": not a directory: refused, nothing written"},
		"a home directory":       {notes, "DEST " + notes + ": neither empty nor a night's results: refused, nothing written"},
	} {
		before := snapshot(t, state) + snapshot(t, dir)
		_, err := Collect(events, logs, c.dest)
		if cli.Status(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("collect into %s: %v, want a usage error saying %q", what, err, c.want)
		}
		if snapshot(t, state)+snapshot(t, dir) != before {
			t.Errorf("collect into %s wrote", what)
		}
	}
	if _, err := Collect(events, "", dest); cli.Status(err) != 2 || !strings.Contains(err.Error(), "collect needs --testlogs") {
		t.Errorf("collect without --testlogs: %v", err)
	}
	if _, err := Collect(filepath.Join(dir, "missing.json"), logs, dest); cli.Status(err) != 2 {
		t.Errorf("a missing event file: %v, want a usage error", err)
	}
	// What is not a regular file is refused before it is read: /dev/zero
	// would grow a line without end, a named pipe would block.
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "build event file /dev/zero: a character device: not a regular file",
		fifo:        "build event file " + fifo + ": a named pipe: not a regular file",
	} {
		if _, err := Collect(path, logs, dest); cli.Status(err) != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("collect %s: %v, want a usage error saying %q", path, err, want)
		}
	}
	long := strings.Repeat(" ", maxEventBytes) + event("//a:t", "file://"+first)
	os.WriteFile(events, []byte(event("//b:u", "file://"+other)+"\n"+long+"\n"), 0o644)
	want := fmt.Sprintf("%s:2: a line over %d bytes", events, maxEventBytes)
	if _, err := Collect(events, logs, t.TempDir()); cli.Status(err) != 2 || !strings.Contains(err.Error(), want) {
		t.Errorf("a line over the limit: %v, want a usage error saying %q", err, want)
	}
}

// A regression that a commit since the baseline accepts (a Perf-Accepted:
// trailer, which its perf check let pass) does not fail the night.
func TestGateAcceptsTrailers(t *testing.T) {
	status, log := acceptedNight(t, "the pass pays for itself in havlak7")
	if status != 0 || !strings.Contains(log, "Accepted by a commit since the baseline: havlak6 real_seconds: the pass pays for itself in havlak7") ||
		!strings.Contains(log, "| havlak6 | Go |") || !strings.Contains(log, "regressed, accepted") {
		t.Errorf("an accepted regression: exit status %d\n%s", status, log)
	}
}

// A trailer's reason that holds escape sequences, C1 and bidi controls is
// shown escaped in the night's log, as is everything the report and
// the gate write into it: none of their characters is written raw.
func TestGateLogIsPrintable(t *testing.T) {
	status, log := acceptedNight(t, "intended \x1b[2J\x1b]0;title\a\u009b31m\u202eexe.txt")
	if status != 0 || !strings.Contains(log, `havlak6 real_seconds: intended \x1b[2J\x1b]0;title\a\u009b31m\u202eexe.txt`+"\n") {
		t.Errorf("an accepted regression with a hostile reason: exit status %d\n%s", status, log)
	}
	for _, r := range log {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			t.Errorf("the log carries %U raw:\n%q", r, log)
			break
		}
	}
}

// A malformed trailer fails the night, naming its line, as it stops the
// perf check: it accepts nothing, and the night is not promoted.
func TestGateRefusesAMalformedTrailer(t *testing.T) {
	status, log := trailerNight(t, "Perf-Accepted: havlak6 real_seconds the pass pays for itself")
	if status != 1 || !strings.Contains(log, `"Perf-Accepted: havlak6 real_seconds the pass pays for itself": want`) ||
		strings.Contains(log, "This night becomes the baseline") {
		t.Errorf("a malformed trailer: exit status %d\n%s", status, log)
	}
}

// acceptedNight gates a night whose havlak6 is slower than the baseline's,
// with a commit between them that accepts it with reason, and returns the
// second night's exit status and log.
func acceptedNight(t *testing.T, reason string) (int, string) {
	t.Helper()
	return trailerNight(t, "Perf-Accepted: havlak6 real_seconds: "+reason)
}

// trailerNight gates a night whose havlak6 is slower than the baseline's,
// with a commit between them whose message ends with trailer, and returns
// the second night's exit status and log.
func trailerNight(t *testing.T, trailer string) (int, string) {
	t.Helper()
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	checkout, commits := gitHistory(t, 1)
	cmd := exec.Command("git", "-C", checkout, "-c", "user.name=lab", "-c", "user.email=lab@localhost", "commit", "-q", "--allow-empty",
		"-m", "havlak6: a pass more\n\n"+trailer)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", checkout, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(checkout)
	baseline := filepath.Join(t.TempDir(), "baseline")
	if status, log := gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1, commit: commits[0]})); status != 0 {
		t.Fatalf("first night: exit status %d\n%s", status, log)
	}
	return gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1, slow: "havlak6", commit: strings.TrimSpace(string(head))}))
}

// FuzzTestOutputs: any bytes as a build event file are its tests' zips,
// each an outputs.zip under the test logs given, or an error; never a
// panic.
func FuzzTestOutputs(f *testing.F) {
	f.Add([]byte(`{"id":{"testResult":{"label":"//a:t"}},"testResult":{"testActionOutput":[{"name":"test.outputs__outputs.zip","uri":"file:///b/testlogs/a/t/outputs.zip"}]}}` + "\n"))
	f.Add([]byte("{\"id\": {}}\n\n  \nnot json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "events.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		zips, err := testOutputs(path, "/b/testlogs")
		if err != nil {
			return
		}
		for label, zip := range zips {
			if err := checkTestOutputs(label, zip, "/b/testlogs"); err != nil {
				t.Fatalf("took %s", err)
			}
		}
	})
}
