// The benchmark's generated CFGs: the tiny one of the warm-up passes and the
// standard workload.

#ifndef CC_LAB_WORKLOAD_H_
#define CC_LAB_WORKLOAD_H_

namespace lab {

// A Graph receives the blocks and edges of a control-flow graph. Blocks are
// named by non-negative integers and created on first mention; block 0 is
// the entry.
class Graph {
 public:
  virtual ~Graph() = default;
  virtual void CreateNode(int name) = 0;
  virtual void AddEdge(int from, int to) = 0;
};

// BuildSimpleCfg adds the tiny CFG of the warm-up passes: blocks 0 and 1, and
// an edge from 0 to a new block 2.
void BuildSimpleCfg(Graph& graph);

// BuildWorkload extends the simple CFG into the benchmark's main CFG: trees
// subtrees hanging off block 2, each a chain of loops outer loops, each of
// which holds a chain of base_loops three-loop nests. Every subtree ends in
// block 1. The sizes must have passed Options::Validate.
void BuildWorkload(Graph& graph, int trees, int loops, int base_loops);

}  // namespace lab

#endif  // CC_LAB_WORKLOAD_H_
