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

// A Node is the state of a DFS-numbered block in a pass of the LoopFinder,
// its fields stored together because they are used together (an array of
// structs).
struct Node {
  std::int32_t block;   // the block numbered so
  std::int32_t last;    // highest number in the subtree; -1 while on the stack
  std::int32_t parent;  // in the union-find that collapses loop bodies
  std::int32_t loop;  // the innermost loop holding it (the one it heads if
                      // is_header), or kNoLoop
  bool is_header;     // it has a back edge
  bool in_pool;       // it is in the current loop body
};

// An Lsg is a loop structure graph: the loops of a CFG, nested in a tree
// under an artificial root. It is a few parallel vectors indexed by loop
// number, loops numbered in the order they are found (inner before outer),
// rather than a graph of loop objects: one pass fills it with a few appends
// and no allocation, and the next reuses its memory. A loop's blocks are not
// listed either: each node of the pass records the innermost loop holding
// it as it joins a body, in memory the pass touches anyway, and Describe
// lists the blocks from there when -dump asks, once.
class Lsg {
 public:
  // Reset empties the graph, keeping its memory.
  void Reset();

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
  // set_nodes gives the nodes of the pass that found the loops, which
  // Describe reads; they must stay valid until then.
  void set_nodes(const Node* nodes, std::int32_t count) {
    nodes_ = nodes;
    num_nodes_ = count;
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
  const Node* nodes_ = nullptr;
  std::int32_t num_nodes_ = 0;
};

}  // namespace havlak7cc

#endif  // CC_HAVLAK7CC_LSG_H_
