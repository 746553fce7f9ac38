// Package nightdir declares what the nightly job writes into a night's
// directory beside the tests' results (tools/ci/nightly.sh,
// tools/nightly): the job owns these names; a night's readers
// (result.OpenNight) are given them as its Layout, and no test may be
// named like one.
package nightdir

import (
	"path"
	"path/filepath"
	"strconv"

	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
)

const (
	// Events is the build event file the job's bazel test writes.
	Events = "bazel-events.json"
	// Report is the report's directory (tools/report).
	Report = "report"
	// Stages is the directory, in the report's, of each benchmark's own
	// files (its flame graph, its profiles' graphs and diffs): Stage.
	Stages = "stages"
	// Exports is the exports' directory (tools/exports).
	Exports = "exports"
	// Benchgate held the comparison of the Go benchmarks' lines, before
	// the night wrote one summary (its report's): an older night has it.
	Benchgate = "benchgate"
	// Trends is the history's series for the report's charts.
	Trends = "trends.json"
	// Run is the gate's record of the run (tools/runrecord), in
	// the night's artifacts and in its directory of the history's archive
	// (history.NightsDir/NIGHT/run.json), where a night that archived
	// nothing has it alone.
	Run = runrecord.FileName
	// LayoutVariants holds, by benchmark, the results of the count actions
	// of its program and of the program's layout variants (the manifest's
	// counts target and LayoutVariants): LayoutVariants/<benchmark>/0.zip
	// the program's own, N.zip its variant N. A promoted night keeps them,
	// so that the baseline's layout noise calibrates the next night's
	// figures that layout moves (docs/nightly.md#layout-noise).
	LayoutVariants = "layout-variants"
)

// Stage is the directory of benchmark's files in a report's (Stages),
// relative to it and slash-separated, as the report's pages link it.
func Stage(benchmark string) string { return path.Join(Stages, benchmark) }

// LayoutCount is where, in the night dir, the count of benchmark's
// program in its layout variant goes: 0 for the program itself.
func LayoutCount(dir, benchmark string, variant int) string {
	return filepath.Join(dir, LayoutVariants, benchmark, strconv.Itoa(variant)+".zip")
}

// Layout is the job's own names, each to whether it is a directory: a new
// map each call, so no reader can change another's.
func Layout() result.NightLayout {
	return result.NightLayout{Events: false, Report: true, Exports: true, Benchgate: true, Trends: false, Run: false,
		LayoutVariants: true}
}

// ArchiveLayout is the job's own names in a night's directory of the
// history's archive (history.NightsDir/NIGHT) beside its results: the
// report, the run's record and the layout variants' counts, the only
// files the job copies there but results. A new map each call.
func ArchiveLayout() result.NightLayout {
	return result.NightLayout{Report: true, Run: false, LayoutVariants: true}
}
