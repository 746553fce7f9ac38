// The canonical dump of a loop structure graph that every stage, Go or C++,
// prints for -dump.

#ifndef CC_LAB_DUMP_H_
#define CC_LAB_DUMP_H_

#include <string>
#include <vector>

namespace lab {

// Kind tells how a loop was entered.
enum class Kind {
  // Reducible loops are entered only through their header.
  kReducible,
  // Irreducible loops have entries other than their header.
  kIrreducible,
  // Self loops are a header whose only back edge is to itself.
  kSelf,
};

// KindName is the word the dump uses for kind.
const char* KindName(Kind kind);

// LoopKind is the Kind of a loop with the given flags.
Kind LoopKind(bool reducible, bool self);

// kNoParent is the parent of a loop that sits directly under the artificial
// root of the loop structure graph.
inline constexpr int kNoParent = -1;

// A Loop is one loop of a loop structure graph, in stage-neutral form. Block
// numbers are the names the stage's CFG uses.
struct Loop {
  int header = 0;
  int parent = kNoParent;  // header of the enclosing loop, or kNoParent
  int depth = 0;           // 1 for outermost loops; the root is 0
  int nesting = 0;  // 0 for innermost loops; 1 + the deepest child's otherwise
  Kind kind = Kind::kReducible;
  std::vector<int> blocks;  // the header and the blocks in no inner loop
};

// A Structure is a loop structure graph in stage-neutral form.
struct Structure {
  int root_nesting = 0;
  std::vector<Loop> loops;
};

// Dump returns s in the canonical form that every stage shares:
//
//   root depth=0 nest=2
//   loop 1 depth=1 nest=1 parent=root reducible blocks=1,4
//   loop 2 depth=2 nest=0 parent=1 self blocks=2
//
// one line per loop, sorted by header, blocks sorted. names maps the stage's
// block numbers to the ones to print; nullptr prints them as they are.
std::string Dump(const Structure& s, const std::vector<int>* names);

}  // namespace lab

#endif  // CC_LAB_DUMP_H_
