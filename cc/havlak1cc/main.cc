// havlak1cc is stage 1 of the "Profiling Go Programs" study in C++, after
// go/havlak1: Havlak's loop recognition written the straightforward way,
// with a map or a set wherever a lookup or a collection is needed and fresh
// memory for every pass. Profiles come from gperftools, through its
// environment variables, not from flags.

#include <cstdio>

#include "cc/havlak1cc/finder.h"
#include "cc/lab/driver.h"
#include "cc/lab/flags.h"
#include "cc/lab/lab.h"
#include "cc/lab/options.h"

int main(int argc, char** argv) {
  const char* program = argc > 0 ? argv[0] : "havlak1cc";
  lab::FlagSet flags(program);
  lab::Options options;
  options.Register(flags);
  lab::ParseCommandLine(flags, argc, argv);
  if (lab::Status status = options.Validate(flags); !status.ok()) {
    lab::Exit(program, status);
  }
  havlak1cc::Finder finder;
  lab::Exit(program, lab::Run(stdout, options, finder));
}
