package main

import (
	"testing"

	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perfcheck/check"
)

// The shares TestChecks reads are those the comment's attribution says
// (check.Attributed.Markdown), read as they are written.
func TestAttributedShares(t *testing.T) {
	a := &attribution.Attribution{Weight: "own_instructions", Base: 100, Change: 1100}
	a.Parts[attribution.ChangedLines] = attribution.Sums{Change: 850}
	a.Parts[attribution.EditedFunctions] = attribution.Sums{Base: 50, Change: 200}
	a.Parts[attribution.Toolchain] = attribution.Sums{Base: 50, Change: 50}
	a.Lines = []attribution.LineDelta{{File: "go/havlak6/main.go", Line: 30, Part: attribution.ChangedLines, Sums: a.Parts[0]},
		{File: "go/havlak6/other.go", Line: 3, Part: attribution.ChangedLines, Sums: attribution.Sums{Change: 1}}}
	text := "prose\n" + check.Attributed{Benchmark: "havlak6", Figure: "own_instructions", Attribution: a}.Markdown()
	if lines, function := attributedShares(text, "havlak6", "own_instructions", "go/havlak6/main.go"); lines != 85 || function != 15 {
		t.Errorf("%d%% and %d%% of\n%s\nwant 85%% and 15%%", lines, function, text)
	}
	if lines, _ := attributedShares(text, "havlak6cc", "instructions", "cc/havlak6cc/finder.cc"); lines != -1 {
		t.Errorf("another benchmark's: %d%%", lines)
	}
}
