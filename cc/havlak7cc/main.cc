// havlak7cc goes one chapter beyond "Profiling Go Programs" in C++, after
// go/havlak7: compressed sparse rows of int32 for the CFG, per-node state
// in one array of structs, an iterative DFS that also finds the headers, a
// flat union-find, and a loop structure graph of parallel vectors whose
// member lists are rebuilt only for -dump (docs/havlak7.md). Profiles come
// from gperftools, through its environment variables, not from flags.

#include <cstdio>

#include "cc/havlak7cc/finder.h"
#include "cc/lab/driver.h"
#include "cc/lab/flags.h"
#include "cc/lab/lab.h"
#include "cc/lab/options.h"

int main(int argc, char** argv) {
  const char* program = argc > 0 ? argv[0] : "havlak7cc";
  lab::FlagSet flags(program);
  lab::Options options;
  options.Register(flags);
  bool reuse_loop_graph;
  flags.Bool(&reuse_loop_graph, "reuseloopgraph", true,
             "reuse the loop structure graph's memory from one pass to the "
             "next");
  if (int exit_code; !lab::ParseCommandLine(flags, argc, argv, &exit_code)) {
    return exit_code;
  }
  lab::Status status = options.Validate(flags);
  if (status.ok()) {
    havlak7cc::Finder finder(reuse_loop_graph);
    status = lab::Run(stdout, options, finder);
  }
  return lab::Report(program, status);
}
