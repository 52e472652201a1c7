#pragma once
// Synthetic 25-DoF upper bodies for the prior tests: a human-like skeleton (ball joints as three
// intersecting orthogonal axes, T-pose at zero) and a generic one (random axes and points).
#include <array>
#include <random>
#include <vector>

#include <Eigen/Geometry>

#include "kinetrack/core/random.hpp"
#include "kinetrack/prior/upper_body.hpp"

namespace kinetrack::prior::testing {

struct SyntheticBody {
  std::array<std::vector<JointAxis>, 2> axes;
  std::array<Transform, 2> hands;
};

/// Human-like: lumbar at 0.1 m, shoulders 0.2 m apart, 0.3 m arms, T-pose at zero. With `seed`
/// ≠ 0 every axis direction and point is perturbed randomly (a generic chain).
inline SyntheticBody syntheticBody(unsigned seed = 0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  auto jitter = [&](const Vector3d& v, double s) { return seed == 0 ? v : Vector3d(v + s * randomVector3(n, rng)); };
  auto dir = [&](const Vector3d& v) { return Vector3d(jitter(v, 0.3).normalized()); };
  SyntheticBody b;
  const Vector3d lumbar = jitter(Vector3d(0, 0, 0.1), 0.02);
  std::vector<JointAxis> torso = {
      {lumbar, dir(Vector3d::UnitX())}, {lumbar, dir(Vector3d::UnitY())}, {lumbar, dir(Vector3d::UnitZ())}};
  for (int s = 0; s < 2; ++s) {
    const double y = s == 0 ? -1.0 : 1.0;
    const Vector3d sc = jitter(Vector3d(0.02, 0.03 * y, 0.45), 0.02), gh = jitter(Vector3d(0, 0.18 * y, 0.47), 0.02);
    const Vector3d el = jitter(Vector3d(0, 0.48 * y, 0.47), 0.02), wr = jitter(Vector3d(0, 0.74 * y, 0.47), 0.02);
    auto& a = b.axes[static_cast<std::size_t>(s)];
    a = torso;
    for (const Vector3d& c : {sc, gh}) {
      a.push_back({c, dir(Vector3d::UnitX())});
      a.push_back({c, dir(Vector3d(0, 0, y))});
      a.push_back({c, dir(Vector3d(0, y, 0))});
    }
    a.push_back({el, dir(Vector3d::UnitZ())});
    a.push_back({el, dir(Vector3d::UnitX())});
    a.push_back({el, dir(Vector3d(0, y, 0))});
    a.push_back({wr, dir(Vector3d::UnitZ())});
    a.push_back({wr, dir(Vector3d::UnitX())});
    b.hands[static_cast<std::size_t>(s)].p = jitter(wr + Vector3d(0, 0.05 * y, 0), 0.01);
    b.hands[static_cast<std::size_t>(s)].R =
        Eigen::AngleAxisd(seed == 0 ? 0.0 : n(rng), jitter(Vector3d::UnitZ(), 0.5).normalized()).toRotationMatrix();
  }
  return b;
}

}  // namespace kinetrack::prior::testing
