// The loop structure graph of stage 1: sets wherever a collection is
// needed, and a new graph for every pass.

#ifndef CC_HAVLAK1CC_LSG_H_
#define CC_HAVLAK1CC_LSG_H_

#include <memory>
#include <set>
#include <vector>

#include "cc/havlak1cc/cfg.h"
#include "cc/lab/dump.h"

namespace havlak1cc {

// A SimpleLoop is a loop of the loop structure graph.
class SimpleLoop {
 public:
  // AddNode makes bb a block of the loop.
  void AddNode(BasicBlock* bb) { basic_blocks_.insert(bb); }

  // AddChildLoop makes child a loop nested directly in this one.
  void AddChildLoop(SimpleLoop* child) { children_.insert(child); }

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
  friend class Lsg;  // which roots and levels its loops

  std::set<BasicBlock*> basic_blocks_;  // the header and blocks in no inner
                                        // loop
  std::set<SimpleLoop*> children_;
  SimpleLoop* parent_ = nullptr;
  BasicBlock* header_ = nullptr;

  bool is_root_ = false;
  bool is_reducible_ = true;
  bool is_self_loop_ = false;
  int nesting_level_ = 0;
  int depth_level_ = 0;
};

// An Lsg is a loop structure graph: the loops of a CFG, nested in a tree
// under an artificial root loop. It owns its loops.
class Lsg {
 public:
  // A graph with only its root.
  Lsg();

  Lsg(const Lsg&) = delete;
  Lsg& operator=(const Lsg&) = delete;

  // AddLoop adds loop to the graph.
  void AddLoop(std::unique_ptr<SimpleLoop> loop) {
    loops_.push_back(std::move(loop));
  }

  // NumLoops is the number of loops, not counting the root.
  int NumLoops() const { return static_cast<int>(loops_.size()); }

  // CalculateNestingLevel hangs the outermost loops under the root, then
  // sets each loop's depth (from the root down) and nesting level (from the
  // innermost loops up).
  void CalculateNestingLevel();

  // Describe describes the graph in the form every stage dumps.
  lab::Structure Describe() const;

 private:
  std::unique_ptr<SimpleLoop> root_;
  std::vector<std::unique_ptr<SimpleLoop>> loops_;  // all loops but the root
};

}  // namespace havlak1cc

#endif  // CC_HAVLAK1CC_LSG_H_
