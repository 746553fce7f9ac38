// The driver that runs a stage through the benchmark and prints its report.

#ifndef CC_LAB_DRIVER_H_
#define CC_LAB_DRIVER_H_

#include <cstdio>

#include "cc/lab/dump.h"
#include "cc/lab/lab.h"
#include "cc/lab/options.h"
#include "cc/lab/workload.h"

namespace lab {

// A LoopFinder is one stage's loop recognition, bound to the CFG it builds.
class LoopFinder : public Graph {
 public:
  // FindLoops runs loop recognition over the CFG built so far, into a new
  // loop structure graph, and sets *loops to the number of loops it found,
  // not counting the artificial root. Its only error is TooIrreducible().
  virtual Status FindLoops(int* loops) = 0;
  // Structure describes the loop structure graph of the last FindLoops.
  virtual Structure Describe() const = 0;
};

// Run drives a stage through the benchmark and writes its report to out: the
// warm-up passes over the simple CFG, the main CFG (generated, or read from
// -cfg), one pass with its loop count (and its dump with -dump), then
// -iterations more passes. It flushes out after every write, so that the
// progress dots show as the passes end; a failed write ends the run with its
// error. options must have passed Validate.
Status Run(std::FILE* out, const Options& options, LoopFinder& finder);

}  // namespace lab

#endif  // CC_LAB_DRIVER_H_
