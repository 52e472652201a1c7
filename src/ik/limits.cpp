#include "kinetrack/ik/limits.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"

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

namespace {
// Largest amount by which s leaves [lower, upper] (0 inside; ±infinity bounds never count).
double boxViolation(const VectorXd& lower, const VectorXd& upper, const VectorXd& s) {
  double v = 0.0;
  for (Eigen::Index j = 0; j < lower.size(); ++j) v = std::max({v, lower[j] - s[j], s[j] - upper[j]});
  return v;
}
}  // namespace

void JointLimits::displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const {
  // ±infinity stays infinite; a finite limit becomes the distance to it.
  lb = lower_ - s;
  ub = upper_ - s;
}

double JointLimits::violation(const VectorXd& s) const { return boxViolation(lower_, upper_, s); }

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

// --- per-coordinate bounds ----------------------------------------------------------------------

CoordinateBounds::CoordinateBounds(std::shared_ptr<const Model> model, std::string owner)
    : model_(std::move(model)), owner_(std::move(owner)) {
  if (!model_) throw InvalidArgument(owner_ + ": null model");
  lower_ = VectorXd::Constant(model_->numJoints(), -kInf);
  upper_ = VectorXd::Constant(model_->numJoints(), kInf);
}

void CoordinateBounds::setOne(int j, double lower, double upper, std::string_view where) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper || lower == kInf || upper == -kInf)
    throw InvalidArgument(owner_ + "::" + std::string(where) + ": joint '" + model_->jointName(JointId(j)) +
                          "': bounds [" + std::to_string(lower) + ", " + std::to_string(upper) +
                          "] are not an interval");
  lower_[j] = lower;
  upper_[j] = upper;
}

void CoordinateBounds::free(std::string_view joint) {
  const int j = model_->jointId(joint).value;  // throws, listing the valid names
  lower_[j] = -kInf;
  upper_[j] = kInf;
  ++revision_;
}

void CoordinateBounds::clamp(std::string_view joint) {
  const int j = model_->jointId(joint).value;
  setOne(j, model_->lowerPositionLimits()[j], model_->upperPositionLimits()[j], "clamp");
  ++revision_;
}

void CoordinateBounds::clamp(std::string_view joint, double lower, double upper) {
  const int j = model_->jointId(joint).value;
  setOne(j, lower, upper, "clamp");
  ++revision_;
}

void CoordinateBounds::lock(std::string_view joint, double value) {
  if (!std::isfinite(value))
    throw InvalidArgument(owner_ + "::lock: joint '" + std::string(joint) + "': value " + std::to_string(value) +
                          " is not finite");
  const int j = model_->jointId(joint).value;
  lower_[j] = upper_[j] = value;
  ++revision_;
}

void CoordinateBounds::freeAll() {
  lower_.setConstant(-kInf);
  upper_.setConstant(kInf);
  ++revision_;
}

void CoordinateBounds::clampAll() { set(model_->lowerPositionLimits(), model_->upperPositionLimits()); }

void CoordinateBounds::set(const VectorXd& lower, const VectorXd& upper) {
  const int n = size();
  if (lower.size() != n || upper.size() != n)
    throw InvalidArgument(owner_ + "::set: expected " + std::to_string(n) + " entries, got " +
                          std::to_string(lower.size()) + " and " + std::to_string(upper.size()));
  for (int j = 0; j < n; ++j)  // check every joint before changing any
    if (std::isnan(lower[j]) || std::isnan(upper[j]) || lower[j] > upper[j] || lower[j] == kInf || upper[j] == -kInf)
      setOne(j, lower[j], upper[j], "set");  // throws with the message
  lower_ = lower;
  upper_ = upper;
  ++revision_;
}

bool CoordinateBounds::isFree(JointId j) const { return lower_[j.value] == -kInf && upper_[j.value] == kInf; }

void CoordinateBounds::project(VectorXd& s) const {
  for (Eigen::Index j = 0; j < lower_.size(); ++j) s[j] = std::clamp(s[j], lower_[j], upper_[j]);
}

void CoordinateBounds::displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const {
  lb = lower_ - s;
  ub = upper_ - s;
}

double CoordinateBounds::violation(const VectorXd& s) const { return boxViolation(lower_, upper_, s); }

}  // namespace kinetrack::ik
