// The work of collatzcc (main.cc): Collatz chains, as ../collatz walks
// them in Go.

#ifndef COLLATZCC_COLLATZ_H_
#define COLLATZCC_COLLATZ_H_

namespace collatz {

// Steps returns how many steps the Collatz sequence from s takes to reach 1.
int Steps(unsigned long long s);

// Longest finds the start in 1..n (n >= 1) with the most steps to 1, the
// first of them on a tie, and its steps.
void Longest(long n, long* start, int* steps);

}  // namespace collatz

#endif  // COLLATZCC_COLLATZ_H_
