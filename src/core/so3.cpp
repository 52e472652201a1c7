#include "kinetrack/core/so3.hpp"

#include <Eigen/SVD>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::so3 {

Vector3d log(const Matrix3d& R) {
  const double tr = R.trace();
  const double c = std::clamp(0.5 * (tr - 1.0), -1.0, 1.0);
  const Vector3d s2 = Vector3d(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));  // 2 sin(t) axis
  if (c > 0.9999) {
    // Near identity: t/(2 sin t) ≈ ½(1 + t²/6), with t² from the sine (better conditioned than acos).
    // t² = asin(s)² = s² (1 + s²/3 + 8s⁴/45 + …); s < 0.0142 here, so the series is exact to
    // round-off (next term ~1e-13 relative) and saves the asin.
    const double s_sq = 0.25 * s2.squaredNorm();
    const double t2 = s_sq * (1.0 + s_sq / 3.0 + 8.0 * s_sq * s_sq / 45.0);
    return 0.5 * (1.0 + t2 / 6.0 + 7.0 * t2 * t2 / 360.0) * s2;
  }
  const double n = s2.norm();  // = 2 sin(t)
  const double t = std::atan2(0.5 * n, c);
  if (c > -0.99) return (t / n) * s2;
  // Near π: the axis from the diagonal of the symmetric part, R + Rᵀ = 2cI + 2(1 − c) a aᵀ.
  const Matrix3d B = 0.5 * (R + R.transpose()) - c * Matrix3d::Identity();
  int k;
  B.diagonal().maxCoeff(&k);
  Vector3d a = B.col(k) / std::sqrt(std::max(B(k, k), 1e-300));
  a.normalize();
  if (a.dot(s2) < 0.0) a = -a;  // sign from the antisymmetric part (zero only at exactly π)
  return t * a;
}

Vector3d toRpy(const Matrix3d& R) {
  const double sp = -R(2, 0);
  if (std::abs(sp) >= 1.0 - 1e-15) {
    const double pitch = std::copysign(M_PI / 2.0, sp);
    const double yaw = std::atan2(-R(0, 1), R(1, 1));
    return {0.0, pitch, yaw};
  }
  const double roll = std::atan2(R(2, 1), R(2, 2));
  const double pitch = std::atan2(sp, std::hypot(R(2, 1), R(2, 2)));
  const double yaw = std::atan2(R(1, 0), R(0, 0));
  return {roll, pitch, yaw};
}

Vector3d toBodyXyz(const Matrix3d& R) {
  const double b = std::asin(std::clamp(R(0, 2), -1.0, 1.0));
  if (std::abs(R(0, 2)) > 1.0 - 1e-12) return {std::atan2(R(2, 1), R(1, 1)), b, 0.0};  // gimbal lock: c = 0
  return {std::atan2(-R(1, 2), R(2, 2)), b, std::atan2(-R(0, 1), R(0, 0))};
}

Matrix3d fromQuaternionWxyz(const Eigen::Vector4d& wxyz) {
  const double n = wxyz.norm();
  if (!std::isfinite(n) || n < 1e-12) throw InvalidArgument("quaternion (w,x,y,z) must be finite and non-zero");
  const Eigen::Quaterniond q(wxyz[0] / n, wxyz[1] / n, wxyz[2] / n, wxyz[3] / n);
  return q.toRotationMatrix();
}

Eigen::Vector4d toQuaternionWxyz(const Matrix3d& R) {
  Eigen::Quaterniond q(R);
  q.normalize();
  Eigen::Vector4d out(q.w(), q.x(), q.y(), q.z());
  if (out[0] < 0.0) out = -out;
  return out;
}

Matrix3d project(const Matrix3d& M) {
  Eigen::JacobiSVD<Matrix3d> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Matrix3d D = Matrix3d::Identity();
  D(2, 2) = (svd.matrixU() * svd.matrixV().transpose()).determinant() < 0 ? -1.0 : 1.0;
  return svd.matrixU() * D * svd.matrixV().transpose();
}

}  // namespace kinetrack::so3
