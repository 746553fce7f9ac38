// The control-flow graph of stage 6.

#ifndef CC_HAVLAK6CC_CFG_H_
#define CC_HAVLAK6CC_CFG_H_

#include <memory>
#include <vector>

namespace havlak6cc {

// A BasicBlock is a node of the control-flow graph.
struct BasicBlock {
  explicit BasicBlock(int name) : name(name) {}

  int name;
  std::vector<BasicBlock*> in_edges;
  std::vector<BasicBlock*> out_edges;
};

// A Cfg is a control-flow graph whose blocks are named by small integers and
// created on first mention. Block 0 is the entry.
class Cfg {
 public:
  // CreateNode returns the block called name, creating it if needed.
  BasicBlock* CreateNode(int name);

  // AddEdge adds an edge between the blocks called from and to, creating
  // them if needed. Edges may repeat.
  void AddEdge(int from, int to);

  // Indexed by name; null for names never mentioned.
  const std::vector<std::unique_ptr<BasicBlock>>& blocks() const {
    return blocks_;
  }

 private:
  std::vector<std::unique_ptr<BasicBlock>> blocks_;
};

}  // namespace havlak6cc

#endif  // CC_HAVLAK6CC_CFG_H_
