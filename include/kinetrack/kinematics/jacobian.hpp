#pragma once
// Frame Jacobians in the mixed representation (SPEC §0): rows (linear velocity of the frame
// origin; angular velocity), both in the world frame; columns (base linear; base angular;
// joints), i.e. (6 × nv). Requires forwardKinematics for the same configuration. Allocation-free.
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// Writes the full (6 × nv) Jacobian of frame f into J: base columns, the columns of the joints
/// that support f's link, and exact zeros in every other column. Throws InvalidArgument on a
/// wrong-sized J or an invalid frame id.
void frameJacobian(const Model& model, const Data& data, FrameId f, Eigen::Ref<Matrix6Xd> J);

/// Like frameJacobian but writes only the base columns and the support columns of f's link
/// (model.support(frameLink(f))); other columns of J are left untouched. Callers that keep one J
/// per frame, zeroed once, use this to skip rewriting zeros every frame.
void frameJacobianSupport(const Model& model, const Data& data, FrameId f, Eigen::Ref<Matrix6Xd> J);

/// World position of frame f's origin from data.link (no need for updateFramePlacements).
Vector3d frameOrigin(const Model& model, const Data& data, FrameId f);

/// Linear (3 × nv) Jacobian of the point fixed to `link` that is at world position p_W at the
/// configuration of `data`: ṗ = J ν (m/s per unit ν; world frame). Writes every column (exact
/// zeros outside the base and the link's support). Throws InvalidArgument on a wrong-sized J or
/// an invalid link id.
void pointJacobian(const Model& model, const Data& data, LinkId link, const Vector3d& p_W,
                   Eigen::Ref<Eigen::Matrix<double, 3, Eigen::Dynamic>> J);

/// row += nᵀ J_p, J_p the linear Jacobian of the point of `link` at p_W (pointJacobian), n a world
/// vector: the rate of n·p per unit ν. Touches only the base columns and the support columns of
/// the link (1 × nv row, any stride: a row of a column-major matrix). For the hot path: no
/// checks beyond debug assertions, no allocation.
void addProjectedPointJacobian(const Model& model, const Data& data, LinkId link, const Vector3d& p_W,
                               const Vector3d& n, Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> row);

}  // namespace kinetrack
