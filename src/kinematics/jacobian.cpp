#include "kinetrack/kinematics/jacobian.hpp"

#include <Eigen/Geometry>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack {

namespace {

void check(const Model& model, FrameId f, const Eigen::Ref<Matrix6Xd>& J) {
  if (!f.valid() || f.value >= model.numFrames())
    throw InvalidArgument("frameJacobian: invalid frame id " + std::to_string(f.value));
  if (J.cols() != model.nv())
    throw InvalidArgument("frameJacobian: expected a 6 × " + std::to_string(model.nv()) + " matrix, got 6 × " +
                          std::to_string(J.cols()));
}

}  // namespace

Vector3d frameOrigin(const Model& model, const Data& data, FrameId f) {
  const Transform& L = data.link[static_cast<std::size_t>(model.frameLink(f).value)];
  if (model.frameIsLinkFrame(f)) return L.p;
  return L.p + L.R * model.framePlacement(f).p;
}

void frameJacobianSupport(const Model& model, const Data& data, FrameId f, Eigen::Ref<Matrix6Xd> J) {
  check(model, f, J);
  const Vector3d p = frameOrigin(model, data, f);
  const int nb = model.nvBase();
  if (nb == 6) {
    // ṗ = ṗ_B + ω_B × (p − p_B): linear rows [I, −sk(p − p_B)], angular rows [0, I].
    const Vector3d d = p - data.link[0].p;
    J.template block<3, 3>(0, 0).setIdentity();
    J.template block<3, 3>(3, 0).setZero();
    J.col(3) << 0.0, -d.z(), d.y(), 1.0, 0.0, 0.0;
    J.col(4) << d.z(), 0.0, -d.x(), 0.0, 1.0, 0.0;
    J.col(5) << -d.y(), d.x(), 0.0, 0.0, 0.0, 1.0;
  }
  for (const std::int32_t j : model.support(model.frameLink(f))) {
    const Vector3d& a = data.joint_axis[static_cast<std::size_t>(j)];
    auto col = J.col(nb + j);
    const JointType type = model.jointType(JointId(j));
    if (type == JointType::Prismatic) {
      col.template head<3>() = a;
      col.template tail<3>().setZero();
    } else if (type == JointType::Custom) {
      // Child origin moves at v per unit ṡ and the child turns at w about it.
      const Vector3d r = p - data.link[static_cast<std::size_t>(j + 1)].p;
      col.template head<3>() = data.joint_linear[static_cast<std::size_t>(j)] + a.cross(r);
      col.template tail<3>() = a;
    } else {
      // Revolute: the joint origin is its child link's origin.
      const Vector3d r = p - data.link[static_cast<std::size_t>(j + 1)].p;
      col.template head<3>() = a.cross(r);
      col.template tail<3>() = a;
    }
  }
}

void pointJacobian(const Model& model, const Data& data, LinkId link, const Vector3d& p_W,
                   Eigen::Ref<Eigen::Matrix<double, 3, Eigen::Dynamic>> J) {
  if (!link.valid() || link.value >= model.numLinks())
    throw InvalidArgument("pointJacobian: invalid link id " + std::to_string(link.value));
  if (J.cols() != model.nv())
    throw InvalidArgument("pointJacobian: expected a 3 × " + std::to_string(model.nv()) + " matrix, got 3 × " +
                          std::to_string(J.cols()));
  J.setZero();
  for (int c = 0; c < 3; ++c) addProjectedPointJacobian(model, data, link, p_W, Vector3d::Unit(c), J.row(c));
}

void addProjectedPointJacobian(const Model& model, const Data& data, LinkId link, const Vector3d& p_W,
                               const Vector3d& n, Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> row) {
  // n·(a × r) = a·(r × n): one cross product per point, one dot per column.
  const int nb = model.nvBase();
  if (nb == 6) {
    const Vector3d m = (p_W - data.link[0].p).cross(n);
    for (int c = 0; c < 3; ++c) {
      row[c] += n[c];
      row[3 + c] += m[c];
    }
  }
  for (const std::int32_t j : model.support(link)) {
    const Vector3d& a = data.joint_axis[static_cast<std::size_t>(j)];
    const JointType type = model.jointType(JointId(j));
    if (type == JointType::Prismatic) {
      row[nb + j] += a.dot(n);
      continue;
    }
    const Vector3d r = p_W - data.link[static_cast<std::size_t>(j + 1)].p;
    double v = a.dot(r.cross(n));
    if (type == JointType::Custom) v += data.joint_linear[static_cast<std::size_t>(j)].dot(n);
    row[nb + j] += v;
  }
}

void frameJacobian(const Model& model, const Data& data, FrameId f, Eigen::Ref<Matrix6Xd> J) {
  check(model, f, J);
  J.setZero();
  frameJacobianSupport(model, data, f, J);
}

}  // namespace kinetrack
