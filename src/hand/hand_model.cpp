// Planar-digit hand model: forward kinematics and the kinetrack Model (docs/hand.md).
#include "kinetrack/hand/hand_model.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::hand {

const char* digitName(int digit) {
  static constexpr std::array<const char*, kDigits> kNames{"thumb", "index", "middle", "ring", "little"};
  if (digit < 0 || digit >= kDigits) throw InvalidArgument("hand: digit index out of range");
  return kNames[static_cast<std::size_t>(digit)];
}

bool handFrame(const Vector3d& top, const Vector3d& left, const Vector3d& right, Transform& T) {
  if (!top.allFinite() || !left.allFinite() || !right.allFinite()) return false;
  const Vector3d u = left - top, v = right - top;
  const Vector3d n = u.cross(v);
  const double scale = u.norm() * v.norm();
  if (!(n.norm() > 1e-6 * scale) || scale == 0.0) return false;
  const Vector3d z = n.normalized();
  Vector3d x = top - 0.5 * (left + right);
  x -= x.dot(z) * z;
  if (!(x.norm() > 0.0)) return false;
  x.normalize();
  T.R.col(0) = x;
  T.R.col(1) = z.cross(x);
  T.R.col(2) = z;
  T.p = (top + left + right) / 3.0;
  return true;
}

Matrix3d planeRotation(const DigitGeometry& g, double psi) { return Eigen::AngleAxisd(psi, g.axis).toRotationMatrix(); }

double planeAngle(const DigitGeometry& g, const Vector3d& normal) {
  const Vector3d h0 = g.zero.cross(g.flex);
  const Vector3d n = normal - normal.dot(g.axis) * g.axis;
  return std::atan2(g.axis.dot(h0.cross(n)), h0.dot(n));
}

std::array<Vector3d, 4> digitPoints(const DigitGeometry& g, const DigitPose& pose) {
  const Matrix3d R = planeRotation(g, pose.psi);
  const Vector3d a = R * g.zero, b = R * g.flex;
  std::array<Vector3d, 4> p;
  p[0] = g.root;
  double phi = 0.0;
  for (int j = 0; j < 3; ++j) {
    phi += pose.theta[static_cast<std::size_t>(j)];
    p[static_cast<std::size_t>(j) + 1] = p[static_cast<std::size_t>(j)] + g.length[static_cast<std::size_t>(j)] *
                                                                              (std::cos(phi) * a + std::sin(phi) * b);
  }
  return p;
}

Vector3d middleMarker(const DigitGeometry& g, const DigitPose& pose) {
  const Matrix3d R = planeRotation(g, pose.psi);
  const Vector3d a = R * g.zero, b = R * g.flex;
  Vector3d p = g.root;
  double phi = 0.0;
  for (int j = 0; j < g.marker_bone; ++j) {
    phi += pose.theta[static_cast<std::size_t>(j)];
    p += g.length[static_cast<std::size_t>(j)] * (std::cos(phi) * a + std::sin(phi) * b);
  }
  phi += pose.theta[static_cast<std::size_t>(g.marker_bone)];
  const Vector3d d = std::cos(phi) * a + std::sin(phi) * b;
  const Vector3d e = -std::sin(phi) * a + std::cos(phi) * b;
  return p + g.marker_along * d + g.marker_offset * e;
}

namespace {
double excess(double x, const std::array<double, 2>& range) { return std::max({0.0, range[0] - x, x - range[1]}); }
}  // namespace

double rangeViolation(const DigitGeometry& g, const DigitPose& pose) {
  double v = excess(pose.psi, g.psi_range);
  for (std::size_t j = 0; j < 3; ++j) v = std::max(v, excess(pose.theta[j], g.flex_range[j]));
  return v;
}

std::string jointName(int digit, int k) {
  if (k < 0 || k > 3) throw InvalidArgument("hand::jointName: k must be 0 … 3");
  return std::string(digitName(digit)) + (k == 0 ? "_plane" : "_flex" + std::to_string(k));
}

Model buildHandModel(const HandGeometry& geometry, const std::string& name) {
  ModelBuilder b(name, "hand");
  static constexpr std::array<const char*, 3> kTriad{"hand_top", "hand_left", "hand_right"};
  for (std::size_t i = 0; i < 3; ++i) {
    Transform T;
    T.p = geometry.triad[i];
    b.addFrame(kTriad[i], "hand", T);
  }
  for (int d = 0; d < kDigits; ++d) {
    const DigitGeometry& g = geometry.digits[static_cast<std::size_t>(d)];
    const std::string dn = digitName(d);
    const Vector3d hinge = g.zero.cross(g.flex).normalized();
    JointSpec plane;
    plane.name = jointName(d, 0);
    plane.parent = "hand";
    plane.child = dn + "_plane";
    plane.placement.p = g.root;
    plane.axis = g.axis;
    plane.lower = g.psi_range[0];
    plane.upper = g.psi_range[1];
    b.addJoint(plane);
    static constexpr std::array<const char*, 3> kBones{"_bone1", "_bone2", "_bone3"};
    std::string parent = plane.child;
    for (int j = 0; j < 3; ++j) {
      const auto js = static_cast<std::size_t>(j);
      JointSpec s;
      s.name = jointName(d, j + 1);
      s.parent = parent;
      s.child = dn + kBones[js];
      if (j > 0) s.placement.p = g.length[js - 1] * g.zero;
      s.axis = hinge;
      s.lower = g.flex_range[js][0];
      s.upper = g.flex_range[js][1];
      b.addJoint(s);
      parent = s.child;
    }
    Transform tip;
    tip.p = g.length[2] * g.zero;
    b.addFrame(dn + "_tip", dn + kBones[2], tip);
    Transform mid;
    mid.p = g.marker_along * g.zero + g.marker_offset * g.flex;
    b.addFrame(dn + "_middle", dn + kBones[static_cast<std::size_t>(g.marker_bone)], mid);
  }
  return b.build();
}

}  // namespace kinetrack::hand
