// The tests every stage whose Finder can reuse its memory from one pass to
// the next must pass, with reuse and without: a GoogleTest typed test suite
// that a stage's test instantiates with its Finder type,
//
//   namespace labtest {
//   INSTANTIATE_TYPED_TEST_SUITE_P(Havlak6cc, ReusingFinderTest,
//                                  havlak6cc::Finder);
//   }  // namespace labtest
//
// Finder must be a lab::LoopFinder constructible from a bool,
// reuse_loop_graph.

#ifndef CC_LAB_LABTEST_REUSING_FINDER_SUITE_H_
#define CC_LAB_LABTEST_REUSING_FINDER_SUITE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cc/lab/driver.h"
#include "cc/lab/dump.h"
#include "cc/lab/labtest/labtest.h"
#include "cc/lab/workload.h"

namespace labtest {

template <typename Finder>
class ReusingFinderTest : public testing::Test {
 protected:
  static std::unique_ptr<lab::LoopFinder> NewFinder() {
    return std::make_unique<Finder>(/*reuse_loop_graph=*/true);
  }

  static std::unique_ptr<lab::LoopFinder> NewFinderNoReuse() {
    return std::make_unique<Finder>(/*reuse_loop_graph=*/false);
  }
};

TYPED_TEST_SUITE_P(ReusingFinderTest);

// The checks are called as labtest::Check: inside a test of the same name,
// the bare name is the test's own class.

TYPED_TEST_P(ReusingFinderTest, HandMadeCfgs) {
  labtest::HandMade(TestFixture::NewFinder);
}

TYPED_TEST_P(ReusingFinderTest, HandMadeCfgsNoReuse) {
  labtest::HandMade(TestFixture::NewFinderNoReuse);
}

TYPED_TEST_P(ReusingFinderTest, Workload) {
  labtest::Workload(TestFixture::NewFinder);
}

TYPED_TEST_P(ReusingFinderTest, TooIrreducible) {
  labtest::TooIrreducible(TestFixture::NewFinder);
}

TYPED_TEST_P(ReusingFinderTest, WorkloadNoReuse) {
  labtest::Workload(TestFixture::NewFinderNoReuse);
}

TYPED_TEST_P(ReusingFinderTest, DeepNest) {
  labtest::DeepNest(TestFixture::NewFinder, 100000);
}

// The finder's memory must adapt when the CFG grows between passes, and its
// recycled loops must not keep anything from the pass before.
TYPED_TEST_P(ReusingFinderTest, GrowingCfg) {
  TypeParam finder(/*reuse_loop_graph=*/true);
  lab::BuildSimpleCfg(finder);
  EXPECT_EQ(PassLoops(finder), 0);
  lab::BuildWorkload(finder, 1, 2, 3);
  EXPECT_EQ(PassLoops(finder), 1 * 2 * (3 * 3 + 1));
  const std::string want = lab::Dump(finder.Describe(), nullptr);
  TypeParam fresh(/*reuse_loop_graph=*/false);
  lab::BuildSimpleCfg(fresh);
  lab::BuildWorkload(fresh, 1, 2, 3);
  PassLoops(fresh);
  EXPECT_EQ(lab::Dump(fresh.Describe(), nullptr), want);
}

// The driver always creates block 0; a graph without it has no loops
// rather than a crash.
TYPED_TEST_P(ReusingFinderTest, NoEntry) {
  TypeParam finder(true);
  finder.AddEdge(1, 2);
  finder.AddEdge(2, 1);
  EXPECT_EQ(PassLoops(finder), 0);
}

TYPED_TEST_P(ReusingFinderTest, DescribeBeforeFindLoops) {
  EXPECT_TRUE(TypeParam(true).Describe().loops.empty());
}

// Separate finders share no memory, so they may run at once.
TYPED_TEST_P(ReusingFinderTest, ConcurrentFinders) {
  const auto dump = [] {
    TypeParam finder(/*reuse_loop_graph=*/true);
    lab::BuildSimpleCfg(finder);
    lab::BuildWorkload(finder, 1, 2, 3);
    PassLoops(finder);
    PassLoops(finder);
    return lab::Dump(finder.Describe(), nullptr);
  };
  const std::string want = dump();
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (std::string& result : got) {
    threads.emplace_back([&result, &dump] { result = dump(); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& result : got) EXPECT_EQ(result, want);
}

REGISTER_TYPED_TEST_SUITE_P(ReusingFinderTest, HandMadeCfgs,
                            HandMadeCfgsNoReuse, Workload, TooIrreducible,
                            WorkloadNoReuse, DeepNest, GrowingCfg, NoEntry,
                            DescribeBeforeFindLoops, ConcurrentFinders);

}  // namespace labtest

#endif  // CC_LAB_LABTEST_REUSING_FINDER_SUITE_H_
