#include <gtest/gtest.h>

#include "cc/havlak6cc/finder.h"
#include "cc/lab/labtest/reusing_finder_suite.h"

namespace labtest {

INSTANTIATE_TYPED_TEST_SUITE_P(Havlak6cc, ReusingFinderTest,
                               havlak6cc::Finder);

}  // namespace labtest
