#include "kinetrack/metrics/tracking.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::metrics {
namespace KINETRACK_UNITY_ID {

TEST(Metrics, NormalizedTraceErrorHandMadeCases) {
  const Matrix3d I = Matrix3d::Identity();
  EXPECT_DOUBLE_EQ(normalizedTraceError(I, I), 0.0);
  // π about any axis: ½ tr(I − R) = ½ (3 − (−1)) = 2.
  EXPECT_NEAR(normalizedTraceError(I, so3::exp(Vector3d(0, 0, M_PI))), 2.0, 1e-15);
  // 90° about x: tr R = 1 → ½(3 − 1) = 1 = 1 − cos 90°.
  EXPECT_NEAR(normalizedTraceError(I, so3::exp(Vector3d(M_PI / 2, 0, 0))), 1.0, 1e-15);
  // Relative: only hᵀR matters.
  const Matrix3d h = so3::exp(Vector3d(0.3, -0.2, 0.5));
  EXPECT_NEAR(normalizedTraceError(h, h * so3::exp(Vector3d(0, 0.4, 0))), 1.0 - std::cos(0.4), 1e-15);
}

TEST(Metrics, MnteIsTheMeanAndChecksSizes) {
  const Matrix3d I = Matrix3d::Identity();
  const std::vector<Matrix3d> h = {I, I, I};
  const std::vector<Matrix3d> R = {I, so3::exp(Vector3d(0, 0, M_PI)), so3::exp(Vector3d(M_PI / 2, 0, 0))};
  EXPECT_NEAR(mnte(h, R), (0.0 + 2.0 + 1.0) / 3.0, 1e-15);
  EXPECT_EQ(mnte({}, {}), 0.0);
  EXPECT_THROW(mnte(h, {I}), InvalidArgument);
}

TEST(Metrics, AngularVelocityRmseHandMade) {
  // Two targets: errors (3,0,0) and (0,0,0): sqrt((9/3 + 0) / 2) = sqrt(1.5).
  EXPECT_NEAR(angularVelocityRmse({Vector3d(3, 0, 0), Vector3d(1, 1, 1)}, {Vector3d::Zero(), Vector3d(1, 1, 1)}),
              std::sqrt(1.5), 1e-15);
  EXPECT_THROW(angularVelocityRmse({Vector3d::Zero()}, {}), InvalidArgument);
}

TEST(Metrics, SummaryPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 0; --i) v.push_back(i);
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 101u);
  EXPECT_DOUBLE_EQ(s.median, 50.0);
  EXPECT_DOUBLE_EQ(s.p95, 95.0);
  EXPECT_DOUBLE_EQ(s.p99, 99.0);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  EXPECT_DOUBLE_EQ(s.mean, 50.0);
  EXPECT_EQ(summarize({}).count, 0u);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::metrics
