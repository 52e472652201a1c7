// Skeleton: the joint tree, its bone lengths, constraints and couplings (input validation only).
#include <Eigen/LU>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/fabrik/fabrik.hpp"

namespace kinetrack::fabrik {

Skeleton::Skeleton(std::vector<int> parents, const Eigen::Ref<const Matrix3Xd>& rest) : parent_(std::move(parents)) {
  const int n = static_cast<int>(parent_.size());
  if (n < 2) throw InvalidArgument("fabrik::Skeleton: expected at least 2 joints, got " + std::to_string(n));
  if (rest.cols() != n) {
    throw InvalidArgument("fabrik::Skeleton: expected " + std::to_string(n) + " rest positions, got " +
                          std::to_string(rest.cols()));
  }
  if (parent_[0] != -1) throw InvalidArgument("fabrik::Skeleton: joint 0 must be the root (parent -1)");
  length_.assign(static_cast<std::size_t>(n), 0.0);
  for (int j = 1; j < n; ++j) {
    const int p = parent_[static_cast<std::size_t>(j)];
    if (p < 0 || p >= j) {
      throw InvalidArgument("fabrik::Skeleton: joint " + std::to_string(j) + ": parent " + std::to_string(p) +
                            " must be in [0, " + std::to_string(j) + ")");
    }
    const double d = (rest.col(j) - rest.col(p)).norm();
    if (!(d > 0.0) || !std::isfinite(d)) {
      throw InvalidArgument("fabrik::Skeleton: joint " + std::to_string(j) + ": zero or non-finite bone length");
    }
    length_[static_cast<std::size_t>(j)] = d;
  }
  constraint_.assign(static_cast<std::size_t>(n), JointConstraint{});
  coupling_.assign(static_cast<std::size_t>(n), 0.0);
  cone_cos_.assign(static_cast<std::size_t>(n), -1.0);
}

void Skeleton::checkJoint(int j) const {
  if (j < 1 || j >= size()) {
    throw InvalidArgument("fabrik::Skeleton: joint " + std::to_string(j) + " out of range [1, " +
                          std::to_string(size()) + ")");
  }
}

void Skeleton::setConstraint(int j, const JointConstraint& c) {
  checkJoint(j);
  JointConstraint k = c;
  const std::string who = "fabrik::Skeleton: joint " + std::to_string(j) + ": ";
  if ((k.R_offset.transpose() * k.R_offset - Matrix3d::Identity()).norm() > 1e-9 || k.R_offset.determinant() < 0) {
    throw InvalidArgument(who + "R_offset is not a rotation");
  }
  if (k.type == ConstraintType::Hinge) {
    const double a = k.hinge_axis.norm();
    if (!(a > 0.0) || std::abs(k.hinge_axis.z()) > 1e-9 * a) {
      throw InvalidArgument(who + "hinge axis must be non-zero and perpendicular to the constraint frame's z");
    }
    k.hinge_axis /= a;
    if (!(k.min_angle <= k.max_angle) || k.min_angle < -kPi || k.max_angle > kPi) {
      throw InvalidArgument(who + "hinge range must satisfy -pi <= min <= max <= pi");
    }
  }
  if (k.type == ConstraintType::Ball) {
    if (!(k.cone_angle >= 0.0 && k.cone_angle <= kPi)) throw InvalidArgument(who + "cone angle must be in [0, pi]");
    if (!(k.min_twist <= k.max_twist) || k.min_twist < -kPi || k.max_twist > kPi) {
      throw InvalidArgument(who + "twist range must satisfy -pi <= min <= max <= pi");
    }
  }
  constraint_[static_cast<std::size_t>(j)] = k;
  cone_cos_[static_cast<std::size_t>(j)] = std::cos(k.cone_angle);
}

void Skeleton::setCoupling(int distal, double k) {
  checkJoint(distal);
  const int p = parent(distal);
  const std::string who = "fabrik::Skeleton: coupling of joint " + std::to_string(distal) + ": ";
  if (p < 1 || constraint(distal).type != ConstraintType::Hinge || constraint(p).type != ConstraintType::Hinge) {
    throw InvalidArgument(who + "the joint and its parent must both be hinges");
  }
  if (!(k != 0.0) || !std::isfinite(k)) throw InvalidArgument(who + "k must be finite and non-zero");
  JointConstraint& cp = constraint_[static_cast<std::size_t>(p)];
  const JointConstraint& cd = constraint(distal);
  double lo = cd.min_angle / k, hi = cd.max_angle / k;
  if (k < 0) std::swap(lo, hi);
  lo = std::max(lo, cp.min_angle);
  hi = std::min(hi, cp.max_angle);
  if (lo > hi) throw InvalidArgument(who + "no proximal angle maps into the distal range");
  cp.min_angle = lo;
  cp.max_angle = hi;
  coupling_[static_cast<std::size_t>(distal)] = k;
}

}  // namespace kinetrack::fabrik
