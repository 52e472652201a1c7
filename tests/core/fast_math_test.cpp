#include "kinetrack/core/fast_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

TEST(FastMath, SincosBatchMatchesLibmToTwoUlpOfOne) {
  std::mt19937_64 rng(11);
  for (double range : {1e-8, 1.0, M_PI, 20.0, 1e3, 1e5}) {
    std::uniform_real_distribution<double> u(-range, range);
    std::vector<double> x(20000), s(x.size()), c(x.size());
    for (auto& v : x) v = u(rng);
    sincosBatch(x.data(), s.data(), c.data(), static_cast<int>(x.size()));
    double err = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
      err = std::max({err, std::abs(s[i] - std::sin(x[i])), std::abs(c[i] - std::cos(x[i]))});
    EXPECT_LE(err, 4.5e-16) << "range " << range;
  }
}

TEST(FastMath, SincosBatchQuadrantBoundariesAndSpecialValues) {
  std::vector<double> x;
  for (int k = -8; k <= 8; ++k)
    for (double d : {-1e-12, 0.0, 1e-12}) x.push_back(k * M_PI / 4 + d);
  const double inf = std::numeric_limits<double>::infinity();
  x.insert(x.end(), {0.0, -0.0, 1e6, -3e7, std::nan(""), inf, -inf});
  std::vector<double> s(x.size()), c(x.size());
  sincosBatch(x.data(), s.data(), c.data(), static_cast<int>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i])) {
      EXPECT_NEAR(s[i], std::sin(x[i]), 4.5e-16) << x[i];
      EXPECT_NEAR(c[i], std::cos(x[i]), 4.5e-16) << x[i];
    } else {
      EXPECT_TRUE(std::isnan(s[i]) && std::isnan(c[i])) << x[i];
    }
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
