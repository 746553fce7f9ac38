// The flags every stage takes, and their limits.

#ifndef CC_LAB_OPTIONS_H_
#define CC_LAB_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cc/lab/flags.h"
#include "cc/lab/lab.h"

namespace lab {

// Limits that keep a typo from asking for more memory or time than any
// machine has. The standard workload is 252013 blocks and 51 passes. (The
// Go stages' recursive DFS needs about 128 bytes of stack per block of a
// chain: 4 million blocks stay within Go's 1 GB stack limit. The limits are
// the same in every stage, so that all accept the same input.)
inline constexpr int kMaxBlocks = 4'000'000;
inline constexpr int kMaxEdges = 50'000'000;
// The longest line of a -cfg file (go/internal/lab's MaxLineBytes).
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;
inline constexpr int kMaxPasses = 1'000'000;

// kMaxMovedEdges bounds the edges one pass may move to loop headers while it
// resolves irreducible loops. Havlak's algorithm moves an edge into every
// irreducible loop it enters, which on large random CFGs grows
// quadratically (a random CFG of 10000 blocks and 40000 edges needs 10
// million moves); past this bound a pass stops with TooIrreducible() rather
// than run out of memory.
inline constexpr int kMaxMovedEdges = 1'000'000;

// TooIrreducible is the error of a pass that exceeded kMaxMovedEdges.
Status TooIrreducible();

// Options are the flags every stage takes. The numbers are 64-bit, as Go's
// int is, so that a value Go parses but Validate rejects is rejected here
// with the same message.
struct Options {
  std::int64_t dummy = 0;
  std::int64_t iterations = 0;
  std::int64_t trees = 0;
  std::int64_t loops = 0;
  std::int64_t base_loops = 0;
  std::string cfg_file;
  bool dump = false;

  // Register defines the flags on flags, with the standard workload as
  // defaults.
  void Register(FlagSet& flags);

  // Validate checks the options after flags, which Register defined, parsed
  // the command line. Its errors are usage errors.
  Status Validate(const FlagSet& flags) const;
};

// WorkloadBlocks is the number of blocks BuildWorkload's CFG has, or
// kMaxBlocks + 1 when it would have more.
std::int64_t WorkloadBlocks(std::int64_t trees, std::int64_t loops,
                            std::int64_t base_loops);

}  // namespace lab

#endif  // CC_LAB_OPTIONS_H_
