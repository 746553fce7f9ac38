#include <gtest/gtest.h>

#include "cc/havlak7cc/finder.h"
#include "cc/lab/labtest/reusing_finder_suite.h"

namespace labtest {

INSTANTIATE_TYPED_TEST_SUITE_P(Havlak7cc, ReusingFinderTest,
                               havlak7cc::Finder);

}  // namespace labtest
