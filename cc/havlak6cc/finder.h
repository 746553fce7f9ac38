// Stage 6 bound to the benchmark driver.

#ifndef CC_HAVLAK6CC_FINDER_H_
#define CC_HAVLAK6CC_FINDER_H_

#include <memory>

#include "cc/havlak6cc/cfg.h"
#include "cc/havlak6cc/havlak.h"
#include "cc/havlak6cc/lsg.h"
#include "cc/lab/driver.h"
#include "cc/lab/dump.h"

namespace havlak6cc {

// A Finder runs a LoopFinder over one CFG, each pass into the loop
// structure graph of the pass before, reset, or into a new one when
// reuse_loop_graph is false.
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
  havlak6cc::LoopFinder loop_finder_;
  bool reuse_loop_graph_;
};

}  // namespace havlak6cc

#endif  // CC_HAVLAK6CC_FINDER_H_
