#include "cc/lab/dump.h"

#include <algorithm>
#include <string>
#include <vector>

namespace lab {

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kReducible:
      return "reducible";
    case Kind::kIrreducible:
      return "irreducible";
    case Kind::kSelf:
      return "self";
  }
  return "unknown";
}

Kind LoopKind(bool reducible, bool self) {
  if (!reducible) return Kind::kIrreducible;
  if (self) return Kind::kSelf;
  return Kind::kReducible;
}

std::string Dump(const Structure& s, const std::vector<int>* names) {
  const auto name = [names](int block) {
    return names == nullptr ? block : (*names)[block];
  };
  // Sort pointers, not copies of the loops and their block lists.
  std::vector<const Loop*> loops;
  loops.reserve(s.loops.size());
  for (const Loop& loop : s.loops) loops.push_back(&loop);
  std::sort(loops.begin(), loops.end(),
            [&name](const Loop* a, const Loop* b) {
              return name(a->header) < name(b->header);
            });

  std::string out =
      "root depth=0 nest=" + std::to_string(s.root_nesting) + "\n";
  std::vector<int> blocks;
  for (const Loop* loop : loops) {
    out += "loop " + std::to_string(name(loop->header)) +
           " depth=" + std::to_string(loop->depth) +
           " nest=" + std::to_string(loop->nesting) + " parent=" +
           (loop->parent == kNoParent ? std::string("root")
                                      : std::to_string(name(loop->parent))) +
           " " + KindName(loop->kind) + " blocks=";
    blocks.clear();
    for (const int block : loop->blocks) blocks.push_back(name(block));
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (i > 0) out.push_back(',');
      out += std::to_string(blocks[i]);
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace lab
