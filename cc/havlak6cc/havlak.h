// Stage 6's loop finder: Havlak's algorithm with working memory that the
// finder owns and reuses from one pass to the next.

#ifndef CC_HAVLAK6CC_HAVLAK_H_
#define CC_HAVLAK6CC_HAVLAK_H_

#include <cstddef>
#include <vector>

#include "cc/havlak6cc/cfg.h"
#include "cc/havlak6cc/lsg.h"
#include "cc/lab/lab.h"

namespace havlak6cc {

// A UnionFindNode is a block's entry in the union-find structure that
// collapses each loop body onto its header as loops are found.
class UnionFindNode {
 public:
  // Init makes the node a set of its own for bb, numbered dfs_number.
  void Init(BasicBlock* bb, int dfs_number) {
    parent_ = this;
    bb_ = bb;
    dfs_number_ = dfs_number;
    loop_ = nullptr;
  }

  // FindSet returns the representative of the node's set and points every
  // node on the way straight at it.
  UnionFindNode* FindSet();

  // Union merges the node's set into the set represented by b.
  void Union(UnionFindNode* b) { parent_ = b; }

  BasicBlock* bb() const { return bb_; }
  int dfs_number() const { return dfs_number_; }
  // The innermost loop headed by bb(), if any.
  SimpleLoop* loop() const { return loop_; }
  void set_loop(SimpleLoop* loop) { loop_ = loop; }

 private:
  UnionFindNode* parent_ = nullptr;
  BasicBlock* bb_ = nullptr;
  SimpleLoop* loop_ = nullptr;
  int dfs_number_ = 0;
};

// A LoopFinder finds loops with Havlak's algorithm and owns its working
// memory, which each pass reuses from the one before. Separate LoopFinders
// share nothing, so they can run at the same time.
class LoopFinder {
 public:
  // FindLoops finds the loops of cfg with Havlak's algorithm ("Nesting of
  // reducible and irreducible loops", TOPLAS 1997) and adds them to lsg. It
  // fails only with lab::TooIrreducible().
  lab::Status FindLoops(const Cfg& cfg, Lsg* lsg);

 private:
  // A block of the DFS path with the index of the next out-edge to follow.
  struct DfsFrame {
    BasicBlock* block;
    std::size_t next_edge;
  };

  // Grow makes room for CFGs of size blocks, keeping what it has.
  void Grow(std::size_t size);

  // Dfs numbers the blocks reachable from entry in preorder, from 0, and
  // records in last_ the highest number in each subtree. It returns the
  // highest number it gave.
  int Dfs(BasicBlock* entry);

  // IsAncestor reports whether the block numbered w is v or an ancestor of
  // v in the DFS tree: preorder numbers a subtree consecutively.
  bool IsAncestor(int w, int v) const { return w <= v && v <= last_[w]; }

  // Indexed by DFS number, except number_, which is by block name.
  std::vector<std::vector<int>> non_back_preds_;
  std::vector<std::vector<int>> back_preds_;
  std::vector<int> number_;
  std::vector<int> types_;
  std::vector<int> last_;
  std::vector<UnionFindNode> nodes_;
  std::vector<char> in_pool_;  // is the node in node_pool_? All 0 between
                               // passes.
  std::vector<UnionFindNode*> node_pool_;
  std::vector<DfsFrame> dfs_stack_;
};

}  // namespace havlak6cc

#endif  // CC_HAVLAK6CC_HAVLAK_H_
