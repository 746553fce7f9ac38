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

TEST(Havlak1ccTest, DeepNest) { labtest::DeepNest(NewFinder, 100000); }

TEST(Havlak1ccTest, DescribeBeforeFindLoops) {
  EXPECT_TRUE(Finder().Describe().loops.empty());
}

}  // namespace
}  // namespace havlak1cc
