// Control-flow graphs read from text files, for -cfg.

#ifndef CC_LAB_CFG_FILE_H_
#define CC_LAB_CFG_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cc/lab/lab.h"
#include "cc/lab/workload.h"

namespace lab {

// An Edge joins two blocks, by their dense indexes in a CfgFile.
struct Edge {
  std::int32_t from;
  std::int32_t to;

  bool operator==(const Edge& other) const {
    return from == other.from && to == other.to;
  }
};

// A CfgFile is a control-flow graph read from a text file. Block ids in the
// file may be sparse, up to 2^31-1; the blocks get dense indexes in order of
// first mention, and names maps each index back to the id in the file. Index
// 0 is block 0, the entry.
struct CfgFile {
  std::vector<int> names;
  std::vector<Edge> edges;

  // Replay adds the file's blocks and edges to graph, in file order, with
  // dense block names.
  void Replay(Graph& graph) const;
};

// ReadCfgFile parses path into *cfg: one edge "FROM TO" per line, where FROM
// and TO are decimal block ids between 0 and 2^31-1; '#' starts a comment;
// blank lines are ignored; fields are separated by the ASCII white space of
// C's isspace. Errors name the file and line and are usage errors.
Status ReadCfgFile(const std::string& path, CfgFile* cfg);

}  // namespace lab

#endif  // CC_LAB_CFG_FILE_H_
