#include "cc/havlak1cc/finder.h"

#include <memory>

#include "cc/havlak1cc/havlak.h"

namespace havlak1cc {

int Finder::FindLoops() {
  lsg_ = std::make_unique<Lsg>();
  havlak1cc::FindLoops(cfg_, lsg_.get());
  return lsg_->NumLoops();
}

lab::Structure Finder::Describe() const {
  if (lsg_ == nullptr) return lab::Structure();
  return lsg_->Describe();
}

}  // namespace havlak1cc
