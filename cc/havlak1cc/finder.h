// Stage 1 bound to the benchmark driver.

#ifndef CC_HAVLAK1CC_FINDER_H_
#define CC_HAVLAK1CC_FINDER_H_

#include <memory>

#include "cc/havlak1cc/cfg.h"
#include "cc/havlak1cc/lsg.h"
#include "cc/lab/driver.h"
#include "cc/lab/dump.h"

namespace havlak1cc {

// A Finder runs FindLoops over one CFG, each pass into a new loop structure
// graph.
class Finder : public lab::LoopFinder {
 public:
  void CreateNode(int name) override { cfg_.CreateNode(name); }
  void AddEdge(int from, int to) override { cfg_.AddEdge(from, to); }
  lab::Status FindLoops(int* loops) override;
  // Empty before the first FindLoops.
  lab::Structure Describe() const override;

 private:
  Cfg cfg_;
  std::unique_ptr<Lsg> lsg_;
};

}  // namespace havlak1cc

#endif  // CC_HAVLAK1CC_FINDER_H_
