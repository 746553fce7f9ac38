#include <memory>

#include <gtest/gtest.h>

#include "cc/havlak1cc/finder.h"
#include "cc/lab/labtest/labtest.h"

namespace havlak1cc {
namespace {

std::unique_ptr<lab::LoopFinder> NewFinder() {
  return std::make_unique<Finder>();
}

TEST(Havlak1ccTest, HandMadeCfgs) { labtest::HandMade(NewFinder); }

TEST(Havlak1ccTest, Workload) { labtest::Workload(NewFinder); }

TEST(Havlak1ccTest, TooIrreducible) { labtest::TooIrreducible(NewFinder); }

TEST(Havlak1ccTest, DeepNest) { labtest::DeepNest(NewFinder, 100000); }

// The driver always creates block 0; a graph without it has no loops
// rather than a crash.
TEST(Havlak1ccTest, NoEntry) {
  Finder finder;
  finder.AddEdge(1, 2);
  finder.AddEdge(2, 1);
  EXPECT_EQ(labtest::PassLoops(finder), 0);
}

TEST(Havlak1ccTest, DescribeBeforeFindLoops) {
  EXPECT_TRUE(Finder().Describe().loops.empty());
}

}  // namespace
}  // namespace havlak1cc
