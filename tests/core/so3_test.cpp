#include "kinetrack/core/so3.hpp"
#include "kinetrack/core/random.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

TEST(So3, ExpLogRoundTripIncludingNearZeroAndNearPi) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n(0.0, 1.0);
  for (double angle : {0.0, 1e-12, 1e-6, 1e-3, 0.5, 2.0, 3.0, M_PI - 1e-4, M_PI - 1e-9}) {
    for (int i = 0; i < 50; ++i) {
      const Vector3d axis = randomVector3(n, rng).normalized();
      const Vector3d w = angle * axis;
      const Matrix3d R = so3::exp(w);
      EXPECT_LT((R.transpose() * R - Matrix3d::Identity()).norm(), 1e-14);
      const Vector3d w2 = so3::log(R);
      EXPECT_LT((so3::exp(w2) - R).norm(), 1e-12) << "angle " << angle;
      if (angle < M_PI - 1e-6) {
        EXPECT_LT((w2 - w).norm(), 1e-10 * std::max(1.0, angle)) << "angle " << angle;
      }
    }
  }
}

TEST(So3, LogAtExactlyPiGivesAnAxisOfLengthPi) {
  for (int k = 0; k < 3; ++k) {
    const Matrix3d R = so3::exp(M_PI * Vector3d::Unit(k));
    const Vector3d w = so3::log(R);
    EXPECT_NEAR(w.norm(), M_PI, 1e-12);
    EXPECT_LT((so3::exp(w) - R).norm(), 1e-12);
  }
}

TEST(So3, SkewAndVee) {
  const Vector3d a(1, -2, 3), b(0.5, 4, -1);
  EXPECT_LT((so3::skew(a) * b - a.cross(b)).norm(), 1e-15);
  EXPECT_LT((so3::vee(so3::skew(a)) - a).norm(), 1e-15);
}

TEST(So3, RpyAndQuaternionRoundTrips) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int i = 0; i < 200; ++i) {
    const Vector3d rpy = randomVector3(u, rng).cwiseProduct(Vector3d(1.0, 0.5, 1.0));
    const Matrix3d R = so3::fromRpy(rpy);
    EXPECT_LT((so3::fromRpy(so3::toRpy(R)) - R).norm(), 1e-14);
    EXPECT_LT((so3::fromQuaternionWxyz(so3::toQuaternionWxyz(R)) - R).norm(), 1e-14);
  }
  // Gimbal lock: pitch = ±π/2.
  const Matrix3d R = so3::fromRpy(Vector3d(0.3, M_PI / 2, -0.2));
  EXPECT_LT((so3::fromRpy(so3::toRpy(R)) - R).norm(), 1e-14);
  EXPECT_THROW(so3::fromQuaternionWxyz(Eigen::Vector4d::Zero()), std::invalid_argument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
