// The loop structure graph of stage 7 in C++: parallel vectors indexed by
// loop number, after go/havlak7/lsg.go.

#ifndef CC_HAVLAK7CC_LSG_H_
#define CC_HAVLAK7CC_LSG_H_

#include <cstdint>
#include <vector>

#include "cc/lab/dump.h"

namespace havlak7cc {

// kNoLoop marks "no loop": a block in none, a loop directly under the root.
inline constexpr std::int32_t kNoLoop = -1;

// An Lsg is a loop structure graph: the loops of a CFG, nested in a tree
// under an artificial root. It is a few parallel vectors indexed by loop
// number, loops numbered in the order they are found (inner before outer),
// rather than a graph of loop objects: one pass fills it with a few appends
// and no allocation, and the next reuses its memory. A loop's blocks are not
// listed: innermost records, per block, the innermost loop holding it, which
// is all Describe needs to list them when -dump asks, once.
class Lsg {
 public:
  // Reset empties the graph for a CFG of num_blocks blocks, keeping its
  // memory.
  void Reset(int num_blocks);

  // NewLoop adds a loop headed by header and returns its number.
  std::int32_t NewLoop(std::int32_t header, lab::Kind kind) {
    header_.push_back(header);
    parent_.push_back(kNoLoop);
    kind_.push_back(kind);
    depth_.push_back(0);
    nesting_.push_back(0);
    return static_cast<std::int32_t>(header_.size() - 1);
  }

  void set_parent(std::int32_t loop, std::int32_t parent) {
    parent_[loop] = parent;
  }
  std::int32_t nesting(std::int32_t loop) const { return nesting_[loop]; }
  void set_nesting(std::int32_t loop, std::int32_t nesting) {
    nesting_[loop] = nesting;
  }
  void set_innermost(std::int32_t block, std::int32_t loop) {
    innermost_[block] = loop;
  }

  // CalculateDepth sets every loop's depth and the root's nesting level.
  void CalculateDepth();

  int NumLoops() const { return static_cast<int>(header_.size()); }
  lab::Structure Describe() const;

 private:
  std::vector<std::int32_t> header_;  // the header block of each loop
  std::vector<std::int32_t> parent_;  // each loop's enclosing loop, or kNoLoop
  std::vector<lab::Kind> kind_;
  std::vector<std::int32_t> depth_;    // 1 for the outermost loops
  std::vector<std::int32_t> nesting_;  // 0 for the innermost loops
  std::int32_t root_nesting_ = 0;
  std::vector<std::int32_t> innermost_;  // by block: innermost loop, or kNoLoop
};

}  // namespace havlak7cc

#endif  // CC_HAVLAK7CC_LSG_H_
