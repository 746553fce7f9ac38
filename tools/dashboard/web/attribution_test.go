package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/history"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
)

// The change the attribution fixture measures: a second loop added to
// findLoops (lines 8-10 of B's havlak.go), which shifts the lines after
// it by three, and its line 4 edited.
const (
	baseSource = "package main\n\nfunc findLoops(n int) int {\n\tx := 0\n\tfor i := 0; i < n; i++ {\n\t\tx += i\n\t}\n" +
		"\treturn x\n}\n\nfunc main() { println(findLoops(10)) }\n"
	changeSource = "package main\n\nfunc findLoops(n int) int {\n\tx := 1\n\tfor i := 0; i < n; i++ {\n\t\tx += i\n\t}\n" +
		"\tfor i := 0; i < n; i++ {\n\t\tx ^= i\n\t}\n\treturn x\n}\n\nfunc main() { println(findLoops(10)) }\n"
	fixtureSource = "go/havlak6/havlak.go"
	// hostileFile is a file of the program's own whose name is markup.
	hostileFile = "go/havlak6/" + hostile + ".go"
)

// lineCounts are the counts per line of instructions alone from
// "FILE|LINE|FUNCTION|IR" lines, in the format's order, as a file.
func lineCounts(t *testing.T, lines ...string) []byte {
	t.Helper()
	f := &linecounts.File{}
	for _, l := range lines {
		fields := strings.Split(l, "|")
		at, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ir, err := strconv.ParseUint(fields[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		var e cachegrind.Events
		e[cachegrind.Ir] = ir
		f.Records = append(f.Records, linecounts.Record{File: fields[0], Line: at, Function: fields[2], Events: e})
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// git runs git in dir for the test.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// attributionFixture is a history and archive of two havlak6 results
// that kept line counts, A at the base commit of a checkout made here and
// B at the commit that adds a loop (their keys), and a third result, of
// B's commit, that kept none; and the checkout.
func attributionFixture(t *testing.T) (db *history.DB, repo, a, b, none string) {
	t.Helper()
	repo = t.TempDir()
	git(t, repo, "init", "-q")
	write := func(text string) {
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(fixtureSource)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, fixtureSource), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", "a commit")
	}
	write(baseSource)
	baseCommit := git(t, repo, "rev-parse", "HEAD")
	write(changeSource)
	changeCommit := git(t, repo, "rev-parse", "HEAD")

	db = newHistory(t)
	base := lineCounts(t,
		hostileFile+"|1|"+hostile+"|7",
		fixtureSource+"|4|main.findLoops|10", fixtureSource+"|5|main.findLoops|1000", fixtureSource+"|6|main.findLoops|3000",
		fixtureSource+"|8|main.findLoops|10", fixtureSource+"|11|main.main|50",
		"goroot:runtime/proc.go|250|runtime.main|500")
	change := lineCounts(t,
		hostileFile+"|1|"+hostile+"|9",
		fixtureSource+"|4|main.findLoops|10", fixtureSource+"|5|main.findLoops|1000", fixtureSource+"|6|main.findLoops|3000",
		fixtureSource+"|8|main.findLoops|1000", fixtureSource+"|9|main.findLoops|3000", fixtureSource+"|11|main.findLoops|10",
		fixtureSource+"|14|main.main|50",
		"goroot:runtime/proc.go|250|runtime.main|520")
	keyOf := func(r *result.Result, counts []byte) string {
		archiveWithLineCounts(t, db, r, counts)
		found, err := db.Results(context.Background(), history.ResultQuery{Commit: r.Environment.Source.Commit, From: nightTime(0)}, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range found {
			if st.Result.Environment.Started == r.Environment.Started {
				return st.SHA256
			}
		}
		t.Fatalf("the result of %s is not in the history", r.Environment.Started)
		return ""
	}
	at := func(night int, commit string) *result.Result {
		r := program("havlak6", 6, night, 1, 4070, "")
		r.Environment.Source.Commit = commit
		return r
	}
	return db, repo, keyOf(at(0, baseCommit), base), keyOf(at(1, changeCommit), change), keyOf(at(2, changeCommit), nil)
}

// archiveWithLineCounts enters r into the archive beside db as archive
// does, keeping counts (nil: none) as its line counts.
func archiveWithLineCounts(t *testing.T, db *history.DB, r *result.Result, counts []byte) {
	t.Helper()
	dir := t.TempDir()
	if counts != nil {
		r.LineCounts = linecounts.FileName
		if err := os.WriteFile(filepath.Join(dir, linecounts.FileName), counts, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(archivedNight(db, r), r.Benchmark.Name+"_quick_test", result.ZipName)
	resulttest.ZipDir(t, dir, zipPath)
	if _, err := db.Ingest(context.Background(), zipPath); err != nil {
		t.Fatal(err)
	}
}

// serveAttribution serves the dashboard over db, its archive beside it,
// with repo as the lab's checkout ("": none).
func serveAttribution(t *testing.T, db *history.DB, repo string) *httptest.Server {
	t.Helper()
	s, err := New(db, Options{Archive: filepath.Dir(db.Name()), Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func getPage(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); csp != contentSecurity {
		t.Errorf("%s: Content-Security-Policy %q, want the dashboard's", url, csp)
	}
	return resp.StatusCode, string(body)
}

// tableOf is the HTML of the table with id in page.
func tableOf(page, id string) string {
	start := strings.Index(page, `<table id="`+id+`"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(page[start:], "</table>")
	return page[start : start+end]
}

// countOf reads a count as the page prints it: "&#43;4,000" (+4,000).
func countOf(t *testing.T, text string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(strings.NewReplacer(",", "", "&#43;", "", "+", "").Replace(text), 10, 64)
	if err != nil {
		t.Fatalf("%q: not a count", text)
	}
	return v
}

var deltaCell = regexp.MustCompile(`class="num delta">([^<]*)<`)

// The attribution of a loop added to findLoops, with the checkout: the
// functions table puts findLoops first with its +4,000; the parts, from
// the library, add up to the figure's change, 4,000 of it in the lines
// the change added; the lines table and the source mark the added lines
// (a class and a text for screen readers), with both sides' counts of a
// moved line; every hostile name is escaped; the page runs no inline
// script or style.
func TestAttributionPage(t *testing.T) {
	db, repo, a, b, _ := attributionFixture(t)
	srv := serveAttribution(t, db, repo)
	status, page := getPage(t, srv.URL+attributionLink(b, a, "own_instructions"))
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, page)
	}
	functions := tableOf(page, "functions")
	first := strings.Index(functions, "<tbody>")
	if first < 0 || !strings.Contains(functions[first:strings.Index(functions[first:], "</tr>")+first], "<code>main.findLoops</code> <span class=\"note\">edited by the change</span>") {
		t.Errorf("the functions table does not start with main.findLoops, edited:\n%s", functions)
	}
	if got := deltaCell.FindStringSubmatch(functions[first:]); got == nil || got[1] != "&#43;4,000" {
		t.Errorf("findLoops moved by %v, want +4,000", got)
	}
	// The parts add up to the figure's change (+4,002: the loop, and the
	// hostile function's +2; the runtime's +20 is left out of a Go
	// program's own instructions).
	if !strings.Contains(page, "<strong>&#43;4,002</strong> own_instructions: 4,077 → 8,079") {
		t.Errorf("the page does not give the figure's change +4,002 (4,077 → 8,079):\n%s", page)
	}
	var sum int64
	parts := deltaCell.FindAllStringSubmatch(tableOf(page, "parts"), -1)
	for _, p := range parts {
		sum += countOf(t, p[1])
	}
	if len(parts) != 4 || sum != 4002 || parts[0][1] != "&#43;4,000" {
		t.Errorf("the parts %v add up to %d, want 4 parts adding up to +4,002, +4,000 in the changed lines", parts, sum)
	}
	if strings.Contains(page, `id="outside"`) {
		t.Error("the change's own lines moved it, yet the page calls it outside the change")
	}
	lines := tableOf(page, "lines")
	if !regexp.MustCompile(`<tr class="changed"><td class="name"><code>go/havlak6/havlak.go:9</code><span class="visually-hidden"> \(a line of the change\)</span>`).MatchString(lines) {
		t.Errorf("the lines table does not mark havlak.go:9 as the change's:\n%s", lines)
	}
	// The source at B: line 9, added, marked; line 11, the base's 8, with
	// both sides' counts (10 → 10) and not marked.
	added := regexp.MustCompile(`<tr class="added top"><td class="num"></td><td class="num">9</td><td class="num"></td><td class="num">3,000</td>` +
		`<td class="mark"><span aria-hidden="true">\+</span><span class="visually-hidden">added or edited by the change</span></td>` +
		`<td class="text"><code>\t\tx \^= i</code></td></tr>`)
	if !added.MatchString(page) {
		t.Errorf("the source does not mark line 9 (x ^= i) as added:\n%s", page)
	}
	if !strings.Contains(page, `<tr class=""><td class="num">8</td><td class="num">11</td><td class="num">10</td><td class="num">10</td><td class="mark"></td><td class="text"><code>	return x</code></td></tr>`) {
		t.Errorf("the source does not pair line 11 with the base's 8, 10 → 10:\n%s", page)
	}
	// The base's line 4, which the change edited: removed, with its count.
	if !strings.Contains(page, `<tr class="removed"><td class="num">4</td><td class="num"></td><td class="num">10</td><td class="num"></td>`+
		`<td class="mark"><span aria-hidden="true">−</span><span class="visually-hidden">removed by the change</span></td><td class="text"><code>	x := 0</code></td></tr>`) {
		t.Errorf("the source does not show the base's line 4 as removed:\n%s", page)
	}
	if strings.Contains(page, "<img") || !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("a hostile name reaches the page unescaped, or not at all")
	}
	if strings.Contains(page, "<script") || strings.Contains(page, " style=") || strings.Contains(page, "<style") {
		t.Error("the page has an inline script or style")
	}
	if strings.Contains(page, `id="no-source"`) {
		t.Errorf("with the checkout, the page says the source is not shown")
	}
}

// Without --repo the page lists functions and lines by file:line, marks
// no line and says the source needs the checkout.
func TestAttributionWithoutRepo(t *testing.T) {
	db, _, a, b, _ := attributionFixture(t)
	srv := serveAttribution(t, db, "")
	status, page := getPage(t, srv.URL+attributionLink(b, a, ""))
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, page)
	}
	for _, want := range []string{`id="no-source"`, "start the dashboard with --repo DIR", "<code>main.findLoops</code>",
		"<code>go/havlak6/havlak.go:9</code>", "own_instructions"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page without --repo lacks %q:\n%s", want, page)
		}
	}
	for _, absent := range []string{`class="source-lines"`, `class="changed"`, `id="parts"`, "edited by the change"} {
		if strings.Contains(page, absent) {
			t.Errorf("the page without --repo has %q", absent)
		}
	}
}

// What the page refuses, and how: unknown results and results without
// line counts (naming the side), a figure Cachegrind does not count
// (naming those it does), two benchmarks.
func TestAttributionRefused(t *testing.T) {
	db, repo, a, b, none := attributionFixture(t)
	srv := serveAttribution(t, db, repo)
	unknown := strings.Repeat("0", 64)
	for _, c := range []struct {
		path   string
		status int
		want   []string
	}{
		{attributionLink(b, unknown, ""), http.StatusNotFound, []string{"the history has no result " + unknown}},
		{"/results/" + b + "/attribution/..%2f..%2fetc", http.StatusNotFound, []string{"a sha256 in hex"}},
		{attributionLink(none, a, ""), http.StatusNotFound, []string{"B, havlak6&#39;s result " + none + ", keeps no line counts"}},
		{attributionLink(b, none, ""), http.StatusNotFound, []string{"A (the base), havlak6&#39;s result " + none + ", keeps no line counts"}},
		{attributionLink(b, a, "real_seconds"), http.StatusBadRequest, []string{"&#34;real_seconds&#34; is not a figure of Cachegrind&#39;s", "attribute own_instructions", "Ir"}},
		{attributionLink(b, a, "d1_misses"), http.StatusBadRequest, []string{"d1_misses needs the cache simulation&#39;s events"}},
		{attributionLink(b, a, hostile), http.StatusBadRequest, []string{"&lt;img src=x onerror=alert(1)&gt;"}},
	} {
		status, page := getPage(t, srv.URL+c.path)
		if status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.path, status, c.status, page)
		}
		for _, want := range c.want {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page does not say %q:\n%s", c.path, want, page)
			}
		}
		if strings.Contains(page, "<img") {
			t.Errorf("%s: a hostile name unescaped", c.path)
		}
	}
}

// A move with nothing in the change's code is labelled as the perf
// check's comment labels it (the library's Outside), with the functions
// that moved.
func TestAttributionOutside(t *testing.T) {
	a := &attribution.Attribution{Weight: "i1_misses", Base: 100, Change: 152}
	a.Parts[attribution.OtherOwnCode] = attribution.Sums{Base: 90, Change: 150}
	a.Parts[attribution.Toolchain] = attribution.Sums{Base: 10, Change: 2}
	a.Functions = []attribution.FunctionDelta{{Function: "f", Sums: a.Parts[attribution.OtherOwnCode]},
		{Function: "memcpy", Sums: a.Parts[attribution.Toolchain]}}
	p := attributionPage{Benchmark: "havlak6cc", Figure: "i1_misses"}
	p.fill(a, true)
	s, err := New(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	s.render(w, http.StatusOK, "attribution", p)
	page := w.Body.String()
	if !p.Outside || !strings.Contains(page, `<strong id="outside" class="outside">outside the change: layout or code generation</strong>.`) ||
		!strings.Contains(page, "<code>f</code>") {
		t.Errorf("a move outside the change's code is not labelled so:\n%s", page)
	}
	p = attributionPage{Benchmark: "havlak6cc", Figure: "i1_misses"}
	p.fill(a, false)
	if p.Outside || len(p.Parts) != 0 {
		t.Errorf("without the diff the page splits the change (%v) or calls it outside", p.Parts)
	}
}

// Only the program's own, clean, relative paths are asked of git, at a
// commit of 40 or 64 hex digits.
func TestSourcePath(t *testing.T) {
	for file, want := range map[string]bool{
		"go/havlak6/havlak.go": true, hostileFile: true, "../etc/passwd": false, "/etc/passwd": false, "go/../../x": false,
		"goroot:runtime/proc.go": false, "toolchain:???": false, "a/./b": false, "": false, ".": false, "a:b": false, "a\\b": false,
	} {
		if got := sourcePath(file); got != want {
			t.Errorf("sourcePath(%q) = %v, want %v", file, got, want)
		}
	}
	for commit, want := range map[string]bool{strings.Repeat("ab", 20): true, strings.Repeat("ab", 32): true,
		"--output=/tmp/x": false, "HEAD": false, strings.Repeat("AB", 20): false, strings.Repeat("ab", 20) + ":x": false} {
		if got := fullCommit.MatchString(commit); got != want {
			t.Errorf("fullCommit(%q) = %v, want %v", commit, got, want)
		}
	}
	if got := attributionLink("b", "a", "own_instructions"); got != "/results/b/attribution/a?figure=own_instructions" {
		t.Errorf("attributionLink = %q", got)
	}
}

// The compare page links each counted figure of two results that kept
// line counts to its attribution, and no figure of a result that kept
// none.
func TestCompareLinksTheAttribution(t *testing.T) {
	db, repo, a, b, none := attributionFixture(t)
	srv := serveAttribution(t, db, repo)
	_, page := getPage(t, srv.URL+"/compare?a="+nightTime(0).Format("2006-01-02")+"&b="+nightTime(1).Format("2006-01-02"))
	want := `<a class="attribution" href="` + strings.ReplaceAll(attributionLink(b, a, "own_instructions"), "&", "&amp;") + `">`
	if !strings.Contains(page, want) {
		t.Errorf("the compare page does not link own_instructions' attribution (%s):\n%s", want, page)
	}
	_, page = getPage(t, srv.URL+"/compare?a="+nightTime(1).Format("2006-01-02")+"&b="+nightTime(2).Format("2006-01-02"))
	if strings.Contains(page, `class="attribution"`) || strings.Contains(page, none) && strings.Contains(page, "/attribution/") {
		t.Errorf("a result without line counts is linked to an attribution:\n%s", page)
	}
}

// Attributions are bounded: with every slot taken, another is refused
// (503, saying when to ask again) rather than queued, while one made
// before is answered from the finished ones kept, even after its results
// are gone from the archive; one not kept is made again.
func TestAttributionBoundedAndKept(t *testing.T) {
	db, repo, a, b, _ := attributionFixture(t)
	srv := serveAttribution(t, db, repo)
	s := srv.Config.Handler.(*Server)
	made := srv.URL + attributionLink(b, a, "own_instructions")
	other := srv.URL + attributionLink(b, a, "instructions")
	status, first := getPage(t, made)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, first)
	}

	for range maxAttributingAtOnce {
		s.attributing <- struct{}{}
	}
	if status, page := getPage(t, made); status != http.StatusOK || page != first {
		t.Errorf("every slot taken, the attribution made before: %d; want it kept, the same page", status)
	}
	resp, err := http.Get(other)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != strconv.Itoa(attributionRetryAfter) ||
		!strings.Contains(string(body), "ask again in 5 seconds") {
		t.Errorf("every slot taken, another attribution: %s, Retry-After %q; want 503 saying when to ask again",
			resp.Status, resp.Header.Get("Retry-After"))
	}
	for range maxAttributingAtOnce {
		<-s.attributing
	}

	if err := os.RemoveAll(filepath.Join(filepath.Dir(db.Name()), history.NightsDir)); err != nil {
		t.Fatal(err)
	}
	if status, page := getPage(t, made); status != http.StatusOK || page != first {
		t.Errorf("its results gone from the archive, the attribution made before: %d; want it kept", status)
	}
	if status, _ := getPage(t, other); status != http.StatusNotFound {
		t.Errorf("its results gone from the archive, an attribution not made before: %d, want 404", status)
	}
}

// A go_test's figure of one benchmark function is offered for attribution
// when its result keeps that function's own line counts, never on the
// strength of the run's, which add up every function's.
func TestAttributablePerOperation(t *testing.T) {
	spin := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	stir := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Stir")
	r := &result.Result{LineCounts: linecounts.FileName, FigureLineCounts: map[string]string{spin: linecounts.FigureFileName(spin)},
		Metrics: []result.Metric{{Name: spin}, {Name: stir}}}
	if got := attributable(r, false); !slices.Equal(got, []string{spin}) {
		t.Errorf("attributable = %q, want %q alone", got, spin)
	}
	r.FigureLineCounts = nil // a result from before them
	if got := attributable(r, false); len(got) != 0 {
		t.Errorf("attributable of an older result = %q, want none", got)
	}
}
