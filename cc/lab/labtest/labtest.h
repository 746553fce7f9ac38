// Checks every stage's loop finder runs: the hand-made CFGs in testdata/cfgs,
// whose loop structures were worked out by hand, and the loop count of a
// reduced standard workload. Failures are GoogleTest failures of the calling
// test.

#ifndef CC_LAB_LABTEST_LABTEST_H_
#define CC_LAB_LABTEST_LABTEST_H_

#include <functional>
#include <memory>
#include <string>

#include "cc/lab/driver.h"

namespace labtest {

// A NewFinder returns a fresh loop finder of the stage under test.
using NewFinder = std::function<std::unique_ptr<lab::LoopFinder>()>;

// Path returns the path of a file or directory given relative to the
// workspace root: under Bazel from the test's runfiles, otherwise by walking
// up from the working directory to the WORKSPACE file.
std::string Path(const std::string& rel);

// HandMade runs a finder from new_finder over each hand-made CFG and
// compares its dump with the expected one, after one pass and again after a
// second pass over the same CFG, since stages reuse memory between passes.
void HandMade(const NewFinder& new_finder);

// Workload checks the loop count of a reduced standard workload, whose shape
// gives 3 loops per base loop plus 1 per outer loop, over two passes; and
// that the simple CFG before it has none.
void Workload(const NewFinder& new_finder);

// PassLoops runs one pass of finder and returns its loop count; the pass
// must succeed.
int PassLoops(lab::LoopFinder& finder);

// TooIrreducible checks that a pass over a random CFG dense enough to need
// millions of irreducible edge moves stops with lab::TooIrreducible().
void TooIrreducible(const NewFinder& new_finder);

// DeepNest checks loops nested depth deep inside each other in a chain of
// 2 * depth + 2 blocks, which a recursive search or level computation would
// overflow the call stack on.
void DeepNest(const NewFinder& new_finder, int depth);

}  // namespace labtest

#endif  // CC_LAB_LABTEST_LABTEST_H_
