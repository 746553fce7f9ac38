#include "cc/havlak1cc/havlak.h"

#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "cc/lab/options.h"

namespace havlak1cc {
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

// IsAncestor reports whether the block numbered w is v or an ancestor of v in
// the DFS tree: preorder numbers a subtree consecutively.
bool IsAncestor(int w, int v, const std::vector<int>& last) {
  return w <= v && v <= last[w];
}

// Dfs numbers the blocks reachable from entry in preorder, from 0, and
// records in last the highest number in each subtree. It returns the highest
// number it gave.
int Dfs(BasicBlock* entry,
        const std::vector<std::unique_ptr<UnionFindNode>>& nodes,
        std::map<BasicBlock*, int>& number, std::vector<int>& last) {
  // The recursive search, with the path down to the current block on an
  // explicit stack so that a chain a million blocks deep cannot overflow the
  // call stack: each block with the index of its next out-edge to follow.
  // Numbers are handed out in preorder, so the highest number given so far
  // is the last one of every subtree that is finished.
  int current = 0;
  nodes[0]->Init(entry, 0);
  number[entry] = 0;
  std::vector<std::pair<BasicBlock*, std::size_t>> path;
  path.emplace_back(entry, 0);
  while (!path.empty()) {
    BasicBlock* block = path.back().first;
    const std::size_t next = path.back().second;
    if (next < block->out_edges.size()) {
      ++path.back().second;
      BasicBlock* target = block->out_edges[next];
      if (number[target] == kUnvisited) {
        ++current;
        nodes[current]->Init(target, current);
        number[target] = current;
        path.emplace_back(target, 0);
      }
      continue;
    }
    last[number[block]] = current;
    path.pop_back();
  }
  return current;
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

lab::Status FindLoops(const Cfg& cfg, Lsg* lsg) {
  // The driver always creates block 0, the entry; without it there is
  // nothing to search from.
  if (cfg.entry() == nullptr) return lab::Status::Ok();
  const int size = cfg.NumNodes();
  std::vector<std::set<int>> non_back_preds(size);
  std::vector<std::vector<int>> back_preds(size);
  std::map<BasicBlock*, int> number;
  std::vector<int> types(size);
  std::vector<int> last(size);
  std::vector<std::unique_ptr<UnionFindNode>> nodes(size);
  for (std::unique_ptr<UnionFindNode>& node : nodes) {
    node = std::make_unique<UnionFindNode>();
  }
  for (const auto& [name, bb] : cfg.blocks()) number[bb.get()] = kUnvisited;

  // Step a: number the blocks reachable from the entry in DFS preorder.
  const int reached = Dfs(cfg.entry(), nodes, number, last) + 1;

  // Step b: sort each block's predecessors into back edges, which come from
  // its DFS subtree, and the others. Edges from blocks the search never
  // reached do not count.
  for (int w = 0; w < reached; ++w) {
    types[w] = kBbNonHeader;
    for (BasicBlock* node_v : nodes[w]->bb()->in_edges) {
      const int v = number[node_v];
      if (v == kUnvisited) continue;
      if (IsAncestor(w, v, last)) {
        back_preds[w].push_back(v);
      } else {
        non_back_preds[w].insert(v);
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
    std::set<UnionFindNode*> node_pool;
    BasicBlock* node_w = nodes[w]->bb();

    // Step d: the sources of the back edges seed the body.
    for (const int v : back_preds[w]) {
      if (v != w) {
        node_pool.insert(nodes[v]->FindSet());
      } else {
        types[w] = kBbSelf;
      }
    }
    std::list<UnionFindNode*> work_list(node_pool.begin(), node_pool.end());
    if (!node_pool.empty()) types[w] = kBbReducible;
    const std::size_t non_back_before = non_back_preds[w].size();

    // Step e: grow the body backwards along the other edges. A predecessor
    // outside w's DFS subtree enters the loop somewhere other than its
    // header: the loop is irreducible, and the edge moves to w. The pool
    // never holds w itself, so adding to w's set leaves the set being walked
    // alone.
    while (!work_list.empty()) {
      const UnionFindNode* x = work_list.front();
      work_list.pop_front();
      for (const int y : non_back_preds[x->dfs_number()]) {
        UnionFindNode* ydash = nodes[y]->FindSet();
        if (!IsAncestor(w, ydash->dfs_number(), last)) {
          types[w] = kBbIrreducible;
          non_back_preds[w].insert(ydash->dfs_number());
        } else if (ydash->dfs_number() != w &&
                   node_pool.insert(ydash).second) {
          work_list.push_back(ydash);
        }
      }
    }

    moved += non_back_preds[w].size() - non_back_before;
    if (moved > lab::kMaxMovedEdges) return lab::TooIrreducible();

    // Step f: make the loop and collapse its body onto w.
    if (!node_pool.empty() || types[w] == kBbSelf) {
      auto loop = std::make_unique<SimpleLoop>();
      loop->SetHeader(node_w);
      loop->set_is_reducible(types[w] != kBbIrreducible);
      loop->set_is_self_loop(types[w] == kBbSelf);
      nodes[w]->set_loop(loop.get());
      for (UnionFindNode* node : node_pool) {
        node->Union(nodes[w].get());
        if (node->loop() != nullptr) {
          node->loop()->SetParent(loop.get());
        } else {
          loop->AddNode(node->bb());
        }
      }
      lsg->AddLoop(std::move(loop));
    }
  }
  lsg->CalculateNestingLevel();
  return lab::Status::Ok();
}

}  // namespace havlak1cc
