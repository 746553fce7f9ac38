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
  if (int exit_code; !lab::ParseCommandLine(flags, argc, argv, &exit_code)) {
    return exit_code;
  }
  // The finder is destroyed before main returns, so every block and loop is
  // freed.
  lab::Status status = options.Validate(flags);
  if (status.ok()) {
    havlak1cc::Finder finder;
    status = lab::Run(stdout, options, finder);
  }
  return lab::Report(program, status);
}
