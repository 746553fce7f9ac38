#include "cc/havlak1cc/cfg.h"

#include <memory>

namespace havlak1cc {

BasicBlock* Cfg::CreateNode(int name) {
  std::unique_ptr<BasicBlock>& block = blocks_[name];
  if (block == nullptr) block = std::make_unique<BasicBlock>(name);
  return block.get();
}

void Cfg::AddEdge(int from, int to) {
  BasicBlock* source = CreateNode(from);
  BasicBlock* target = CreateNode(to);
  source->out_edges.push_back(target);
  target->in_edges.push_back(source);
}

BasicBlock* Cfg::entry() const {
  const auto it = blocks_.find(0);
  return it == blocks_.end() ? nullptr : it->second.get();
}

}  // namespace havlak1cc
