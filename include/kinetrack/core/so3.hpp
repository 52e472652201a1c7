#pragma once
// SO(3) helpers: skew/vee, exponential and logarithm maps, elementary rotations, quaternion and
// roll-pitch-yaw conversions (at I/O boundaries only; the core works with Matrix3d).
// Quaternions are ordered (w, x, y, z).
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>

#include "kinetrack/core/types.hpp"

namespace kinetrack::so3 {

/// sk(v): the 3×3 skew-symmetric matrix with sk(v)·x = v × x.
inline Matrix3d skew(const Vector3d& v) {
  Matrix3d S;
  S << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return S;
}

/// vee(S) for a skew-symmetric S; for a general M returns vee of its skew part ½(M − Mᵀ).
inline Vector3d vee(const Matrix3d& M) {
  return 0.5 * Vector3d(M(2, 1) - M(1, 2), M(0, 2) - M(2, 0), M(1, 0) - M(0, 1));
}

/// exp(sk(w)): rotation by |w| radians about w/|w| (Rodrigues, with Taylor terms near 0).
inline Matrix3d exp(const Vector3d& w) {
  const double t2 = w.squaredNorm();
  double a, b;  // R = I + a sk(w) + b sk(w)^2
  if (t2 < 1e-8) {
    a = 1.0 - t2 / 6.0 + t2 * t2 / 120.0;
    b = 0.5 - t2 / 24.0 + t2 * t2 / 720.0;
  } else {
    const double t = std::sqrt(t2);
    a = std::sin(t) / t;
    b = (1.0 - std::cos(t)) / t2;
  }
  const Matrix3d S = skew(w);
  return Matrix3d::Identity() + a * S + b * S * S;
}

/// log(R)^∨: the rotation vector w with exp(w) = R and |w| ≤ π. Robust near 0 and near π.
/// R must be a rotation matrix (orthonormal to round-off).
Vector3d log(const Matrix3d& R);

/// Rotation by angle q about the unit axis a.
inline Matrix3d axisAngle(const Vector3d& a, double q) {
  const double c = std::cos(q), s = std::sin(q), v = 1.0 - c;
  Matrix3d R;
  R << c + a.x() * a.x() * v, a.x() * a.y() * v - a.z() * s, a.x() * a.z() * v + a.y() * s,  //
      a.y() * a.x() * v + a.z() * s, c + a.y() * a.y() * v, a.y() * a.z() * v - a.x() * s,   //
      a.z() * a.x() * v - a.y() * s, a.z() * a.y() * v + a.x() * s, c + a.z() * a.z() * v;
  return R;
}

/// URDF roll-pitch-yaw: R = Rz(yaw)·Ry(pitch)·Rx(roll).
inline Matrix3d fromRpy(const Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Vector3d::UnitX()))
      .toRotationMatrix();
}

/// Inverse of fromRpy, with pitch in [−π/2, π/2]; at pitch = ±π/2 roll is set to 0.
Vector3d toRpy(const Matrix3d& R);

/// Body-fixed X-Y-Z Euler angles (OpenSim's frame orientations, SimTK's BodyRotationSequence):
/// R = Rx(a)·Ry(b)·Rz(c).
inline Matrix3d fromBodyXyz(const Vector3d& abc) {
  return (Eigen::AngleAxisd(abc.x(), Vector3d::UnitX()) * Eigen::AngleAxisd(abc.y(), Vector3d::UnitY()) *
          Eigen::AngleAxisd(abc.z(), Vector3d::UnitZ()))
      .toRotationMatrix();
}

/// Inverse of fromBodyXyz, with b in [−π/2, π/2]; at b = ±π/2 c is set to 0.
Vector3d toBodyXyz(const Matrix3d& R);

/// Quaternion (w, x, y, z), normalised, to rotation matrix. Throws InvalidArgument for a zero
/// or non-finite quaternion.
Matrix3d fromQuaternionWxyz(const Eigen::Vector4d& wxyz);

/// Rotation matrix to unit quaternion (w, x, y, z) with w ≥ 0.
Eigen::Vector4d toQuaternionWxyz(const Matrix3d& R);

/// Closest rotation matrix to M (polar decomposition via SVD), for re-orthonormalisation.
Matrix3d project(const Matrix3d& M);

}  // namespace kinetrack::so3
