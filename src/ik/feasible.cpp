#include "kinetrack/ik/feasible.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/qp/qp.hpp"

namespace kinetrack {

Configuration nearestFeasible(const Model& model, const Configuration& q) {
  const int n = model.numJoints();
  if (q.joints.size() != n)
    throw InvalidArgument("nearestFeasible: expected " + std::to_string(n) + " joint coordinates");
  const auto& rows = model.linearConstraints();
  const int m = static_cast<int>(rows.size());
  const VectorXd& lo = model.lowerPositionLimits();
  const VectorXd& hi = model.upperPositionLimits();
  if (n == 0 || (positionLimitViolation(model, q) == 0.0 && linearRowViolation(model, q) == 0.0)) return q;
  qp::Problem p(n, m);
  p.H.setIdentity();
  p.g = -q.joints;
  p.lb = lo;
  p.ub = hi;
  for (int r = 0; r < m; ++r) {
    p.A.row(r) = rows[static_cast<std::size_t>(r)].coefficients.transpose();
    p.lbA[r] = rows[static_cast<std::size_t>(r)].lower;
    p.ubA[r] = rows[static_cast<std::size_t>(r)].upper;
  }
  qp::Solver solver(n, m);
  VectorXd s = q.joints.cwiseMax(lo).cwiseMin(hi);
  const qp::Result res = solver.solve(p, s);
  if (res.status != qp::Status::Optimal)
    throw InvalidArgument(std::string("nearestFeasible: the joint limits and linear rows of '") + model.name() +
                          "' admit no configuration (" + qp::toString(res.status) + ")");
  Configuration out = q;
  out.joints.swap(s);
  return out;
}

}  // namespace kinetrack
