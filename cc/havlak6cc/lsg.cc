#include "cc/havlak6cc/lsg.h"

#include <algorithm>
#include <memory>

#include "cc/lab/dump.h"

namespace havlak6cc {

void SimpleLoop::Reset() {
  basic_blocks_.clear();
  children_.clear();
  parent_ = nullptr;
  header_ = nullptr;
  is_root_ = false;
  is_reducible_ = true;
  is_self_loop_ = false;
  nesting_level_ = 0;
  depth_level_ = 0;
}

Lsg::Lsg() {
  root_ = NewLoop();
  root_->is_root_ = true;
}

SimpleLoop* Lsg::NewLoop() {
  if (spare_.empty()) {
    storage_.push_back(std::make_unique<SimpleLoop>());
    return storage_.back().get();
  }
  SimpleLoop* loop = spare_.back();
  spare_.pop_back();
  loop->Reset();
  return loop;
}

void Lsg::Reset() {
  spare_.insert(spare_.end(), loops_.begin(), loops_.end());
  loops_.clear();
  spare_.push_back(root_);
  root_ = NewLoop();
  root_->is_root_ = true;
}

void Lsg::CalculateNestingLevel() {
  for (SimpleLoop* loop : loops_) {
    if (loop->parent_ == nullptr) loop->SetParent(root_);
  }
  // A depth-first walk of the tree with an explicit stack rather than
  // recursion, so that loops nested a million deep cannot overflow the call
  // stack.
  walk_.clear();
  root_->depth_level_ = 0;
  walk_.emplace_back(root_, 0);
  while (!walk_.empty()) {
    SimpleLoop* loop = walk_.back().first;
    const std::size_t next = walk_.back().second;
    if (next < loop->children_.size()) {
      ++walk_.back().second;
      SimpleLoop* child = loop->children_[next];
      child->depth_level_ = loop->depth_level_ + 1;
      walk_.emplace_back(child, 0);
      continue;
    }
    // All of loop's children are done: its nesting level is final.
    walk_.pop_back();
    if (!walk_.empty()) {
      SimpleLoop* parent = walk_.back().first;
      parent->nesting_level_ =
          std::max(parent->nesting_level_, loop->nesting_level_ + 1);
    }
  }
}

lab::Structure Lsg::Describe() const {
  lab::Structure s;
  s.root_nesting = root_->nesting_level_;
  s.loops.reserve(loops_.size());
  for (const SimpleLoop* loop : loops_) {
    lab::Loop& l = s.loops.emplace_back();
    l.header = loop->header_->name;
    l.parent = loop->parent_->is_root_ ? lab::kNoParent
                                       : loop->parent_->header_->name;
    l.depth = loop->depth_level_;
    l.nesting = loop->nesting_level_;
    l.kind = lab::LoopKind(loop->is_reducible_, loop->is_self_loop_);
    l.blocks.reserve(loop->basic_blocks_.size());
    for (const BasicBlock* bb : loop->basic_blocks_) {
      l.blocks.push_back(bb->name);
    }
  }
  return s;
}

}  // namespace havlak6cc
