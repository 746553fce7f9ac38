#include "cc/lab/options.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "cc/lab/quote.h"

namespace lab {

void Options::Register(FlagSet& flags) {
  flags.Int(&dummy, "dummy", 15000,
            "loop-finding passes over a tiny CFG before the main one is built");
  flags.Int(&iterations, "iterations", 50,
            "loop-finding passes over the main CFG after the first");
  flags.Int(&trees, "trees", 10, "subtrees of the generated CFG");
  flags.Int(&loops, "loops", 100, "outer loops per subtree");
  flags.Int(&base_loops, "baseloops", 25, "three-loop nests per outer loop");
  flags.String(&cfg_file, "cfg", "",
               "read the CFG from `file` (one edge \"FROM TO\" per line, # "
               "comments, block 0 is the entry) instead of generating it");
  flags.Bool(&dump, "dump", false,
             "print the loop structure found by the first pass");
}

Status Options::Validate(const FlagSet& flags) const {
  if (!flags.args().empty()) {
    return Status::Usage("unexpected argument " + Quote(flags.args()[0]) +
                         " (all input comes through flags)");
  }
  if (!cfg_file.empty()) {
    // These shape the generated CFG, so they mean nothing with -cfg.
    static const char* const kWorkloadFlags[] = {"dummy", "trees", "loops",
                                                 "baseloops"};
    std::string clash;
    for (const std::string& name : flags.Visited()) {
      if (std::find(std::begin(kWorkloadFlags), std::end(kWorkloadFlags),
                    name) != std::end(kWorkloadFlags)) {
        if (!clash.empty()) clash += ", ";
        clash += "-" + name;
      }
    }
    if (!clash.empty()) {
      return Status::Usage(
          clash + ": not allowed with -cfg, which replaces the generated CFG");
    }
  }
  const struct {
    const char* name;
    std::int64_t value;
    std::int64_t max;
  } kRanges[] = {
      {"dummy", dummy, kMaxPasses},      {"iterations", iterations, kMaxPasses},
      {"trees", trees, kMaxBlocks},      {"loops", loops, kMaxBlocks},
      {"baseloops", base_loops, kMaxBlocks},
  };
  for (const auto& range : kRanges) {
    if (range.value < 0 || range.value > range.max) {
      return Status::Usage("-" + std::string(range.name) + "=" +
                           std::to_string(range.value) +
                           ": must be between 0 and " +
                           std::to_string(range.max));
    }
  }
  if (WorkloadBlocks(trees, loops, base_loops) > kMaxBlocks) {
    return Status::Usage("-trees=" + std::to_string(trees) +
                         " -loops=" + std::to_string(loops) +
                         " -baseloops=" + std::to_string(base_loops) +
                         ": the CFG would have more than " +
                         std::to_string(kMaxBlocks) + " blocks");
  }
  return Status::Ok();
}

std::int64_t WorkloadBlocks(std::int64_t trees, std::int64_t loops,
                            std::int64_t base_loops) {
  // Saturating arithmetic: anything past the limit is just "too many".
  static constexpr std::int64_t kTooMany = kMaxBlocks + 1;
  const auto mul = [](std::int64_t a, std::int64_t b) {
    if (a != 0 && b > kTooMany / a) return kTooMany;
    return std::min(a * b, kTooMany);
  };
  const auto add = [](std::int64_t a, std::int64_t b) {
    return std::min(a + b, kTooMany);
  };
  const std::int64_t per_loop = add(2, mul(10, base_loops));  // see BaseLoop
  const std::int64_t per_tree = add(1, mul(loops, per_loop));
  return add(3, mul(trees, per_tree));
}

Status TooIrreducible() {
  return Status::Failure(
      "loop recognition gave up: irreducible loops moved more than " +
      std::to_string(kMaxMovedEdges) +
      " edges (Havlak's algorithm grows quadratically on such CFGs)");
}

}  // namespace lab
