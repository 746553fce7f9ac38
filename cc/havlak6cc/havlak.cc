#include "cc/havlak6cc/havlak.h"

#include <cstddef>
#include <vector>

#include "cc/lab/options.h"

namespace havlak6cc {
namespace {

// Block types, from Havlak's paper.
enum BlockType {
  kBbNonHeader,    // a block that heads no loop
  kBbReducible,    // the header of a reducible loop
  kBbSelf,         // a block whose only back edge is to itself
  kBbIrreducible,  // the header of an irreducible loop
};

// The DFS number of blocks the search never reached.
constexpr int kUnvisited = -1;

// AppendUnique appends x to list unless list already holds it.
void AppendUnique(std::vector<int>& list, int x) {
  for (const int y : list) {
    if (y == x) return;
  }
  list.push_back(x);
}

}  // namespace

UnionFindNode* UnionFindNode::FindSet() {
  UnionFindNode* root = this;
  while (root->parent_ != root) root = root->parent_;
  UnionFindNode* node = this;
  while (node != root) {
    UnionFindNode* next = node->parent_;
    node->parent_ = root;
    node = next;
  }
  return root;
}

void LoopFinder::Grow(std::size_t size) {
  // The nodes may move: nothing points at them between passes.
  nodes_.resize(size);
  number_.resize(size);
  types_.resize(size);
  last_.resize(size);
  non_back_preds_.resize(size);
  back_preds_.resize(size);
  in_pool_.resize(size, 0);
}

int LoopFinder::Dfs(BasicBlock* entry) {
  // The recursive search, with the path down to the current block on an
  // explicit stack so that a chain a million blocks deep cannot overflow the
  // call stack. Numbers are handed out in preorder, so the highest number
  // given so far is the last one of every subtree that is finished.
  int current = 0;
  nodes_[0].Init(entry, 0);
  number_[entry->name] = 0;
  dfs_stack_.clear();
  dfs_stack_.push_back(DfsFrame{entry, 0});
  while (!dfs_stack_.empty()) {
    DfsFrame& frame = dfs_stack_.back();
    if (frame.next_edge < frame.block->out_edges.size()) {
      BasicBlock* target = frame.block->out_edges[frame.next_edge++];
      if (number_[target->name] == kUnvisited) {
        ++current;
        nodes_[current].Init(target, current);
        number_[target->name] = current;
        dfs_stack_.push_back(DfsFrame{target, 0});
      }
      continue;
    }
    last_[number_[frame.block->name]] = current;
    dfs_stack_.pop_back();
  }
  return current;
}

lab::Status LoopFinder::FindLoops(const Cfg& cfg, Lsg* lsg) {
  const std::vector<std::unique_ptr<BasicBlock>>& blocks = cfg.blocks();
  // The driver always creates block 0, the entry; without it there is
  // nothing to search from.
  if (blocks.empty() || blocks[0] == nullptr) return lab::Status::Ok();
  const std::size_t size = blocks.size();
  if (size > number_.size()) Grow(size);
  for (std::size_t i = 0; i < size; ++i) {
    non_back_preds_[i].clear();
    back_preds_[i].clear();
    number_[i] = kUnvisited;
  }

  // Step a: number the blocks reachable from the entry in DFS preorder.
  const int reached = Dfs(blocks[0].get()) + 1;

  // Step b: sort each block's predecessors into back edges, which come from
  // its DFS subtree, and the others. Edges from blocks the search never
  // reached do not count.
  for (int w = 0; w < reached; ++w) {
    types_[w] = kBbNonHeader;
    for (const BasicBlock* node_v : nodes_[w].bb()->in_edges) {
      const int v = number_[node_v->name];
      if (v == kUnvisited) continue;
      if (IsAncestor(w, v)) {
        back_preds_[w].push_back(v);
      } else {
        non_back_preds_[w].push_back(v);
      }
    }
  }

  // Steps c-f: visit the blocks from the last in preorder back to the
  // entry, so inner loops are found before the loops around them. A block
  // with back edges heads a loop whose body is everything that reaches a
  // back edge's source without passing through the header; inner loops
  // already found count as their header's set.
  std::size_t moved = 0;
  for (int w = reached - 1; w >= 0; --w) {
    node_pool_.clear();
    BasicBlock* node_w = nodes_[w].bb();

    // Step d: the sources of the back edges seed the body.
    for (const int v : back_preds_[w]) {
      if (v == w) {
        types_[w] = kBbSelf;
        continue;
      }
      UnionFindNode* node = nodes_[v].FindSet();
      if (!in_pool_[node->dfs_number()]) {
        in_pool_[node->dfs_number()] = 1;
        node_pool_.push_back(node);
      }
    }
    if (!node_pool_.empty()) types_[w] = kBbReducible;
    const std::size_t non_back_before = non_back_preds_[w].size();

    // Step e: grow the body backwards along the other edges. A predecessor
    // outside w's DFS subtree enters the loop somewhere other than its
    // header: the loop is irreducible, and the edge moves to w. Every node
    // joins the pool once and is visited once, so the pool is also the work
    // list: i walks it as it grows. The pool never holds w itself, so
    // adding to w's list leaves the list being walked alone.
    for (std::size_t i = 0; i < node_pool_.size(); ++i) {
      const UnionFindNode* x = node_pool_[i];
      for (const int y : non_back_preds_[x->dfs_number()]) {
        UnionFindNode* ydash = nodes_[y].FindSet();
        const int ydash_number = ydash->dfs_number();
        if (!IsAncestor(w, ydash_number)) {
          types_[w] = kBbIrreducible;
          AppendUnique(non_back_preds_[w], ydash_number);
        } else if (ydash_number != w && !in_pool_[ydash_number]) {
          in_pool_[ydash_number] = 1;
          node_pool_.push_back(ydash);
        }
      }
    }

    moved += non_back_preds_[w].size() - non_back_before;
    if (moved > lab::kMaxMovedEdges) return lab::TooIrreducible();

    // Step f: make the loop and collapse its body onto w.
    if (!node_pool_.empty() || types_[w] == kBbSelf) {
      SimpleLoop* loop = lsg->NewLoop();
      loop->SetHeader(node_w);
      loop->set_is_reducible(types_[w] != kBbIrreducible);
      loop->set_is_self_loop(types_[w] == kBbSelf);
      nodes_[w].set_loop(loop);
      for (UnionFindNode* node : node_pool_) {
        node->Union(&nodes_[w]);
        if (node->loop() != nullptr) {
          node->loop()->SetParent(loop);
        } else {
          loop->AddNode(node->bb());
        }
      }
      lsg->AddLoop(loop);
    }
    for (const UnionFindNode* node : node_pool_) {
      in_pool_[node->dfs_number()] = 0;
    }
  }
  lsg->CalculateNestingLevel();
  return lab::Status::Ok();
}

}  // namespace havlak6cc
