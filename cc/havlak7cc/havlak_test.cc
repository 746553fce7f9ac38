#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cc/havlak7cc/finder.h"
#include "cc/lab/dump.h"
#include "cc/lab/labtest/labtest.h"
#include "cc/lab/workload.h"

namespace havlak7cc {
namespace {

std::unique_ptr<lab::LoopFinder> NewFinder() {
  return std::make_unique<Finder>(/*reuse_loop_graph=*/true);
}

std::unique_ptr<lab::LoopFinder> NewFinderNoReuse() {
  return std::make_unique<Finder>(/*reuse_loop_graph=*/false);
}

TEST(Havlak7ccTest, HandMadeCfgs) { labtest::HandMade(NewFinder); }

TEST(Havlak7ccTest, HandMadeCfgsNoReuse) {
  labtest::HandMade(NewFinderNoReuse);
}

TEST(Havlak7ccTest, Workload) { labtest::Workload(NewFinder); }

TEST(Havlak7ccTest, TooIrreducible) { labtest::TooIrreducible(NewFinder); }

TEST(Havlak7ccTest, WorkloadNoReuse) { labtest::Workload(NewFinderNoReuse); }

TEST(Havlak7ccTest, DeepNest) { labtest::DeepNest(NewFinder, 100000); }

// The finder's memory must adapt when the CFG grows between passes, and its
// recycled loops must not keep anything from the pass before.
TEST(Havlak7ccTest, GrowingCfg) {
  Finder finder(/*reuse_loop_graph=*/true);
  lab::BuildSimpleCfg(finder);
  EXPECT_EQ(labtest::PassLoops(finder), 0);
  lab::BuildWorkload(finder, 1, 2, 3);
  EXPECT_EQ(labtest::PassLoops(finder), 1 * 2 * (3 * 3 + 1));
  const std::string want = lab::Dump(finder.Describe(), nullptr);
  Finder fresh(/*reuse_loop_graph=*/false);
  lab::BuildSimpleCfg(fresh);
  lab::BuildWorkload(fresh, 1, 2, 3);
  labtest::PassLoops(fresh);
  EXPECT_EQ(lab::Dump(fresh.Describe(), nullptr), want);
}

// The driver always creates block 0; a graph without it has no loops
// rather than a crash.
TEST(Havlak7ccTest, NoEntry) {
  Finder finder(true);
  finder.AddEdge(1, 2);
  finder.AddEdge(2, 1);
  EXPECT_EQ(labtest::PassLoops(finder), 0);
}

TEST(Havlak7ccTest, DescribeBeforeFindLoops) {
  EXPECT_TRUE(Finder(true).Describe().loops.empty());
}

// Separate finders share no memory, so they may run at once.
TEST(Havlak7ccTest, ConcurrentFinders) {
  const auto dump = [] {
    Finder finder(/*reuse_loop_graph=*/true);
    lab::BuildSimpleCfg(finder);
    lab::BuildWorkload(finder, 1, 2, 3);
    labtest::PassLoops(finder);
    labtest::PassLoops(finder);
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

}  // namespace
}  // namespace havlak7cc
