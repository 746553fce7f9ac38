package check

import (
	"fmt"
	"strings"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/markdown"
	"havlak-lab/tools/detection"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// detectionRecord is the regression suite's record this build embeds.
// The perf check that writes the comment is the base's, built at the base
// (docs/perfcheck.md), so the record is the base's: a change cannot claim
// that its figures see more than the base's suite showed. Tests replace
// it.
var detectionRecord = detection.Embedded

// seesBlock is the comment's block of what the measured benchmarks'
// gated figures can see, in the order of benchmarks (worst first, as the
// comparison's table orders them: summary.Table), in at most budget
// bytes (the benchmarks cut past it are counted, as the table's rows
// are); "" when none has a gated figure or the budget holds no line. A
// record that cannot be read, or holds no run of the suite yet, is said
// once: the thresholds are shown all the same.
func seesBlock(benchmarks []summary.Benchmark, budget int) string {
	record, err := detectionRecord()
	note := ""
	switch {
	case err != nil:
		note = "The regression suite's detection record could not be read (" + markdown.Escape(err.Error()) + "): what the suite caught is not shown.\n\n"
		record = nil
	case len(record.Cases) == 0:
		note = "The regression suite's detection record holds no run yet: what the suite caught is not shown.\n\n"
		record = nil
	}
	var lines []string
	for _, b := range benchmarks {
		if line := seesLine(b, record); line != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	head := "\n<details><summary>What each gated figure can see: its threshold and where that came from, and the smallest case of the regression suite it caught"
	if record != nil {
		// "+": the suite measured a checkout with uncommitted changes.
		at := markdown.Code(gitwork.Short(strings.TrimSuffix(record.Checkout, "+")))
		if strings.HasSuffix(record.Checkout, "+") {
			at += " with uncommitted changes"
		}
		head += fmt.Sprintf(" (the base's record: the suite's run at %s, %s)", at, record.Started.Format("2006-01-02"))
	}
	head += "</summary>\n\n" + note
	const tail = "\n</details>\n"
	// A block cut to no benchmark at all would only take room.
	room := budget - len(head) - len(tail) - len(seesElsewhere) - 40
	if len(lines[0])+1 > room {
		return ""
	}
	return head + cutSaying(lines, room, seesElsewhere) + tail
}

// seesElsewhere says where the figures of the benchmarks cut from the
// block can be read.
const seesElsewhere = "summary.json has their thresholds, tools/detection/detection.json what the suite caught"

// seesLine is one benchmark's item of the block: each of its gated
// figures a sub-item, "" when it has none. Everything from a result or
// from the record is escaped.
func seesLine(b summary.Benchmark, record *detection.Record) string {
	names := map[string]int{}
	for _, v := range b.Figures {
		if v.Rule.Gated {
			names[v.Figure]++
		}
	}
	var figures []string
	for _, v := range b.Figures {
		if !v.Rule.Gated {
			continue
		}
		label := markdown.Code(v.Figure)
		if names[v.Figure] > 1 { // a Go benchmark's line: its B/op and allocs/op
			label += " (" + markdown.Escape(v.Unit) + ")"
		}
		figures = append(figures, "  - "+label+": "+seesFigure(b, v, record))
	}
	if len(figures) == 0 {
		return ""
	}
	return "- " + markdown.Escape(b.Name) + ":\n" + strings.Join(figures, "\n")
}

// seesFigure is what one gated figure can see: its threshold and where
// it came from (verdict.Calibration.Origin), and, with a record, the
// smallest case the suite caught with it (detection.Record.Sees), saying
// when that was on another benchmark than this one and so says less
// about this one: "threshold 0.25% (the floor: what 3 reruns measured is
// under it); the smallest the suite caught with it: 0.5% extra-work, on
// this benchmark".
func seesFigure(b summary.Benchmark, v verdict.Verdict, record *detection.Record) string {
	text := "threshold " + verdict.Percent(v.Rule.Threshold)
	if v.Calibration != nil {
		text += " (" + v.Calibration.Origin() + ")"
	}
	if record == nil {
		return text
	}
	s, ok := record.Sees(b.Name, b.Language, v.Figure)
	// What it missed here, when it caught nothing here: a threshold that
	// layout raised can miss on this benchmark what it catches elsewhere.
	missed := ""
	if m, found := record.Missed(b.Name, v.Figure); found && !(ok && s.Own) {
		missed = "; on this benchmark it missed " + markdown.Escape(m.Size) + " " + markdown.Escape(m.Kind)
	}
	if !ok {
		return text + missed + "; the suite caught nothing with it"
	}
	caught := markdown.Escape(s.Size) + " " + markdown.Escape(s.Kind)
	if s.Own {
		return text + "; the smallest the suite caught with it: " + caught + ", on this benchmark"
	}
	where := markdown.Escape(s.Benchmark)
	if s.Language != b.Language {
		where += " (" + markdown.Escape(s.Language) + ")"
	}
	if missed != "" {
		return text + missed + "; the smallest caught elsewhere: " + caught + ", on " + where
	}
	return text + "; on this benchmark the suite caught nothing with it; the smallest elsewhere: " + caught + ", on " + where
}
