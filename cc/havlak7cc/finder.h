// Stage 7 bound to the benchmark driver.

#ifndef CC_HAVLAK7CC_FINDER_H_
#define CC_HAVLAK7CC_FINDER_H_

#include <memory>

#include "cc/havlak7cc/cfg.h"
#include "cc/havlak7cc/havlak.h"
#include "cc/havlak7cc/lsg.h"
#include "cc/lab/driver.h"

namespace havlak7cc {

// A Finder runs a LoopFinder over one CFG, each pass into a new loop
// structure graph or into the last one, reset.
class Finder : public lab::LoopFinder {
 public:
  explicit Finder(bool reuse_loop_graph)
      : reuse_loop_graph_(reuse_loop_graph) {}

  void CreateNode(int name) override { cfg_.CreateNode(name); }
  void AddEdge(int from, int to) override { cfg_.AddEdge(from, to); }
  lab::Status FindLoops(int* loops) override;
  // Empty before the first FindLoops.
  lab::Structure Describe() const override;

 private:
  Cfg cfg_;
  std::unique_ptr<Lsg> lsg_;
  // Qualified: inside Finder, plain LoopFinder names the lab interface.
  havlak7cc::LoopFinder loop_finder_;
  bool reuse_loop_graph_;
};

}  // namespace havlak7cc

#endif  // CC_HAVLAK7CC_FINDER_H_
