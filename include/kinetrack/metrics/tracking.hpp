#pragma once
// Tracking accuracy metrics of the DYN paper §5 and timing statistics.
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::metrics {

/// Normalised trace error of one orientation: ½ tr(I − hᵀR) ∈ [0, 2]; 0 when h = R, 2 at a
/// rotation by π. Equals 1 − cos(θ) for the angle θ between h and R.
double normalizedTraceError(const Matrix3d& h, const Matrix3d& R);

/// MNTE (DYN Eq. 15): mean of normalizedTraceError over n_o orientation pairs (0 for none).
double mnte(const std::vector<Matrix3d>& model_orientations, const std::vector<Matrix3d>& target_orientations);

/// Angular-velocity RMSE (DYN Eq. 16): sqrt((1/n_o) Σ ‖ω_j − ω̂_j‖² / 3) in rad/s.
double angularVelocityRmse(const std::vector<Vector3d>& target, const std::vector<Vector3d>& estimated);

/// Order statistics of a sample (e.g. per-step times); all 0 for an empty sample.
struct Summary {
  double median = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
  std::size_t count = 0;
};
/// Percentiles by linear interpolation between order statistics. Copies the sample.
Summary summarize(std::vector<double> values);

}  // namespace kinetrack::metrics
