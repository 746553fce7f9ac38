// Package lab holds what every Go stage of the Havlak benchmark shares and
// what is not part of the optimisation story: command-line options, the
// standard workload, CFG files, the canonical loop dump, and the driver that
// runs a stage. Each stage brings only its own CFG, loop structure graph and
// loop finder.
package lab
