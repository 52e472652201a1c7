#include "kinetrack/kinematics/configuration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack {

namespace {
void checkJoints(const Model& model, const Configuration& q, const char* fn) {
  if (q.joints.size() != model.numJoints())
    throw InvalidArgument(std::string(fn) + ": expected " + std::to_string(model.numJoints()) +
                          " joint coordinates, got " + std::to_string(q.joints.size()));
}
}  // namespace

void integrate(const Model& model, const Configuration& q, const Eigen::Ref<const VectorXd>& nu, double dt,
               Configuration& q_out) {
  checkJoints(model, q, "integrate");
  if (nu.size() != model.nv())
    throw InvalidArgument("integrate: expected a velocity of size " + std::to_string(model.nv()) + ", got " +
                          std::to_string(nu.size()));
  const int nb = model.nvBase();
  if (q_out.joints.size() != q.joints.size()) q_out.joints.resize(q.joints.size());
  if (nb == 6) {
    q_out.base_position = q.base_position + dt * nu.head<3>();
    q_out.base_rotation = so3::exp(dt * nu.segment<3>(3)) * q.base_rotation;
  } else {
    q_out.base_position = q.base_position;
    q_out.base_rotation = q.base_rotation;
  }
  q_out.joints = q.joints + dt * nu.tail(model.numJoints());
}

void difference(const Model& model, const Configuration& q0, const Configuration& q1, Eigen::Ref<VectorXd> nu) {
  checkJoints(model, q0, "difference");
  checkJoints(model, q1, "difference");
  if (nu.size() != model.nv())
    throw InvalidArgument("difference: expected an output of size " + std::to_string(model.nv()) + ", got " +
                          std::to_string(nu.size()));
  const int nb = model.nvBase();
  if (nb == 6) {
    nu.head<3>() = q1.base_position - q0.base_position;
    nu.segment<3>(3) = so3::log(q1.base_rotation * q0.base_rotation.transpose());
  }
  nu.tail(model.numJoints()) = q1.joints - q0.joints;
}

Configuration randomConfiguration(const Model& model, std::mt19937_64& rng, const RandomConfigurationOptions& opts) {
  Configuration q(model);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int j = 0; j < model.numJoints(); ++j) {
    const double lower = model.lowerPositionLimits()[j], upper = model.upperPositionLimits()[j];
    const double range = opts.unbounded_range;
    double lo = std::max(lower, -range), hi = std::min(upper, range);
    if (lo > hi) {  // the limits lie outside [−range, range]: a window of 2·range at the finite end
      lo = std::isfinite(lower) ? lower : upper - 2.0 * range;
      hi = std::isfinite(upper) ? upper : lower + 2.0 * range;
    }
    q.joints[j] = lo + (hi - lo) * u(rng);
  }
  if (model.baseType() == BaseType::Floating) {
    std::normal_distribution<double> n(0.0, 1.0);
    const Eigen::Vector4d wxyz = randomVector<4>(n, rng);  // uniform on S³ → uniform on SO(3)
    q.base_rotation = so3::fromQuaternionWxyz(wxyz);
    for (int i = 0; i < 3; ++i) q.base_position[i] = opts.base_box * (2.0 * u(rng) - 1.0);
  }
  return q;
}

double positionLimitViolation(const Model& model, const Configuration& q, JointId* worst) {
  checkJoints(model, q, "positionLimitViolation");
  double v = 0.0;
  for (int j = 0; j < model.numJoints(); ++j) {
    // A NaN coordinate counts as an infinite violation, never as "inside".
    const double e = std::isnan(q.joints[j]) ? std::numeric_limits<double>::infinity()
                                             : std::max(model.lowerPositionLimits()[j] - q.joints[j],
                                                        q.joints[j] - model.upperPositionLimits()[j]);
    if (e > v) {
      v = e;
      if (worst) *worst = JointId(j);
    }
  }
  return v;
}

double linearRowViolation(const LinearConstraint& row, const VectorXd& joints) {
  const double c = row.coefficients.dot(joints);
  return std::max({0.0, row.lower - c, c - row.upper});
}

double linearRowViolation(const Model& model, const Configuration& q) {
  checkJoints(model, q, "linearRowViolation");
  double v = 0.0;
  for (const LinearConstraint& row : model.linearConstraints()) v = std::max(v, linearRowViolation(row, q.joints));
  return v;
}

}  // namespace kinetrack
