// The loop finder of stage 7 in C++, after go/havlak7/havlak.go.

#ifndef CC_HAVLAK7CC_HAVLAK_H_
#define CC_HAVLAK7CC_HAVLAK_H_

#include <cstdint>
#include <vector>

#include "cc/havlak7cc/cfg.h"
#include "cc/havlak7cc/lsg.h"
#include "cc/lab/dump.h"
#include "cc/lab/lab.h"

namespace havlak7cc {

// A LoopFinder finds loops with Havlak's algorithm ("Nesting of reducible
// and irreducible loops", TOPLAS 1997). It owns its working memory, which
// each pass reuses from the one before; separate LoopFinders share nothing.
// Blocks and nodes are int32 indexes into flat vectors, never pointers.
class LoopFinder {
 public:
  // FindLoops finds the loops of cfg and puts them into lsg. It fails only
  // with lab::TooIrreducible().
  lab::Status FindLoops(Cfg& cfg, Lsg* lsg);

 private:
  struct DfsFrame {
    std::int32_t node;       // DFS number
    std::int32_t edge, end;  // the successor edges still to follow
  };

  std::int32_t Dfs(const Cfg& cfg);
  std::int32_t Find(std::int32_t x);
  lab::Kind CollectBody(const Cfg& cfg, std::int32_t w);
  void Move(const Cfg& cfg, std::int32_t w, std::int32_t v);
  void StampPredecessors(const Cfg& cfg, std::int32_t w);

  std::vector<std::int32_t> number_;  // by block: DFS number, or kUnvisited
  std::vector<Node> nodes_;           // by DFS number
  std::vector<std::int32_t> pool_;    // the current loop body and work list
  std::vector<DfsFrame> stack_;

  // Edges moved to a header by irreducible loops: per node a linked list
  // through an arena, rare enough not to need better. seen_ marks, with the
  // current header's stamp, the predecessors it already has, so that an
  // edge moves once; stamped_ tells whether it has a stamp yet.
  std::vector<std::int32_t> moved_head_;  // by DFS number: first, or -1
  std::vector<std::int32_t> moved_next_;
  std::vector<std::int32_t> moved_;
  std::int64_t moved_edges_ = 0;  // in this pass
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_ = 0;
  bool stamped_ = false;
};

}  // namespace havlak7cc

#endif  // CC_HAVLAK7CC_HAVLAK_H_
