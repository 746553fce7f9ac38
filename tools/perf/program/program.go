// Package program is a Go program's side of the lab's contract, the one
// library of the lab a measured program links: a program that ends
// through Exit (or calls Record as it ends) gives the perf runner its
// runtime figures, the allocations the gate counts exactly among them
// (docs/measuring.md, "The program's side"). A program of another
// repository depends on @havlak_lab//tools/perf/program and imports it
// as havlak-lab/tools/perf/program: Bazel needs no module for it.
//
// Without it a program is still timed and counted under Cachegrind; its
// allocation figures are then unavailable, and the result says why.
package program

import (
	"havlak-lab/internal/cli"
	"havlak-lab/internal/runtimemetrics"
)

// Exit ends the program: it records the run's runtime figures when the
// perf runner asks for them, then prints err, if any, on the standard
// error after the program's name and exits with status 1 (or the status
// err carries, as internal/cli's ExitError and UsageError do), else 0.
func Exit(err error) { cli.Exit(err) }

// Record records the run's runtime figures when the perf runner asks for
// them (it names a file in the environment), and does nothing otherwise:
// for a program that ends otherwise than through Exit. Call it last, once
// the run's work is done.
func Record() error { return runtimemetrics.Record() }
