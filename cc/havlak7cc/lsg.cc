#include "cc/havlak7cc/lsg.h"

#include <algorithm>
#include <cstdint>

#include "cc/lab/dump.h"

namespace havlak7cc {

void Lsg::Reset(int num_blocks) {
  header_.clear();
  parent_.clear();
  kind_.clear();
  depth_.clear();
  nesting_.clear();
  root_nesting_ = 0;
  innermost_.assign(num_blocks, kNoLoop);
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
  for (std::size_t block = 0; block < innermost_.size(); ++block) {
    if (innermost_[block] != kNoLoop) {
      s.loops[innermost_[block]].blocks.push_back(static_cast<int>(block));
    }
  }
  return s;
}

}  // namespace havlak7cc
