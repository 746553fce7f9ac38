#include "cc/lab/workload.h"

namespace lab {
namespace {

// Straight adds a chain of n edges from start and returns its last block.
int Straight(Graph& graph, int start, int n) {
  for (int i = 0; i < n; ++i) graph.AddEdge(start + i, start + i + 1);
  return start + n;
}

// Diamond adds an if-then-else from start and returns the join block.
int Diamond(Graph& graph, int start) {
  graph.AddEdge(start, start + 1);
  graph.AddEdge(start, start + 2);
  graph.AddEdge(start + 1, start + 3);
  graph.AddEdge(start + 2, start + 3);
  return start + 3;
}

// BaseLoop adds three nested loops after from: two diamonds, each inside a
// loop of its own, inside a loop back to from. It returns the exit block.
int BaseLoop(Graph& graph, int from) {
  const int header = Straight(graph, from, 1);
  const int diamond1 = Diamond(graph, header);
  const int d11 = Straight(graph, diamond1, 1);
  const int diamond2 = Diamond(graph, d11);
  const int footer = Straight(graph, diamond2, 1);
  graph.AddEdge(diamond2, d11);
  graph.AddEdge(diamond1, header);
  graph.AddEdge(footer, from);
  return Straight(graph, footer, 1);
}

}  // namespace

void BuildSimpleCfg(Graph& graph) {
  graph.CreateNode(0);
  graph.CreateNode(1);
  graph.AddEdge(0, 2);
}

void BuildWorkload(Graph& graph, int trees, int loops, int base_loops) {
  int n = 2;
  for (int t = 0; t < trees; ++t) {
    graph.CreateNode(n + 1);
    graph.AddEdge(2, n + 1);
    ++n;
    for (int l = 0; l < loops; ++l) {
      const int top = n;
      n = Straight(graph, n, 1);
      for (int k = 0; k < base_loops; ++k) n = BaseLoop(graph, n);
      const int bottom = Straight(graph, n, 1);
      graph.AddEdge(n, top);
      n = bottom;
    }
    graph.AddEdge(n, 1);
  }
}

}  // namespace lab
