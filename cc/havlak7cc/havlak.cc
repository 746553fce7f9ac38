#include "cc/havlak7cc/havlak.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cc/lab/options.h"

namespace havlak7cc {
namespace {

// kUnvisited is the DFS number of blocks the search has not reached.
constexpr std::int32_t kUnvisited = -1;

}  // namespace

std::int32_t LoopFinder::Dfs(const Cfg& cfg) {
  // Numbers the blocks reachable from the entry in preorder, following
  // successors in the order their edges were added, records each subtree's
  // highest number in last, and sets every node up. It is the recursive DFS
  // of the other stages with an explicit stack, which deep CFGs cannot
  // overflow. An edge to a node still on the stack (last is kUnvisited), an
  // ancestor, is a back edge: its target is a loop header.
  std::fill(number_.begin(), number_.end(), kUnvisited);
  number_[0] = 0;
  nodes_[0] = Node{0, kUnvisited, 0, kNoLoop, false, false};
  stack_[0] = DfsFrame{0, cfg.succ_begin(0), cfg.succ_end(0)};
  std::int32_t next = 1;
  for (int sp = 0; sp >= 0;) {
    DfsFrame& top = stack_[sp];
    std::int32_t e = top.edge;
    for (; e < top.end; ++e) {
      const std::int32_t t = number_[cfg.succ(e)];
      if (t == kUnvisited) break;
      if (nodes_[t].last == kUnvisited) nodes_[t].is_header = true;
    }
    if (e == top.end) {
      nodes_[top.node].last = next - 1;
      --sp;
      continue;
    }
    top.edge = e + 1;
    const std::int32_t b = cfg.succ(e);
    number_[b] = next;
    nodes_[next] = Node{b, kUnvisited, next, kNoLoop, false, false};
    stack_[++sp] = DfsFrame{next, cfg.succ_begin(b), cfg.succ_end(b)};
    ++next;
  }
  return next;
}

std::int32_t LoopFinder::Find(std::int32_t x) {
  std::int32_t root = x;
  while (nodes_[root].parent != root) root = nodes_[root].parent;
  while (nodes_[x].parent != root) {
    const std::int32_t next = nodes_[x].parent;
    nodes_[x].parent = root;
    x = next;
  }
  return root;
}

lab::Status LoopFinder::FindLoops(Cfg& cfg, Lsg* lsg) {
  const int n = cfg.num_blocks();
  lsg->Reset();
  if (n == 0) return lab::Status::Ok();
  cfg.Build();
  number_.resize(n);
  nodes_.resize(n);
  stack_.resize(n);
  moved_head_.resize(n);
  if (seen_.size() < static_cast<std::size_t>(n)) {
    seen_.assign(n, 0);
    stamp_ = 0;
  }

  // Steps a and b: number the blocks reachable from the entry in DFS
  // preorder, and find the nodes with a back edge. Edges from blocks the
  // search never reached do not count, there or below.
  const std::int32_t reached = Dfs(cfg);
  std::fill(moved_head_.begin(), moved_head_.begin() + reached, -1);
  moved_next_.clear();
  moved_.clear();
  moved_edges_ = 0;

  // Steps c-f: visit the headers from the last in preorder back to the
  // entry, so inner loops are found before the loops around them.
  for (std::int32_t w = reached - 1; w >= 0; --w) {
    if (!nodes_[w].is_header) continue;
    const lab::Kind kind = CollectBody(cfg, w);
    if (moved_edges_ > lab::kMaxMovedEdges) return lab::TooIrreducible();

    // Step f: make the loop and collapse its body onto w.
    const std::int32_t loop = lsg->NewLoop(nodes_[w].block, kind);
    nodes_[w].loop = loop;
    std::int32_t nesting = 0;
    for (const std::int32_t x : pool_) {
      Node& node = nodes_[x];
      node.parent = w;
      node.in_pool = false;
      if (node.is_header) {
        lsg->set_parent(node.loop, loop);
        nesting = std::max(nesting, lsg->nesting(node.loop) + 1);
      } else {
        node.loop = loop;
      }
    }
    lsg->set_nesting(loop, nesting);
  }
  lsg->CalculateDepth();
  lsg->set_nodes(nodes_.data(), reached);
  return lab::Status::Ok();
}

lab::Kind LoopFinder::CollectBody(const Cfg& cfg, std::int32_t w) {
  // Gathers into pool_ the body of the loop headed by w: the nodes that
  // reach a back edge's source without passing through w, each loop already
  // found counting as its header's set. A predecessor of w is a back edge
  // exactly when it is numbered within w's subtree, so the predecessors are
  // classified here, where they are needed, instead of stored in lists.
  pool_.clear();
  const std::int32_t last_w = nodes_[w].last;

  // Step d: the sources of the back edges seed the body. A header whose
  // only back edge comes from itself is a self loop.
  for (const std::int32_t p : cfg.Predecessors(nodes_[w].block)) {
    std::int32_t v = number_[p];
    if (v <= w || v > last_w) continue;  // not a back edge, or a self edge
    v = Find(v);
    if (!nodes_[v].in_pool) {
      nodes_[v].in_pool = true;
      pool_.push_back(v);
    }
  }
  lab::Kind kind = pool_.empty() ? lab::Kind::kSelf : lab::Kind::kReducible;

  // Step e: grow the body backwards along the other edges of its nodes, and
  // the edges moved to them; the pool is its own work list. A predecessor
  // outside w's DFS subtree enters the loop elsewhere than its header: the
  // loop is irreducible, and the edge moves to w.
  stamped_ = false;
  const auto absorb = [&](std::int32_t v) {
    v = Find(v);
    if (v < w || v > last_w) {
      kind = lab::Kind::kIrreducible;
      Move(cfg, w, v);
    } else if (v != w && !nodes_[v].in_pool) {
      nodes_[v].in_pool = true;
      pool_.push_back(v);
    }
  };
  for (std::size_t i = 0; i < pool_.size(); ++i) {
    const std::int32_t x = pool_[i];
    const std::int32_t last_x = nodes_[x].last;
    for (const std::int32_t p : cfg.Predecessors(nodes_[x].block)) {
      const std::int32_t v = number_[p];
      if (v == kUnvisited || (v >= x && v <= last_x)) continue;
      absorb(v);
    }
    for (std::int32_t m = moved_head_[x]; m >= 0; m = moved_next_[m]) {
      absorb(moved_[m]);
    }
  }
  return kind;
}

void LoopFinder::Move(const Cfg& cfg, std::int32_t w, std::int32_t v) {
  // Adds the edge from node v to w's moved edges, unless w has one from v
  // already.
  if (!stamped_) {
    StampPredecessors(cfg, w);
    stamped_ = true;
  }
  if (seen_[v] == stamp_) return;
  seen_[v] = stamp_;
  moved_next_.push_back(moved_head_[w]);
  moved_.push_back(v);
  moved_head_[w] = static_cast<std::int32_t>(moved_.size() - 1);
  ++moved_edges_;
}

void LoopFinder::StampPredecessors(const Cfg& cfg, std::int32_t w) {
  // Marks with a new stamp the non-back-edge predecessors w has, original
  // and moved.
  if (++stamp_ == 0) {  // wrapped around: forget every old stamp
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  const std::int32_t last_w = nodes_[w].last;
  for (const std::int32_t p : cfg.Predecessors(nodes_[w].block)) {
    const std::int32_t v = number_[p];
    if (v != kUnvisited && (v < w || v > last_w)) seen_[v] = stamp_;
  }
  for (std::int32_t m = moved_head_[w]; m >= 0; m = moved_next_[m]) {
    seen_[moved_[m]] = stamp_;
  }
}

}  // namespace havlak7cc
