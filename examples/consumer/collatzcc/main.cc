// collatzcc is collatz (../collatz) in C++: it finds the start below n
// whose Collatz sequence is the longest, a few times over (collatz.cc),
// and prints it, as the Go program does. The lab asks nothing of a C or
// C++ program's code: its profiles come from gperftools, preloaded, and
// its counts are exact. What it asks is of the build: the program is
// compiled optimised (its copts, BUILD.bazel).

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collatzcc/collatz.h"

namespace {

// Flag parses arg as -NAME=VALUE, a positive number, into *value; false
// when arg is another flag.
bool Flag(const char* arg, const char* name, long* value) {
  size_t len = std::strlen(name);
  if (arg[0] != '-' || std::strncmp(arg + 1, name, len) != 0 || arg[len + 1] != '=') {
    return false;
  }
  const char* text = arg + len + 2;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || v < 1) {
    std::fprintf(stderr, "collatzcc: -%s=%s: want a number of 1 or more\n", name, text);
    std::exit(2);
  }
  *value = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 1000000;
  long passes = 1;
  for (int i = 1; i < argc; i++) {
    if (!Flag(argv[i], "n", &n) && !Flag(argv[i], "passes", &passes)) {
      std::fprintf(stderr, "collatzcc: unknown argument %s (want -n=N, -passes=P)\n", argv[i]);
      return 2;
    }
  }
  // Every pass reads its bound anew, so that a compiler that sees that
  // Longest has no effect but its results (across files, with link-time
  // optimisation) cannot do one pass only.
  volatile long bound = n;
  long start = 1;
  int steps = 0;
  for (long p = 0; p < passes; p++) {
    collatz::Longest(bound, &start, &steps);
  }
  std::printf("longest: %ld (%d steps)\n", start, steps);
  return 0;
}
