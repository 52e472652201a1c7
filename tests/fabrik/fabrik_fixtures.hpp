#pragma once
// Small skeletons for the FABRIK tests: straight chains, a "hand" (wrist, palm sub-base, five
// four-bone fingers) and random poses of a tree.
#include <cmath>
#include <random>
#include <vector>

#include "kinetrack/core/random.hpp"
#include "kinetrack/fabrik/fabrik.hpp"

namespace kinetrack::fabrik::test {

inline std::vector<int> chainParents(int n) {
  std::vector<int> parents(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) parents[static_cast<std::size_t>(j)] = j - 1;
  return parents;
}

/// n bones of length `bone` along +z from the origin ((3 × n+1) positions).
inline Matrix3Xd straightChain(int n, double bone) {
  Matrix3Xd p(3, n + 1);
  for (int j = 0; j <= n; ++j) p.col(j) = Vector3d(0.0, 0.0, bone * j);
  return p;
}

inline bool boneLengthsHold(const Skeleton& sk, const Eigen::Ref<const Matrix3Xd>& p, double rel) {
  for (int j = 1; j < sk.size(); ++j) {
    const double d = (p.col(j) - p.col(sk.parent(j))).norm();
    if (std::abs(d - sk.length(j)) > rel * sk.length(j)) return false;
  }
  return true;
}

struct Hand {
  Skeleton skeleton;
  Matrix3Xd rest;
  std::vector<int> tips;
};

/// Joint 0 wrist, 1 palm (sub-base), then per finger f: knuckle, PIP, DIP, tip.
inline Hand makeHand() {
  std::vector<int> parents = {-1, 0};
  std::vector<Vector3d> pts = {Vector3d::Zero(), Vector3d(0.0, 0.0, 0.08)};
  std::vector<int> tips;
  const double lengths[4] = {0.03, 0.04, 0.025, 0.02};
  for (int f = 0; f < 5; ++f) {
    const double a = -0.5 + 0.25 * f;
    const Vector3d dir(std::sin(a), 0.0, std::cos(a));
    int parent = 1;
    Vector3d at = pts[1];
    for (double len : lengths) {
      at += len * dir;
      parents.push_back(parent);
      pts.push_back(at);
      parent = static_cast<int>(pts.size()) - 1;
    }
    tips.push_back(parent);
  }
  Matrix3Xd rest(3, static_cast<Eigen::Index>(pts.size()));
  for (std::size_t j = 0; j < pts.size(); ++j) rest.col(static_cast<Eigen::Index>(j)) = pts[j];
  return {Skeleton(parents, rest), rest, tips};
}

/// Perturbs every bone direction of `pose` (parents first), keeping the bone lengths.
inline void randomPose(const Skeleton& sk, Matrix3Xd& pose, std::mt19937& rng, double sigma) {
  std::normal_distribution<double> n(0.0, sigma);
  const Matrix3Xd old = pose;
  for (int j = 1; j < sk.size(); ++j) {
    const int par = sk.parent(j);
    const Vector3d d = (old.col(j) - old.col(par)).normalized() + randomVector3(n, rng);
    pose.col(j) = pose.col(par) + sk.length(j) * d.normalized();
  }
}

}  // namespace kinetrack::fabrik::test
