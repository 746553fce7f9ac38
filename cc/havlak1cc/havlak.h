// Stage 1's loop finder: Havlak's algorithm written the straightforward
// way, with a map or a set wherever a lookup or a collection is needed and
// fresh memory for every pass.

#ifndef CC_HAVLAK1CC_HAVLAK_H_
#define CC_HAVLAK1CC_HAVLAK_H_

#include "cc/havlak1cc/cfg.h"
#include "cc/havlak1cc/lsg.h"
#include "cc/lab/lab.h"

namespace havlak1cc {

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

// FindLoops finds the loops of cfg with Havlak's algorithm ("Nesting of
// reducible and irreducible loops", TOPLAS 1997) and adds them to lsg. It
// fails only with lab::TooIrreducible().
lab::Status FindLoops(const Cfg& cfg, Lsg* lsg);

}  // namespace havlak1cc

#endif  // CC_HAVLAK1CC_HAVLAK_H_
