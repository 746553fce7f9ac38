// The control-flow graph of stage 1.

#ifndef CC_HAVLAK1CC_CFG_H_
#define CC_HAVLAK1CC_CFG_H_

#include <map>
#include <memory>
#include <vector>

namespace havlak1cc {

// A BasicBlock is a node of the control-flow graph.
struct BasicBlock {
  explicit BasicBlock(int name) : name(name) {}

  int name;
  std::vector<BasicBlock*> in_edges;
  std::vector<BasicBlock*> out_edges;
};

// A Cfg is a control-flow graph whose blocks are named by integers and
// created on first mention. Block 0 is the entry.
class Cfg {
 public:
  // CreateNode returns the block called name, creating it if needed.
  BasicBlock* CreateNode(int name);

  // AddEdge adds an edge between the blocks called from and to, creating
  // them if needed. Edges may repeat.
  void AddEdge(int from, int to);

  int NumNodes() const { return static_cast<int>(blocks_.size()); }

  // The entry, block 0, or null if the graph has no such block.
  BasicBlock* entry() const;

  // The blocks by name.
  const std::map<int, std::unique_ptr<BasicBlock>>& blocks() const {
    return blocks_;
  }

 private:
  std::map<int, std::unique_ptr<BasicBlock>> blocks_;
};

}  // namespace havlak1cc

#endif  // CC_HAVLAK1CC_CFG_H_
