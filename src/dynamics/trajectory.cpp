#include "kinetrack/dynamics/trajectory.hpp"

#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/configuration.hpp"

namespace kinetrack {

TrajectoryDerivatives differentiate(const Model& model, const std::vector<Configuration>& q,
                                    const std::vector<double>& t, std::span<const std::uint8_t> gap) {
  const std::size_t n = q.size();
  if (n < 3) throw InvalidArgument("differentiate: need at least 3 frames, got " + std::to_string(n));
  if (t.size() != n)
    throw InvalidArgument("differentiate: " + std::to_string(n) + " configurations but " + std::to_string(t.size()) +
                          " times");
  if (!gap.empty() && gap.size() != n)
    throw InvalidArgument("differentiate: " + std::to_string(gap.size()) + " gap flags for " + std::to_string(n) +
                          " frames");
  for (std::size_t k = 1; k < n; ++k)
    if (!(t[k] > t[k - 1]) || !std::isfinite(t[k]))
      throw InvalidArgument("differentiate: time " + std::to_string(t[k]) + " s at frame " + std::to_string(k) +
                            " does not increase");
  const int nv = model.nv();
  // Forward chords (q_{k+1} ⊖ q_k)/(t_{k+1} − t_k), k = 0 … n−2.
  std::vector<VectorXd> chord(n - 1, VectorXd(nv));
  for (std::size_t k = 0; k + 1 < n; ++k) {
    difference(model, q[k], q[k + 1], chord[k]);
    chord[k] /= t[k + 1] - t[k];
  }
  TrajectoryDerivatives d;
  d.velocity.assign(n, VectorXd::Zero(nv));
  d.acceleration.assign(n, VectorXd::Zero(nv));
  d.valid.assign(n, 1);
  VectorXd span(nv);
  for (std::size_t k = 1; k + 1 < n; ++k) {
    difference(model, q[k - 1], q[k + 1], span);
    d.velocity[k] = span / (t[k + 1] - t[k - 1]);
    d.acceleration[k] = 2.0 * (chord[k] - chord[k - 1]) / (t[k + 1] - t[k - 1]);
  }
  d.velocity[0] = chord[0];
  d.velocity[n - 1] = chord[n - 2];
  d.acceleration[0] = d.acceleration[1];
  d.acceleration[n - 1] = d.acceleration[n - 2];
  if (!gap.empty())
    for (std::size_t k = 0; k < n; ++k)
      if (gap[k])
        for (std::size_t j = k > 1 ? k - 2 : 0; j <= std::min(n - 1, k + 2); ++j) d.valid[j] = 0;
  return d;
}

std::vector<VectorXd> inverseDynamics(const Model& model, const std::vector<Configuration>& q,
                                      const TrajectoryDerivatives& derivatives, const Vector3d& gravity) {
  if (derivatives.velocity.size() != q.size() || derivatives.acceleration.size() != q.size() ||
      derivatives.valid.size() != q.size())
    throw InvalidArgument("inverseDynamics: derivatives of " + std::to_string(derivatives.velocity.size()) +
                          " frames for " + std::to_string(q.size()) + " configurations");
  DynamicsData data(model);
  std::vector<VectorXd> tau(q.size(), VectorXd::Zero(model.nv()));
  for (std::size_t k = 0; k < q.size(); ++k)
    if (derivatives.valid[k])
      tau[k] = rnea(model, data, q[k], derivatives.velocity[k], derivatives.acceleration[k], {}, gravity);
  return tau;
}

}  // namespace kinetrack
