#include "cc/havlak1cc/lsg.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "cc/lab/dump.h"

namespace havlak1cc {

Lsg::Lsg() : root_(std::make_unique<SimpleLoop>()) { root_->is_root_ = true; }

void Lsg::CalculateNestingLevel() {
  for (const std::unique_ptr<SimpleLoop>& loop : loops_) {
    if (loop->parent_ == nullptr) loop->SetParent(root_.get());
  }
  // A depth-first walk of the tree with an explicit stack rather than
  // recursion, so that loops nested a million deep cannot overflow the call
  // stack: each loop on the way down, with its next child to visit.
  std::vector<std::pair<SimpleLoop*, std::set<SimpleLoop*>::iterator>> walk;
  root_->depth_level_ = 0;
  walk.emplace_back(root_.get(), root_->children_.begin());
  while (!walk.empty()) {
    SimpleLoop* loop = walk.back().first;
    if (walk.back().second != loop->children_.end()) {
      SimpleLoop* child = *walk.back().second++;
      child->depth_level_ = loop->depth_level_ + 1;
      walk.emplace_back(child, child->children_.begin());
      continue;
    }
    // All of loop's children are done: its nesting level is final.
    walk.pop_back();
    if (!walk.empty()) {
      SimpleLoop* parent = walk.back().first;
      parent->nesting_level_ =
          std::max(parent->nesting_level_, loop->nesting_level_ + 1);
    }
  }
}

lab::Structure Lsg::Describe() const {
  lab::Structure s;
  s.root_nesting = root_->nesting_level_;
  for (const std::unique_ptr<SimpleLoop>& loop : loops_) {
    lab::Loop l;
    l.header = loop->header_->name;
    l.parent = loop->parent_->is_root_ ? lab::kNoParent
                                       : loop->parent_->header_->name;
    l.depth = loop->depth_level_;
    l.nesting = loop->nesting_level_;
    l.kind = lab::LoopKind(loop->is_reducible_, loop->is_self_loop_);
    for (const BasicBlock* bb : loop->basic_blocks_) {
      l.blocks.push_back(bb->name);
    }
    s.loops.push_back(std::move(l));
  }
  return s;
}

}  // namespace havlak1cc
