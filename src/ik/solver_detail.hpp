#pragma once
// Pieces shared by the per-frame solvers of kinetrack::ik (InstantaneousIk and its problem,
// PairwiseIk), private to the library.
#include <cmath>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"

namespace kinetrack::detail {

/// Throws InvalidArgument for invalid InstantaneousIkOptions (instantaneous_ik.cpp).
void validateOptions(const InstantaneousIkOptions& options);

/// Angle θ of an error rotation E = R_target·R_actualᵀ and 1 − cos θ, the MNTE term (DYN
/// Eq. 15). θ from both sin θ = |vee(E)| and cos θ = (tr E − 1)/2 is accurate at every angle;
/// 1 − cos θ = 2 sin²(θ/2) avoids the cancellation of ½(3 − tr E) near θ = 0.
struct RotationError {
  double theta, one_minus_cos;
};
inline RotationError rotationError(const Vector3d& sin_axis, double trace) {
  const double theta = std::atan2(sin_axis.norm(), 0.5 * (trace - 1.0));
  const double s = std::sin(0.5 * theta);
  return {theta, 2.0 * s * s};
}

}  // namespace kinetrack::detail
