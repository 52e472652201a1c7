#include "kinetrack/ik/limits.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/kinematics/configuration.hpp"

namespace kinetrack::ik {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Eq. 12 (see limits.hpp), inlined into the per-joint and per-row loops of the hot path.
[[gnu::always_inline]] inline std::pair<double, double> shaped(double value, double lower, double upper, double vmax,
                                                               const LimitShaping& shaping, double dt) {
  const double k = shaping.gain;
  double lo = -vmax, hi = vmax;  // sides without a position limit
  const double vshape = std::isfinite(vmax) ? vmax : shaping.default_velocity;
  // Discrete guard: inside, a step may not cross the limit; outside (the sign of the tanh bound
  // flips and pushes back in), the push may not exceed what lands on the limit in one step —
  // with a large velocity bound (URDF placeholders of 50000 rad/s) it would throw the joint far
  // across its range.
  if (std::isfinite(lower)) {
    lo = -vshape * std::tanh(k * (value - lower));  // sign flips past the limit: pushes back in
    if (shaping.discrete_safe)
      lo = value >= lower ? std::max(lo, (lower - value) / dt) : std::min(lo, (lower - value) / dt);
  }
  if (std::isfinite(upper)) {
    hi = vshape * std::tanh(k * (upper - value));
    if (shaping.discrete_safe)
      hi = value <= upper ? std::min(hi, (upper - value) / dt) : std::max(hi, (upper - value) / dt);
  }
  if (lo > hi) {  // only when both limits push (state outside an empty or tiny range)
    const double mid = 0.5 * (lo + hi);
    lo = hi = mid;
  }
  return {lo, hi};
}
}  // namespace

std::pair<double, double> shapedVelocityBounds(double value, double lower, double upper, double vmax,
                                               const LimitShaping& shaping, double dt) {
  return shaped(value, lower, upper, vmax, shaping, dt);
}

// --- joints ------------------------------------------------------------------------------------

JointLimits::JointLimits(const Model& model)
    : lower_(model.lowerPositionLimits()),
      upper_(model.upperPositionLimits()),
      velocity_(model.upperVelocityLimits()) {}

void JointLimits::velocityBounds(const VectorXd& s, double dt, const LimitShaping& shaping, bool hard_velocity,
                                 Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const {
  for (Eigen::Index j = 0; j < lower_.size(); ++j) {
    const double vmax = hard_velocity ? velocity_[j] : kInf;
    const auto [lo, hi] = shaped(s[j], lower_[j], upper_[j], vmax, shaping, dt);
    lb[j] = lo;
    ub[j] = hi;
  }
}

void JointLimits::displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const {
  // ±infinity stays infinite; a finite limit becomes the distance to it.
  lb = lower_ - s;
  ub = upper_ - s;
}

double JointLimits::violation(const VectorXd& s) const {
  double v = 0.0;
  for (Eigen::Index j = 0; j < lower_.size(); ++j) v = std::max({v, lower_[j] - s[j], s[j] - upper_[j]});
  return v;
}

// --- rows --------------------------------------------------------------------------------------

RowLimits::RowLimits(const Model& model)
    : rows_(model.linearConstraints()), A_(MatrixXd::Zero(static_cast<Eigen::Index>(rows_.size()), model.nv())) {
  // The rows have constant normals (Eq. 13: G = A); only their bounds change per step.
  for (std::size_t r = 0; r < rows_.size(); ++r)
    A_.row(static_cast<Eigen::Index>(r)).tail(model.numJoints()) = rows_[r].coefficients.transpose();
}

void RowLimits::velocityBounds(const VectorXd& s, double dt, const LimitShaping& shaping, Eigen::Ref<VectorXd> lbA,
                               Eigen::Ref<VectorXd> ubA) const {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const LinearConstraint& row = rows_[r];
    const double c = row.coefficients.dot(s);
    const double bv = std::isfinite(row.velocity_bound) ? row.velocity_bound : shaping.default_velocity;
    auto [lo, hi] = shaped(c, row.lower, row.upper, bv, shaping, dt);
    if (!std::isfinite(row.lower)) lo = -kInf;
    if (!std::isfinite(row.upper)) hi = kInf;
    lbA[static_cast<Eigen::Index>(r)] = lo;
    ubA[static_cast<Eigen::Index>(r)] = hi;
  }
}

void RowLimits::displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lbA, Eigen::Ref<VectorXd> ubA) const {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const LinearConstraint& row = rows_[r];
    const double as = row.coefficients.dot(s);
    lbA[static_cast<Eigen::Index>(r)] = row.lower - as;
    ubA[static_cast<Eigen::Index>(r)] = row.upper - as;
  }
}

double RowLimits::violation(const VectorXd& s) const {
  double v = 0.0;
  for (const LinearConstraint& row : rows_) v = std::max(v, linearRowViolation(row, s));
  return v;
}

// --- base --------------------------------------------------------------------------------------

void BaseVelocityLimit::bounds(int nb, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const {
  for (int c = 0; c < nb; ++c) {
    const double lim = c < 3 ? linear : angular;
    lb[c] = -lim;
    ub[c] = lim;
  }
}

}  // namespace kinetrack::ik
