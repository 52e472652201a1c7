#pragma once
// Reference motions for the dynamics filter's tests (tests/dynamics/dynamics_filter*_test.cpp):
// human66 standing on its soles, swaying with sines.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/dynamics/dynamics_filter.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::testing {

/// The zero pose with the knees bent (straight knees make the welded feet's constraints
/// singular), standing with its soles on z = 0.
inline Configuration standing(const Model& m, const std::vector<ContactBody>& feet) {
  Configuration q(m);
  for (const char* side : {"Right", "Left"}) {
    q.joints[m.jointId(std::string("j") + side + "Hip_roty").value] = -0.25;
    q.joints[m.jointId(std::string("j") + side + "Knee_roty").value] = 0.5;
    q.joints[m.jointId(std::string("j") + side + "Ankle_roty").value] = -0.25;
  }
  Data d(m);
  forwardKinematics(m, d, q);
  double lowest = 1e9;
  for (const ContactBody& b : feet)
    for (const Vector3d& p : b.points) {
      const Transform& X = d.link[static_cast<std::size_t>(b.link.value)];
      lowest = std::min(lowest, (X.p + X.R * p).z());
    }
  q.base_position.z() = -lowest;
  return q;
}

/// A reference around `q0`: every joint and the base sway with sines of `amplitude` (rad, and
/// amplitude/10 m for the base position), frequencies 0.5–1.5 Hz, n frames `dt` apart.
inline std::vector<Configuration> swaying(const Model& m, const Configuration& q0, int n, double dt, double amplitude,
                                          unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> freq(0.5, 1.5), phase(0.0, 2.0 * M_PI);
  VectorXd f(m.nv()), ph(m.nv());
  for (int i = 0; i < m.nv(); ++i) f[i] = freq(rng), ph[i] = phase(rng);
  std::vector<Configuration> q(static_cast<std::size_t>(n), q0);
  for (int k = 0; k < n; ++k) {
    VectorXd delta(m.nv());
    for (int i = 0; i < m.nv(); ++i) delta[i] = amplitude * std::sin(2.0 * M_PI * f[i] * k * dt + ph[i]);
    delta.head<3>() *= 0.1;
    integrate(m, q0, delta, 1.0, q[static_cast<std::size_t>(k)]);
  }
  return q;
}

inline std::vector<double> times(int n, double dt) {
  std::vector<double> t(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) t[static_cast<std::size_t>(k)] = k * dt;
  return t;
}

}  // namespace kinetrack::testing
