// Wrapping of one straight segment over a cylinder, sphere or ellipsoid (wrapping.hpp).
#include "wrapping.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>

namespace kinetrack::muscles::detail {
namespace {

using Vector2d = Eigen::Vector2d;
using Matrix2d = Eigen::Matrix2d;
using Matrix32d = Eigen::Matrix<double, 3, 2>;

double cross2(const Vector2d& a, const Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

// Tangent point of the unit circle seen from a (|a| > 1): sign +1 gives cross(a, T) > 0.
Vector2d tangent(const Vector2d& a, double sign) {
  const double n2 = a.squaredNorm();
  const double k = std::sqrt(n2 - 1.0);
  return (a + sign * k * Vector2d(-a.y(), a.x())) / n2;
}

// Length of the curve L·(cos φ, sin φ) for φ from φ0 over Δφ (signed).
double arcLength(const Matrix2d& L, bool circle, double phi0, double dphi) {
  if (circle) return L(0, 0) * std::abs(dphi);
  constexpr int n = 32;  // composite Simpson; the integrand is smooth and periodic
  const double h = dphi / n;
  double sum = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double phi = phi0 + k * h;
    const double w = (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0);
    sum += w * (L * Vector2d(-std::sin(phi), std::cos(phi))).norm();
  }
  return std::abs(h) / 3.0 * sum;
}

struct Planar {
  bool wrapped = false;
  Vector2d t1, t2;  // tangent points in the plane (real coordinates)
  double arc = 0.0;
};

// Wrap p–s (plane coordinates) over the curve {L c : |c| = 1}. `embed` maps plane points to the
// wrap frame for the quadrant rule.
Planar wrapPlanar(const Vector2d& p, const Vector2d& s, const Matrix2d& L, bool circle, const Matrix32d& E, int axis,
                  int sign) {
  Planar out;
  const Matrix2d Linv = L.inverse();
  const Vector2d pw = Linv * p, sw = Linv * s;
  if (pw.squaredNorm() <= 1.0 || sw.squaredNorm() <= 1.0) return out;
  // Closest point of the segment to the centre (unit-circle coordinates).
  const Vector2d d = sw - pw;
  const double t = std::clamp(-pw.dot(d) / d.squaredNorm(), 0.0, 1.0);
  const Vector2d closest = pw + t * d;
  const bool crosses = closest.squaredNorm() < 1.0;
  bool forced = false;
  if (axis >= 0) {
    const double c = (E * (L * closest))(axis);
    forced = c * sign < 0.0;
  }
  if (!crosses && !forced) return out;

  // Both sides: counter-clockwise (+1) and clockwise (−1).
  double best = std::numeric_limits<double>::infinity();
  for (const double dir : {1.0, -1.0}) {
    const Vector2d a = tangent(pw, dir), b = tangent(sw, -dir);
    double dphi = std::atan2(dir * cross2(a, b), a.dot(b));
    if (dphi < 0.0) dphi += 2.0 * std::numbers::pi;
    const double phi0 = std::atan2(a.y(), a.x());
    const double arc = arcLength(L, circle, phi0, dir * dphi);
    const Vector2d A = L * a, B = L * b;
    if (axis >= 0) {
      const double mid = phi0 + dir * dphi / 2.0;
      const double c = (E * (L * Vector2d(std::cos(mid), std::sin(mid))))(axis);
      if (c * sign < 0.0) continue;
    }
    const double total = (A - p).norm() + arc + (s - B).norm();
    if (total < best) {
      best = total;
      out = {true, A, B, arc};
    }
  }
  return out;
}

}  // namespace

WrapResult wrapSegment(const io::OpenSimWrapObject& object, const Vector3d& P, const Vector3d& S) {
  using Kind = io::OpenSimWrapObject::Kind;
  WrapResult r;
  if (!object.active) return r;
  if (object.kind == Kind::Cylinder) {
    Matrix32d E = Matrix32d::Zero();
    E(0, 0) = 1.0;
    E(1, 1) = 1.0;
    const int axis = object.quadrant_axis == 2 ? -1 : object.quadrant_axis;
    const Planar w =
        wrapPlanar(P.head<2>(), S.head<2>(), object.radius * Matrix2d::Identity(), true, E, axis, object.quadrant_sign);
    if (!w.wrapped) return r;
    // Unrolled, the path is straight: heights proportional to the in-plane length.
    const double l1 = (w.t1 - P.head<2>()).norm(), l3 = (S.head<2>() - w.t2).norm();
    const double L2 = l1 + w.arc + l3;
    const double dz = S.z() - P.z();
    const double z1 = P.z() + dz * l1 / L2, z2 = P.z() + dz * (l1 + w.arc) / L2;
    r.wrapped = true;
    r.t1 = Vector3d(w.t1.x(), w.t1.y(), z1);
    r.t2 = Vector3d(w.t2.x(), w.t2.y(), z2);
    r.arc = std::hypot(w.arc, z2 - z1);
    return r;
  }
  // Sphere, ellipsoid: the plane through P, S and the centre.
  const double np = P.norm();
  if (np < 1e-12) return r;
  const Vector3d e1 = P / np;
  Vector3d e2 = S - S.dot(e1) * e1;
  const double n2 = e2.norm();
  if (n2 < 1e-9 * std::max(1.0, S.norm())) return r;  // P, S and the centre in a line
  e2 /= n2;
  Matrix32d E;
  E.col(0) = e1;
  E.col(1) = e2;
  Matrix2d L;
  bool circle = false;
  if (object.kind == Kind::Sphere) {
    L = object.radius * Matrix2d::Identity();
    circle = true;
  } else {
    const Vector3d dinv = object.dimensions.cwiseInverse().cwiseAbs2();
    const Matrix2d M = E.transpose() * dinv.asDiagonal() * E;
    const Eigen::SelfAdjointEigenSolver<Matrix2d> eig(M);
    L = eig.eigenvectors() * eig.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal() * eig.eigenvectors().transpose();
  }
  const Vector2d p(np, 0.0), s(S.dot(e1), n2);
  const Planar w = wrapPlanar(p, s, L, circle, E, object.quadrant_axis, object.quadrant_sign);
  if (!w.wrapped) return r;
  r.wrapped = true;
  r.t1 = E * w.t1;
  r.t2 = E * w.t2;
  r.arc = w.arc;
  return r;
}

}  // namespace kinetrack::muscles::detail
