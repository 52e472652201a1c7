#include "kinetrack/metrics/tracking.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::metrics {

double normalizedTraceError(const Matrix3d& h, const Matrix3d& R) {
  // tr(hᵀR) = Σ_ij h_ij R_ij
  // Clamped: round-off would otherwise give −1e-16 at a perfect match.
  return std::clamp(0.5 * (3.0 - h.cwiseProduct(R).sum()), 0.0, 2.0);
}

double mnte(const std::vector<Matrix3d>& h, const std::vector<Matrix3d>& R) {
  if (h.size() != R.size())
    throw InvalidArgument("mnte: " + std::to_string(h.size()) + " model orientations but " + std::to_string(R.size()) +
                          " targets");
  if (h.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t j = 0; j < h.size(); ++j) sum += normalizedTraceError(h[j], R[j]);
  return sum / static_cast<double>(h.size());
}

double angularVelocityRmse(const std::vector<Vector3d>& target, const std::vector<Vector3d>& estimated) {
  if (target.size() != estimated.size())
    throw InvalidArgument("angularVelocityRmse: " + std::to_string(target.size()) + " targets but " +
                          std::to_string(estimated.size()) + " estimates");
  if (target.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t j = 0; j < target.size(); ++j) sum += (target[j] - estimated[j]).squaredNorm() / 3.0;
  return std::sqrt(sum / static_cast<double>(target.size()));
}

Summary summarize(std::vector<double> v) {
  Summary s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto pct = [&](double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    const double f = pos - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1.0 - f) + v[i + 1] * f : v[i];
  };
  s.median = pct(0.5);
  s.p95 = pct(0.95);
  s.p99 = pct(0.99);
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

}  // namespace kinetrack::metrics
