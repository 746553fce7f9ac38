// Package nightdir declares what the nightly job writes into a night's
// directory beside the tests' results (tools/ci/nightly.sh,
// tools/nightly): the job owns these names; a night's readers
// (result.OpenNight) are given them as its Layout, and no test may be
// named like one.
package nightdir

import (
	"havlak-lab/tools/nightly/runrecord"
	"havlak-lab/tools/result"
)

const (
	// Events is the build event file the job's bazel test writes.
	Events = "bazel-events.json"
	// Report is the report's directory (tools/report).
	Report = "report"
	// Exports is the exports' directory (tools/exports).
	Exports = "exports"
	// Benchgate holds the comparison of the Go benchmarks' lines.
	Benchgate = "benchgate"
	// Trends is the history's series for the report's charts.
	Trends = "trends.json"
	// Run is the gate's record of the run (tools/nightly/runrecord), in
	// the night's artifacts and in its directory of the history's archive
	// (history.NightsDir/NIGHT/run.json), where a night that archived
	// nothing has it alone.
	Run = runrecord.FileName
)

// Layout is the job's own names, each to whether it is a directory: a new
// map each call, so no reader can change another's.
func Layout() result.NightLayout {
	return result.NightLayout{Events: false, Report: true, Exports: true, Benchgate: true, Trends: false, Run: false}
}

// ArchiveLayout is the job's own names in a night's directory of the
// history's archive (history.NightsDir/NIGHT) beside its results: the
// report and the run's record, the only files the job copies there but
// results. A new map each call.
func ArchiveLayout() result.NightLayout {
	return result.NightLayout{Report: true, Run: false}
}
