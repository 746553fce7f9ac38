#include "cc/havlak1cc/finder.h"

#include <memory>

#include "cc/havlak1cc/havlak.h"

namespace havlak1cc {

lab::Status Finder::FindLoops(int* loops) {
  lsg_ = std::make_unique<Lsg>();
  lab::Status status = havlak1cc::FindLoops(cfg_, lsg_.get());
  *loops = lsg_->NumLoops();
  return status;
}

lab::Structure Finder::Describe() const {
  if (lsg_ == nullptr) return lab::Structure();
  return lsg_->Describe();
}

}  // namespace havlak1cc
