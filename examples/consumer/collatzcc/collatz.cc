#include "collatzcc/collatz.h"

namespace collatz {

int Steps(unsigned long long s) {
  int k = 0;
  for (unsigned long long x = s; x != 1; k++) {
    x = x % 2 == 0 ? x / 2 : 3 * x + 1;
  }
  return k;
}

void Longest(long n, long* start, int* steps) {
  *start = 1;
  *steps = 0;
  for (long s = 2; s <= n; s++) {
    int k = Steps(s);
    if (k > *steps) {
      *start = s;
      *steps = k;
    }
  }
}

}  // namespace collatz
