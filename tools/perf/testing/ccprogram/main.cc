// A C++ program for the perf rules' analysis tests: built as it is, or
// with the lab's kind of copts, never run.
#include <cstdio>

int main() {
  long sum = 0;
  for (long i = 1; i <= 1000; i++) sum += i * i;
  std::printf("sum: %ld\n", sum);
  return 0;
}
