// The loop structure graph of stage 6, which keeps the memory of its loops
// from one pass to the next.

#ifndef CC_HAVLAK6CC_LSG_H_
#define CC_HAVLAK6CC_LSG_H_

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "cc/havlak6cc/cfg.h"
#include "cc/lab/dump.h"

namespace havlak6cc {

// A SimpleLoop is a loop of the loop structure graph.
class SimpleLoop {
 public:
  // AddNode makes bb a block of the loop.
  void AddNode(BasicBlock* bb) { basic_blocks_.push_back(bb); }

  // AddChildLoop makes child a loop nested directly in this one.
  void AddChildLoop(SimpleLoop* child) { children_.push_back(child); }

  // SetParent nests the loop directly in parent.
  void SetParent(SimpleLoop* parent) {
    parent_ = parent;
    parent->AddChildLoop(this);
  }

  // SetHeader makes bb the loop's header, which is also one of its blocks.
  void SetHeader(BasicBlock* bb) {
    AddNode(bb);
    header_ = bb;
  }

  void set_is_reducible(bool is_reducible) { is_reducible_ = is_reducible; }
  void set_is_self_loop(bool is_self_loop) { is_self_loop_ = is_self_loop; }

 private:
  friend class Lsg;  // which recycles, roots and levels its loops

  // Reset makes the loop as good as new, keeping its lists' memory.
  void Reset();

  std::vector<BasicBlock*> basic_blocks_;  // the header and blocks in no
                                           // inner loop
  std::vector<SimpleLoop*> children_;
  SimpleLoop* parent_ = nullptr;
  BasicBlock* header_ = nullptr;

  bool is_root_ = false;
  bool is_reducible_ = true;
  bool is_self_loop_ = false;
  int nesting_level_ = 0;
  int depth_level_ = 0;
};

// An Lsg is a loop structure graph: the loops of a CFG, nested in a tree
// under an artificial root loop. It owns every loop it hands out.
class Lsg {
 public:
  // A graph with only its root.
  Lsg();

  Lsg(const Lsg&) = delete;
  Lsg& operator=(const Lsg&) = delete;

  // NewLoop returns a loop that still has to be added to the graph.
  SimpleLoop* NewLoop();

  // Reset empties the graph for another pass, keeping the memory of its
  // loops for the loops of that pass.
  void Reset();

  // AddLoop adds loop, from NewLoop, to the graph.
  void AddLoop(SimpleLoop* loop) { loops_.push_back(loop); }

  // NumLoops is the number of loops, not counting the root.
  int NumLoops() const { return static_cast<int>(loops_.size()); }

  // CalculateNestingLevel hangs the outermost loops under the root, then
  // sets each loop's depth (from the root down) and nesting level (from the
  // innermost loops up).
  void CalculateNestingLevel();

  // Describe describes the graph in the form every stage dumps.
  lab::Structure Describe() const;

 private:
  std::vector<std::unique_ptr<SimpleLoop>> storage_;  // every loop made
  SimpleLoop* root_;
  std::vector<SimpleLoop*> loops_;  // all loops but the root
  std::vector<SimpleLoop*> spare_;  // loops of earlier passes, for NewLoop
  // CalculateNestingLevel's walk: each loop on the way down from the root,
  // with the index of the next child to visit.
  std::vector<std::pair<SimpleLoop*, std::size_t>> walk_;
};

}  // namespace havlak6cc

#endif  // CC_HAVLAK6CC_LSG_H_
