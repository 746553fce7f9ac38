#include "cc/havlak7cc/finder.h"

#include <memory>

namespace havlak7cc {

lab::Status Finder::FindLoops(int* loops) {
  if (!reuse_loop_graph_ || lsg_ == nullptr) lsg_ = std::make_unique<Lsg>();
  lab::Status status = loop_finder_.FindLoops(cfg_, lsg_.get());
  *loops = lsg_->NumLoops();
  return status;
}

lab::Structure Finder::Describe() const {
  if (lsg_ == nullptr) return lab::Structure();
  return lsg_->Describe();
}

}  // namespace havlak7cc
