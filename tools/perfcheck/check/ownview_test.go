package check

import (
	"fmt"
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// ownSummary is a summary as the base's check reads the change's own
// check's: marshalled by one, parsed by the other.
func ownSummary(t *testing.T, benchmarks ...summary.Benchmark) *summary.Summary {
	t.Helper()
	data, err := summary.Marshal(&summary.Summary{Tool: "perfcheck", Baseline: "abc", Benchmarks: benchmarks})
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loose is havlak6cc's instructions as a change's runner would declare
// them with a threshold of 100%: what a change that sets the policy's
// floors to 100% measures with its own tools.
func loose(values ...float64) *result.Result {
	r := counted("havlak6cc", values...)
	r.Metrics[0].Threshold = 1
	return r
}

// commentOf is the comment of a check of havlak6cc, 5% more instructions
// (regressed by the base's tools), by a change that edits the gate, with
// own as what its own tools said.
func commentOf(t *testing.T, own *OwnView) string {
	t.Helper()
	s := &summary.Summary{Tool: "perfcheck", Baseline: strings.Repeat("ab", 20), Benchmarks: []summary.Benchmark{
		compareOne(t, counted("havlak6cc", 1e9, 1e9), counted("havlak6cc", 1.05e9, 1.05e9), nil)}}
	plan := Plan{Changed: []Target{{Benchmark: "havlak6cc"}}, GateEdits: []string{"tools/verdict/calibrate.go"}, OwnView: own}
	var b strings.Builder
	WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
	return b.String()
}

// What the change's own tools would say is shown right under the gate
// edits, deciding nothing: the base's verdict heads the comment whatever
// they say, and the figures they judge otherwise are listed.
func TestCommentOwnView(t *testing.T) {
	gate := "**This change edits the gate** (tools/verdict/calibrate.go): it was measured and judged by the base's tools, as every change is; its own copies decided nothing.\n\n"

	// They disagree: the change's tools, with floors of 100%, pass what
	// the base's find regressed.
	passed := ownSummary(t, compareOne(t, loose(1e9, 1e9), loose(1.05e9, 1.05e9), nil))
	text := commentOf(t, &OwnView{Summary: passed})
	want := gate + "Its own tools would say: no regression — deciding nothing.\n\n" +
		"Where they disagree with the base's tools:\n\n" +
		"- havlak6cc instructions: the base's tools: REGRESSED +5.00%; its own: unchanged +5.00%\n\n" +
		"Against the base `abababababab`"
	if !strings.HasPrefix(text, "### :x: Perf check: 1 of 1 measured benchmarks regressed") || !strings.Contains(text, want) {
		t.Errorf("the change's tools pass it:\n%s\nwant\n%s", text, want)
	}

	// They agree: the same regression, no list.
	regressed := ownSummary(t, compareOne(t, counted("havlak6cc", 0.9e9, 0.9e9), counted("havlak6cc", 0.945e9, 0.945e9), nil))
	text = commentOf(t, &OwnView{Summary: regressed})
	want = gate + "Its own tools would say: 1 regressed (havlak6cc instructions +5.00%) — deciding nothing.\n\nAgainst the base"
	if !strings.Contains(text, want) || strings.Contains(text, "disagree") {
		t.Errorf("the change's tools agree:\n%s\nwant\n%s", text, want)
	}

	// Their check failed: why, in one line.
	text = commentOf(t, &OwnView{Reason: "building the change's perf check: exit status 1"})
	want = gate + "Its own tools would say: nothing, their check failed (building the change's perf check: exit status 1) — deciding nothing.\n\nAgainst the base"
	if !strings.HasPrefix(text, "### :x: Perf check: 1 of 1") || !strings.Contains(text, want) {
		t.Errorf("the change's tools failed:\n%s\nwant\n%s", text, want)
	}

	// Not asked (no gate edit): not a word of them.
	if text = commentOf(t, nil); strings.Contains(text, "Its own tools") {
		t.Errorf("no own view:\n%s", text)
	}
}

// The change's summary is untrusted: its names are escaped and clipped,
// its lists bounded, and the comment stays under GitHub's limit.
func TestCommentOwnViewUntrusted(t *testing.T) {
	hostile := "<img src=x onerror=alert(1)>|**bold**" + strings.Repeat("x", 100_000)
	var benchmarks []summary.Benchmark
	for i := range 50 {
		b := compareOne(t, counted("havlak6cc", 1e9), counted("havlak6cc", 2e9), nil)
		b.Name = fmt.Sprintf("%02d", i) + hostile
		b.Figures[0].Figure = hostile
		benchmarks = append(benchmarks, b)
	}
	own := ownSummary(t, benchmarks...)
	text := commentOf(t, &OwnView{Summary: own})
	// Escaped, every < and | shows as itself; clipped, no name is longer
	// than ownViewText.
	raw := func(text string) bool {
		return strings.Contains(strings.ReplaceAll(text, `\<`, ""), "<img") || strings.Contains(text, "|**bold") ||
			strings.Contains(text, strings.Repeat("x", ownViewText))
	}
	if raw(text) {
		t.Errorf("a hostile name shown as it is:\n%.2000s", text)
	}
	// 50 failing figures, 8 named; 51 disagreements (50 figures the base
	// did not judge, its own havlak6cc the change's tools did not), 8
	// listed.
	if !strings.Contains(text, "Its own tools would say: 50 regressed (00\\<img src=x onerror=alert(1)\\>\\|\\*\\*bold\\*\\*xxx") ||
		!strings.Contains(text, "+100.00%, and 42 more) — deciding nothing.") || !strings.Contains(text, "\n- … and 43 more\n") ||
		!strings.Contains(text, "- havlak6cc instructions: the base's tools: REGRESSED +5.00%; its own: not judged\n") {
		t.Errorf("the hostile own view:\n%s", text)
	}
	if n := len([]rune(text)); n > CommentLimit {
		t.Errorf("a comment of %d characters", n)
	}
	text = commentOf(t, &OwnView{Reason: hostile})
	if raw(text) || !strings.Contains(text, "x…) — deciding nothing.") {
		t.Errorf("a hostile reason:\n%.2000s", text)
	}
}
