#pragma once
// Private helpers of the marker calibration and scaling: rigid fit of point sets (Kabsch), model
// markers, base alignment. The rigid fit also places the base of track's marker IK and the
// prior's subject fit (src/track, src/prior include this header: they stand on subject).
#include <Eigen/LU>
#include <Eigen/SVD>
#include <algorithm>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/configuration.hpp"

namespace kinetrack::subject::detail {

/// The rigid transform (R, p) minimising Σ ‖R a_i + p − b_i‖²; false with fewer than three
/// non-collinear pairs.
inline bool rigidFit(const std::vector<Vector3d>& a, const std::vector<Vector3d>& b, Matrix3d& R, Vector3d& p) {
  if (a.size() < 3 || a.size() != b.size()) return false;
  Vector3d ca = Vector3d::Zero(), cb = Vector3d::Zero();
  for (std::size_t i = 0; i < a.size(); ++i) ca += a[i], cb += b[i];
  ca /= static_cast<double>(a.size());
  cb /= static_cast<double>(b.size());
  Matrix3d C = Matrix3d::Zero();
  for (std::size_t i = 0; i < a.size(); ++i) C += (b[i] - cb) * (a[i] - ca).transpose();
  const Eigen::JacobiSVD<Matrix3d> svd(C, Eigen::ComputeFullU | Eigen::ComputeFullV);
  if (svd.singularValues()[1] < 1e-9 * std::max(1.0, svd.singularValues()[0])) return false;
  Matrix3d D = Matrix3d::Identity();
  if ((svd.matrixU() * svd.matrixV().transpose()).determinant() < 0) D(2, 2) = -1.0;
  R = svd.matrixU() * D * svd.matrixV().transpose();
  p = cb - R * ca;
  return true;
}

// The markers of `model_with` at q, in set order.
inline std::vector<Vector3d> modelMarkers(const Model& model_with, const io::MarkerSet& set, const Configuration& q) {
  Data d(model_with);
  framesForwardKinematics(model_with, d, q);
  std::vector<Vector3d> out;
  for (const auto& m : set.markers) out.push_back(d.frame[model_with.frameId(m.name).value].p);
  return out;
}

// q with its base moved by the rigid fit of the model markers at q to the measured ones.
inline Configuration aligned(const Model& model_with, const io::MarkerSet& set, const Configuration& q,
                             const std::vector<Vector3d>& measured) {
  const std::vector<Vector3d> model_markers = modelMarkers(model_with, set, q);
  std::vector<Vector3d> a, b;
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (measured[i].allFinite() && set.markers[i].weight > 0.0) {
      a.push_back(model_markers[i]);
      b.push_back(measured[i]);
    }
  Matrix3d R;
  Vector3d p;
  Configuration out = q;
  if (model_with.baseType() == BaseType::Floating && rigidFit(a, b, R, p)) {
    out.base_rotation = R * q.base_rotation;
    out.base_position = R * q.base_position + p;
  }
  return out;
}

}  // namespace kinetrack::subject::detail
