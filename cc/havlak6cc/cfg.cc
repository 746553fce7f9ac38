#include "cc/havlak6cc/cfg.h"

#include <cstddef>
#include <memory>

namespace havlak6cc {

BasicBlock* Cfg::CreateNode(int name) {
  const auto index = static_cast<std::size_t>(name);
  if (index >= blocks_.size()) blocks_.resize(index + 1);
  if (blocks_[index] == nullptr) {
    blocks_[index] = std::make_unique<BasicBlock>(name);
  }
  return blocks_[index].get();
}

void Cfg::AddEdge(int from, int to) {
  BasicBlock* source = CreateNode(from);
  BasicBlock* target = CreateNode(to);
  source->out_edges.push_back(target);
  target->in_edges.push_back(source);
}

}  // namespace havlak6cc
