// The control-flow graph of stage 7 in C++: int32 block indexes and
// compressed sparse rows, after go/havlak7/cfg.go.

#ifndef CC_HAVLAK7CC_CFG_H_
#define CC_HAVLAK7CC_CFG_H_

#include <cstdint>
#include <vector>

namespace havlak7cc {

// A Blocks is a run of block indexes, for range-for loops.
struct Blocks {
  const std::int32_t* first;
  const std::int32_t* last;
  const std::int32_t* begin() const { return first; }
  const std::int32_t* end() const { return last; }
};

// A Cfg is a control-flow graph whose blocks are named by small integers and
// created on first mention; block 0 is the entry.
//
// Blocks are plain int32 indexes, not objects: edges are kept as they come,
// in two parallel vectors, and turned into compressed sparse rows (one
// offsets vector and one targets vector per direction) the first time loops
// are found after a change. Every pass then walks a block's successors or
// predecessors as one contiguous run of int32s.
class Cfg {
 public:
  void CreateNode(int name);
  void AddEdge(int from, int to);

  int num_blocks() const { return num_blocks_; }

  // Build makes the compressed rows current; the accessors below need it.
  void Build();

  // The successors of block b, in the order their edges were added (which
  // the DFS numbering depends on).
  std::int32_t succ_begin(std::int32_t b) const { return succ_start_[b]; }
  std::int32_t succ_end(std::int32_t b) const { return succ_start_[b + 1]; }
  std::int32_t succ(std::int32_t edge) const { return succ_[edge]; }
  Blocks Predecessors(std::int32_t b) const {
    return {pred_.data() + pred_start_[b], pred_.data() + pred_start_[b + 1]};
  }

 private:
  int num_blocks_ = 0;
  std::vector<std::int32_t> from_, to_;  // the edges, in the order added
  bool built_ = false;
  std::vector<std::int32_t> succ_start_, succ_;
  std::vector<std::int32_t> pred_start_, pred_;
};

}  // namespace havlak7cc

#endif  // CC_HAVLAK7CC_CFG_H_
