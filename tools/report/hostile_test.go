package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// night unpacks the fixtures of stages into a directory of results.
func night(t *testing.T, stages ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range stages {
		unzipTo(t, filepath.Join(fixtures, s+"_quick_test", "outputs.zip"), filepath.Join(dir, s))
	}
	return dir
}

// reportSummary runs the report and reads its summary.json.
func reportSummary(t *testing.T, args ...string) (*summary.Summary, string, int) {
	t.Helper()
	out := t.TempDir()
	stderr, status, _ := runReport(t, append(args, "--out", out)...)
	sum, err := summary.Read(filepath.Join(out, summary.FileName))
	if err != nil {
		t.Fatalf("report %v: exit status %d, no summary: %v\n%s", args, status, err, stderr)
	}
	if sum.Status() != status {
		t.Errorf("report %v: exit status %d, its summary says %d", args, status, sum.Status())
	}
	return sum, stderr, status
}

func benchmarkOf(s *summary.Summary, name string) *summary.Benchmark {
	for i := range s.Benchmarks {
		if s.Benchmarks[i].Name == name {
			return &s.Benchmarks[i]
		}
	}
	return nil
}

// A benchmark of the baseline that tonight lacks fails the comparison,
// named, unless it is retired on purpose.
func TestMissingBenchmarkFails(t *testing.T) {
	baseline := night(t, "havlak1", "havlak6", "havlak7")
	tonight := night(t, "havlak1", "havlak7")
	sum, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline)
	if b := benchmarkOf(sum, "havlak6"); status != 1 || b == nil || b.Outcome != verdict.Missing || !b.Fails() ||
		!strings.Contains(stderr, "report: havlak6 MISSING: the baseline has it") {
		t.Errorf("havlak6 gone: exit status %d, summary %+v\n%s", status, b, stderr)
	}
	sum, stderr, status = reportSummary(t, "--from", tonight, "--baseline", baseline, "--retire", "havlak6")
	if b := benchmarkOf(sum, "havlak6"); status != 0 || b == nil || !b.Retired || b.Fails() {
		t.Errorf("havlak6 retired: exit status %d, summary %+v\n%s", status, b, stderr)
	}
	for _, bad := range [][]string{{"--retire", "havlak5"}, {"--retire", "havlak7"}, {"--retire", "../x"}} {
		_, status, err := runReport(t, append([]string{"--from", tonight, "--baseline", baseline, "--out", t.TempDir()}, bad...)...)
		if status != 2 {
			t.Errorf("%v: exit status %d (%v), want a usage error", bad, status, err)
		}
	}
}

// A gated figure of the baseline that tonight's result has no values of
// (Cachegrind missing, say) fails, named.
func TestMissingFigureFails(t *testing.T) {
	baseline, tonight := night(t, "havlak6cc"), night(t, "havlak6cc")
	setMetric(t, filepath.Join(baseline, "havlak6cc"), 1e9, 1e9)
	editResult(t, filepath.Join(tonight, "havlak6cc"), func(doc map[string]any) {
		doc["metrics"] = []any{map[string]any{"name": "instructions", "unit": "instructions", "source": "test",
			"values": []any{}, "unavailable": "valgrind not found"}}
	})
	sum, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline)
	b := benchmarkOf(sum, "havlak6cc")
	if status != 1 || b == nil || b.Outcome != verdict.Missing || !strings.Contains(stderr, "instructions MISSING") ||
		!strings.Contains(stderr, "valgrind not found") {
		t.Errorf("instructions gone: exit status %d, %+v\n%s", status, b, stderr)
	}
}

// A server a hundred times slower than its baseline fails, even from one
// round each (too few for the U test: a tenfold change is no noise).
func TestServerIsCompared(t *testing.T) {
	server := func(throughput, p99 float64) string {
		dir := t.TempDir()
		unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(dir, "router_mutex"))
		editResult(t, filepath.Join(dir, "router_mutex"), func(doc map[string]any) {
			for _, r := range doc["server"].(map[string]any)["rounds"].([]any) {
				r := r.(map[string]any)
				r["throughput"] = throughput
				l := r["latency_seconds"].(map[string]any)
				l["p50"], l["p90"], l["p99"], l["max"] = p99/4, p99/2, p99, 2*p99
			}
		})
		return dir
	}
	baseline := server(19076, 0.002)
	sum, stderr, status := reportSummary(t, "--from", server(190, 2), "--baseline", baseline)
	b := benchmarkOf(sum, "router_mutex")
	if status != 1 || b == nil || !b.Fails() || !strings.Contains(stderr, "router_mutex regressed: REGRESSED: throughput -99.0%") {
		t.Errorf("190 req/s against 19,076: exit status %d, %+v\n%s", status, b, stderr)
	}
	if sum, _, status := reportSummary(t, "--from", server(19000, 0.0021), "--baseline", baseline); status != 0 || benchmarkOf(sum, "router_mutex").Fails() {
		t.Errorf("the same server again: exit status %d", status)
	}
}

// Text from results enters Markdown escaped: a study, a language and a
// workload made of HTML and table syntax stay text in table.md and
// report.md.
func TestMarkdownIsEscaped(t *testing.T) {
	dir := night(t, "havlak6")
	editResult(t, filepath.Join(dir, "havlak6"), func(doc map[string]any) {
		b := doc["benchmark"].(map[string]any)
		b["study"] = "<img src=x onerror=alert(1)>"
		b["language"] = "Go | injected | cell"
		b["workload"].(map[string]any)["description"] = "[click](javascript:alert(1))"
	})
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", dir, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	for _, file := range []string{"table.md", "report.md"} {
		text := readFile(t, filepath.Join(out, file))
		unescaped := strings.NewReplacer(`\<`, "", `\|`, "", `\[`, "").Replace(text)
		for _, raw := range []string{"<img", "| injected |", "[click]"} {
			if strings.Contains(unescaped, raw) {
				t.Errorf("%s carries %q raw:\n%s", file, raw, text)
			}
		}
		if !strings.Contains(text, `\<img src=x onerror=alert(1)\>`) || !strings.Contains(text, `Go \| injected \| cell`) {
			t.Errorf("%s lacks the escaped text:\n%s", file, text)
		}
	}
}

// A result named ".." is not read, and nothing is written outside the
// report's directory.
func TestNamesDoNotBecomePaths(t *testing.T) {
	dir := night(t, "havlak6", "havlak7")
	editResult(t, filepath.Join(dir, "havlak7"), func(doc map[string]any) {
		doc["benchmark"].(map[string]any)["name"] = ".."
	})
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	stderr, status, _ := runReport(t, "--from", dir, "--out", out)
	if status != 1 || !strings.Contains(stderr, `benchmark.name: name ".." starts with a dot`) {
		t.Errorf("a result named ..: exit status %d\n%s", status, stderr)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "report" {
		t.Errorf("the report wrote beside its directory: %v", entries)
	}
}

// Two results of the same identity measured the same binary the same way:
// a difference between them is noise, never a regression (issue 26).
func TestSameIdentityIsNoise(t *testing.T) {
	baseline, tonight := night(t, "havlak6cc"), night(t, "havlak6cc")
	setMetric(t, filepath.Join(baseline, "havlak6cc"), 1e9, 1e9)
	setMetric(t, filepath.Join(tonight, "havlak6cc"), 1.05e9, 1.05e9)
	identify := func(dir, binary string) {
		editResult(t, filepath.Join(dir, "havlak6cc"), func(doc map[string]any) {
			doc["schema_version"] = 2
			doc["identity"] = map[string]any{"binary_sha256": strings.Repeat(binary, 64), "run_sha256": strings.Repeat("b", 64)}
		})
	}
	identify(baseline, "a")
	identify(tonight, "a")
	sum, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline)
	if b := benchmarkOf(sum, "havlak6cc"); status != 0 || b.Fails() || !strings.Contains(b.Note, "noise floor") {
		t.Errorf("5%% more of the same binary: exit status %d, %+v\n%s", status, b, stderr)
	}
	identify(tonight, "c")
	if _, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline); status != 1 {
		t.Errorf("5%% more of another binary: exit status %d\n%s", status, stderr)
	}
}

// Exact counts of one identity on one counting environment must be equal:
// the same binary and run with 3x the instructions and 5x the time is an
// inconsistent measurement that fails, naming both results, not noise.
func TestSameIdentityDifferentCountsFail(t *testing.T) {
	baseline, tonight := night(t, "havlak6cc"), night(t, "havlak6cc")
	for dir, factor := range map[string]float64{baseline: 1, tonight: 3} {
		editResult(t, filepath.Join(dir, "havlak6cc"), func(doc map[string]any) {
			doc["schema_version"] = 2
			doc["identity"] = map[string]any{"binary_sha256": strings.Repeat("a", 64), "run_sha256": strings.Repeat("b", 64)}
			doc["metrics"] = []any{map[string]any{"name": "instructions", "unit": "instructions", "source": "test",
				"values": []float64{1e9 * factor}, "gated": true, "threshold": 0.01, "exact": true}}
		})
	}
	sum, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline)
	b := benchmarkOf(sum, "havlak6cc")
	if status != 1 || !b.Fails() || b.Outcome != verdict.Inconsistent {
		t.Errorf("3x the exact count of the same binary and run: exit status %d, %+v, want an inconsistent measurement\n%s", status, b, stderr)
	}
	if !strings.Contains(stderr, "instructions INCONSISTENT: inconsistent measurement: "+filepath.Join(baseline, "havlak6cc")) ||
		!strings.Contains(stderr, filepath.Join(tonight, "havlak6cc")+" measured the same binary and run") {
		t.Errorf("stderr does not name both results:\n%s", stderr)
	}
}

// Another machine stops the timings' comparison, not the exact counts':
// a night whose every result claims another CPU still fails on 3x the
// instructions, and a night of another Go SDK compares neither.
func TestEnvironmentChangeKeepsExactCounts(t *testing.T) {
	baseline, tonight := night(t, "havlak6cc"), night(t, "havlak6cc")
	for dir, factor := range map[string]float64{baseline: 1, tonight: 3} {
		editResult(t, filepath.Join(dir, "havlak6cc"), func(doc map[string]any) {
			doc["metrics"] = []any{map[string]any{"name": "instructions", "unit": "instructions", "source": "test",
				"values": []float64{1e9 * factor}, "gated": true, "threshold": 0.01, "exact": true}}
			env := doc["environment"].(map[string]any)
			env["toolchains"].(map[string]any)["libc"] = "ldd (Debian GLIBC 2.36-9+deb12u9) 2.36"
			env["toolchains"].(map[string]any)["valgrind"] = "valgrind-3.19.0"
			if factor != 1 {
				machine := env["machine"].(map[string]any)
				machine["hostname"], machine["cpu_model"], machine["cores"] = "elsewhere", "Another CPU", 64
			}
		})
	}
	sum, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline)
	b := benchmarkOf(sum, "havlak6cc")
	if status != 1 || !b.Fails() || len(b.EnvironmentChanges) == 0 {
		t.Errorf("3x the exact instructions on another machine: exit status %d, %+v, want a regression and the change named\n%s", status, b, stderr)
	}
	editResult(t, filepath.Join(tonight, "havlak6cc"), func(doc map[string]any) {
		doc["environment"].(map[string]any)["toolchains"].(map[string]any)["go"] = "go1.99"
		doc["environment"].(map[string]any)["toolchains"].(map[string]any)["gcc"] = "gcc 99"
	})
	if _, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline); status != verdict.StatusNotComparable {
		t.Errorf("3x the instructions of another compiler: exit status %d, want %d (not comparable)\n%s", status, verdict.StatusNotComparable, stderr)
	}
}

// What the report reads is never what it writes: it replaces --out whole,
// so an --out that is, holds or is inside --from, --night or --baseline is
// refused before anything is written, and the directory keeps every file.
func TestOutDoesNotOverlapInputs(t *testing.T) {
	zipped := func(t *testing.T) string {
		dir := t.TempDir()
		for _, s := range []string{"havlak1", "havlak6"} {
			data, err := os.ReadFile(filepath.Join(fixtures, s+"_quick_test", "outputs.zip"))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, s+"_quick_test"), 0o755)
			os.WriteFile(filepath.Join(dir, s+"_quick_test", "outputs.zip"), data, 0o644)
		}
		return dir
	}
	for _, c := range []struct {
		name string
		// args are the report's, with D the directory read.
		args []string
		// status is the exit status; says, what standard error says.
		status int
		says   string
	}{
		{"--from D --out D", []string{"--from", "D", "--out", "D"}, 2, "--from D and --out D are the same directory"},
		{"--from D --out D/report", []string{"--from", "D", "--out", "D/report"}, 2, "--out D/report is inside --from D"},
		{"--from D/havlak1_quick_test --out D", []string{"--from", "D/havlak1_quick_test", "--out", "D"}, 2, "--from D/havlak1_quick_test is inside --out D"},
		{"--baseline D --out D", []string{"--from", "B", "--baseline", "D", "--out", "D"}, 2, "--baseline D and --out D are the same directory"},
		{"--night D --out D", []string{"--night", "D", "--out", "D"}, 2, "--out: D: holds the night D"},
		{"--night D --out D/havlak1_quick_test", []string{"--night", "D", "--out", "D/havlak1_quick_test"}, 2, "inside the night D, beside its results"},
		{"--night D --out D/report", []string{"--night", "D", "--out", "D/report"}, 0, "report: 2 benchmarks"},
		{"--night D --from D", []string{"--night", "D", "--from", "D"}, 2, "are alternatives"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, other := zipped(t), zipped(t)
			// A night holds no stray files (the last case says so).
			stray := c.args[0] != "--night"
			if stray {
				os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("mine"), 0o644)
			}
			var args []string
			for _, a := range c.args {
				a = strings.Replace(a, "D", dir, 1)
				args = append(args, strings.Replace(a, "B", other, 1))
			}
			stderr, status, err := runReport(t, args...)
			if err != nil {
				stderr += err.Error()
			}
			stderr = strings.ReplaceAll(stderr, dir, "D")
			if status != c.status || !strings.Contains(stderr, c.says) {
				t.Errorf("exit status %d, want %d saying %q:\n%s", status, c.status, c.says, stderr)
			}
			for _, s := range []string{"havlak1", "havlak6"} {
				if _, err := os.Stat(filepath.Join(dir, s+"_quick_test", "outputs.zip")); err != nil {
					t.Errorf("the results read are gone: %v", err)
				}
			}
			if data, _ := os.ReadFile(filepath.Join(dir, "unrelated.txt")); stray && string(data) != "mine" {
				t.Errorf("an unrelated file of D is gone")
			}
		})
	}

	// A night holding what is not a night's is refused, naming it.
	dir := zipped(t)
	os.Symlink(filepath.Join(zipped(t), "havlak6_quick_test"), filepath.Join(dir, "havlak7_quick_test"))
	_, status, err := runReport(t, "--night", dir, "--out", t.TempDir())
	if want := filepath.Join(dir, "havlak7_quick_test") + ": a symbolic link"; status != 2 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a night with a symbolic link: exit status %d, want 2 saying %q: %v", status, want, err)
	}
}

// hostileText would drive a terminal, or read as other text, if shown as
// it is: ESC sequences that clear the screen and retitle the window, the
// one-byte C1 CSI, a bidi override.
const hostileText = "\x1b[2J\x1b]0;title\a\u009b31m\u202eexe.txt"

// rawRune is the first rune of text that would not show as itself, but
// newline and tab, or false.
func rawRune(text string) (rune, bool) {
	for _, r := range text {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			return r, true
		}
	}
	return 0, false
}

// A figure's name and an acceptance's reason that hold escape sequences,
// C1 and bidi controls are shown escaped on stderr, in the page and in the
// Markdown: none of their characters is written raw.
func TestHostileTextIsShownEscaped(t *testing.T) {
	figure := "instructions" + hostileText
	baseline, tonight := night(t, "havlak6cc"), night(t, "havlak6cc")
	for dir, value := range map[string]float64{baseline: 1e9, tonight: 2e9} {
		editResult(t, filepath.Join(dir, "havlak6cc"), func(doc map[string]any) {
			var metrics []any
			for _, name := range []string{"instructions", figure} {
				metrics = append(metrics, map[string]any{"name": name, "unit": "instructions", "source": "test",
					"values": []float64{value, value, value}, "gated": true, "threshold": 0.01})
			}
			doc["metrics"] = metrics
		})
	}
	out := t.TempDir()
	// An acceptance names a figure by a word (verdict.ParseAcceptance):
	// the hostile figure cannot be accepted, the plain one can, with a
	// hostile reason.
	if stderr, status, _ := runReport(t, "--from", tonight, "--baseline", baseline, "--out", t.TempDir(),
		"--accept", "havlak6cc:"+figure+":intended"); status != 2 || !strings.Contains(stderr, "want letters, digits and _") {
		t.Errorf("an acceptance of a hostile figure's name: exit status %d, want 2 refusing it:\n%s", status, stderr)
	}
	stderr, status, _ := runReport(t, "--from", tonight, "--baseline", baseline, "--out", out,
		"--accept", "havlak6cc:instructions:intended "+hostileText)
	if status != 1 || !strings.Contains(stderr, `havlak6cc regressed`) {
		t.Fatalf("twice the instructions: exit status %d\n%s", status, stderr)
	}
	visible := `\x1b[2J\x1b]0;title\a\u009b31m\u202eexe.txt`
	if !strings.Contains(stderr, "instructions"+visible) || !strings.Contains(stderr, "intended "+visible) {
		t.Errorf("stderr does not show the figure and the reason escaped:\n%s", stderr)
	}
	if r, raw := rawRune(stderr); raw {
		t.Errorf("stderr carries %U raw:\n%q", r, stderr)
	}
	for _, file := range []string{"index.html", "table.md", "report.md"} {
		text := readFile(t, filepath.Join(out, file))
		if r, raw := rawRune(text); raw {
			i := strings.IndexRune(text, r)
			t.Errorf("%s carries %U raw: %q", file, r, text[max(0, i-80):min(len(text), i+80)])
		}
		if !strings.Contains(text, "u202eexe.txt") {
			t.Errorf("%s does not show the figure escaped", file)
		}
	}
}
