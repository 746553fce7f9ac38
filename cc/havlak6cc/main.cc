// havlak6cc is stage 6 of the "Profiling Go Programs" study in C++, after
// go/havlak6, the final version: a LoopFinder owns the working memory it
// reuses from pass to pass, the node pool doubles as the work list, and the
// loop structure graph keeps its loops from one pass to the next unless
// -reuseloopgraph=false. Profiles come from gperftools, through its
// environment variables, not from flags.

#include <cstdio>

#include "cc/havlak6cc/finder.h"
#include "cc/lab/driver.h"
#include "cc/lab/flags.h"
#include "cc/lab/lab.h"
#include "cc/lab/options.h"

int main(int argc, char** argv) {
  const char* program = argc > 0 ? argv[0] : "havlak6cc";
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
  // The finder is destroyed before main returns, so every block and loop is
  // freed.
  lab::Status status = options.Validate(flags);
  if (status.ok()) {
    havlak6cc::Finder finder(reuse_loop_graph);
    status = lab::Run(stdout, options, finder);
  }
  return lab::Report(program, status);
}
