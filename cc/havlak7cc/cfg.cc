#include "cc/havlak7cc/cfg.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace havlak7cc {
namespace {

// Csr groups the edges src[i] -> dst[i] by source into start and targets: a
// counting sort that keeps each source's edges in their original order.
void Csr(int num_blocks, const std::vector<std::int32_t>& src,
         const std::vector<std::int32_t>& dst,
         std::vector<std::int32_t>* start,
         std::vector<std::int32_t>* targets) {
  start->assign(num_blocks + 1, 0);
  for (const std::int32_t s : src) ++(*start)[s + 1];
  for (int b = 0; b < num_blocks; ++b) (*start)[b + 1] += (*start)[b];
  targets->resize(src.size());
  std::vector<std::int32_t> next(start->begin(), start->end() - 1);
  for (std::size_t i = 0; i < src.size(); ++i) {
    (*targets)[next[src[i]]++] = dst[i];
  }
}

}  // namespace

void Cfg::CreateNode(int name) {
  if (name >= num_blocks_) {
    num_blocks_ = name + 1;
    built_ = false;
  }
}

void Cfg::AddEdge(int from, int to) {
  CreateNode(std::max(from, to));
  from_.push_back(from);
  to_.push_back(to);
  built_ = false;
}

void Cfg::Build() {
  if (built_) return;
  Csr(num_blocks_, from_, to_, &succ_start_, &succ_);
  Csr(num_blocks_, to_, from_, &pred_start_, &pred_);
  built_ = true;
}

}  // namespace havlak7cc
