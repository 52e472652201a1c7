#pragma once
// Random vectors with a fixed drawing order. C++ leaves the evaluation order of a call's arguments
// unspecified: `Vector3d(d(g), d(g), d(g))` draws z first with g++ and x first with clang, so one
// seed gave the two compilers different data (and clang builds of the suite other scenarios).
// randomVector draws the last component first, the order g++ used, in which every figure recorded
// so far was made; call sites that mix draws and arithmetic draw into a vector first.
#include <Eigen/Core>

namespace kinetrack {

/// N draws of dist from gen, the last component drawn first.
template <int N, class Dist, class Gen>
Eigen::Matrix<double, N, 1> randomVector(Dist& dist, Gen& gen) {
  Eigen::Matrix<double, N, 1> v;
  for (int i = N - 1; i >= 0; --i) v[i] = dist(gen);
  return v;
}

/// randomVector<3>: three draws of dist from gen, z first.
template <class Dist, class Gen>
Eigen::Vector3d randomVector3(Dist& dist, Gen& gen) {
  return randomVector<3>(dist, gen);
}

}  // namespace kinetrack
