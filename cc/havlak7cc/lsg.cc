#include "cc/havlak7cc/lsg.h"

#include <algorithm>
#include <cstdint>

#include "cc/lab/dump.h"

namespace havlak7cc {

void Lsg::Reset() {
  header_.clear();
  parent_.clear();
  kind_.clear();
  depth_.clear();
  nesting_.clear();
  root_nesting_ = 0;
  nodes_ = nullptr;
  num_nodes_ = 0;
}

void Lsg::CalculateDepth() {
  // A loop is found after the loops inside it, so walking the loops from the
  // last found meets every parent before its children. (Nesting levels are
  // set as loops are found: by then their inner loops are complete.)
  for (int l = NumLoops() - 1; l >= 0; --l) {
    if (const std::int32_t p = parent_[l]; p == kNoLoop) {
      depth_[l] = 1;
      root_nesting_ = std::max(root_nesting_, nesting_[l] + 1);
    } else {
      depth_[l] = depth_[p] + 1;
    }
  }
}

lab::Structure Lsg::Describe() const {
  lab::Structure s;
  s.root_nesting = root_nesting_;
  s.loops.resize(header_.size());
  for (std::size_t l = 0; l < header_.size(); ++l) {
    lab::Loop& loop = s.loops[l];
    loop.header = header_[l];
    loop.parent = parent_[l] == kNoLoop ? lab::kNoParent : header_[parent_[l]];
    loop.depth = depth_[l];
    loop.nesting = nesting_[l];
    loop.kind = kind_[l];
  }
  for (std::int32_t i = 0; i < num_nodes_; ++i) {
    if (nodes_[i].loop != kNoLoop) {
      s.loops[nodes_[i].loop].blocks.push_back(nodes_[i].block);
    }
  }
  return s;
}

}  // namespace havlak7cc
