#include "testing/kdl_oracle.hpp"

#include <urdf_parser/urdf_parser.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kinetrack::testing {

namespace {

KDL::Frame toKdl(const urdf::Pose& p) {
  return KDL::Frame(KDL::Rotation::Quaternion(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w),
                    KDL::Vector(p.position.x, p.position.y, p.position.z));
}

KDL::Joint toKdlJoint(const urdf::Joint& j) {
  const KDL::Frame F = toKdl(j.parent_to_joint_origin_transform);
  const KDL::Vector axis(j.axis.x, j.axis.y, j.axis.z);
  switch (j.type) {
    case urdf::Joint::REVOLUTE:
    case urdf::Joint::CONTINUOUS: return KDL::Joint(j.name, F.p, F.M * axis, KDL::Joint::RotAxis);
    case urdf::Joint::PRISMATIC: return KDL::Joint(j.name, F.p, F.M * axis, KDL::Joint::TransAxis);
    default: return KDL::Joint(j.name, KDL::Joint::None);
  }
}

// URDF <inertial> (mass, COM origin, inertia about the COM in the origin's axes) as KDL's
// rigid-body inertia (COM and rotational inertia about the COM, both in the segment frame).
KDL::RigidBodyInertia toKdl(const urdf::InertialSharedPtr& i) {
  if (!i) return KDL::RigidBodyInertia();
  const KDL::Frame origin = toKdl(i->origin);
  const KDL::RotationalInertia in_origin_axes(i->ixx, i->iyy, i->izz, i->ixy, i->ixz, i->iyz);
  // Rotate the inertia into the segment axes (a massless RigidBodyInertia at the COM rotates
  // like a tensor), then place it at the COM.
  const KDL::RigidBodyInertia rotated = origin.M * KDL::RigidBodyInertia(0.0, KDL::Vector::Zero(), in_origin_axes);
  return KDL::RigidBodyInertia(i->mass, origin.p, rotated.getRotationalInertia());
}

void addChildren(const urdf::LinkConstSharedPtr& link, KDL::Tree& tree) {
  for (const auto& child : link->child_links) {
    const urdf::Joint& j = *child->parent_joint;
    KDL::Segment seg(child->name, toKdlJoint(j), toKdl(j.parent_to_joint_origin_transform), toKdl(child->inertial));
    if (!tree.addSegment(seg, link->name)) throw std::runtime_error("KDL refused segment " + child->name);
    addChildren(child, tree);
  }
}

}  // namespace

KdlOracle KdlOracle::fromUrdfText(const std::string& xml) {
  const auto urdf_model = urdf::parseURDF(xml);
  if (!urdf_model) throw std::runtime_error("urdfdom could not parse the URDF for the KDL oracle");
  KdlOracle o;
  o.root_ = urdf_model->getRoot()->name;
  o.tree_ = std::make_unique<KDL::Tree>(o.root_);
  addChildren(urdf_model->getRoot(), *o.tree_);
  for (const auto& [name, element] : o.tree_->getSegments()) {
    const KDL::Segment& seg = GetTreeElementSegment(element);
    if (seg.getJoint().getType() != KDL::Joint::None) o.q_index_[seg.getJoint().getName()] = GetTreeElementQNr(element);
  }
  o.fk_ = std::make_unique<KDL::TreeFkSolverPos_recursive>(*o.tree_);
  o.id_ = std::make_unique<KDL::TreeIdSolver_RNE>(*o.tree_, KDL::Vector(0.0, 0.0, -9.80665));
  o.jac_ = std::make_unique<KDL::TreeJntToJacSolver>(*o.tree_);
  return o;
}

KdlOracle KdlOracle::fromUrdfFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return fromUrdfText(ss.str());
}

KDL::JntArray KdlOracle::jointArray(const Model& model, const Configuration& q) const {
  KDL::JntArray a(tree_->getNrOfJoints());
  for (int j = 0; j < model.numJoints(); ++j) {
    auto it = q_index_.find(model.jointName(JointId(j)));
    if (it == q_index_.end()) throw std::runtime_error("KDL tree has no joint " + model.jointName(JointId(j)));
    a(it->second) = q.joints[j];
  }
  return a;
}

Transform KdlOracle::pose(const Model& model, const Configuration& q, const std::string& segment) {
  KDL::Frame F;
  if (fk_->JntToCart(jointArray(model, q), F, segment) < 0) throw std::runtime_error("KDL FK failed for " + segment);
  Transform T;
  for (int r = 0; r < 3; ++r) {
    T.p[r] = F.p(r);
    for (int c = 0; c < 3; ++c) T.R(r, c) = F.M(r, c);
  }
  return {q.base_rotation * T.R, q.base_position + q.base_rotation * T.p};
}

Eigen::Matrix<double, 6, Eigen::Dynamic> KdlOracle::jointJacobian(const Model& model, const Configuration& q,
                                                                  const std::string& segment) {
  const KDL::JntArray a = jointArray(model, q);
  KDL::Jacobian jac(tree_->getNrOfJoints());
  if (jac_->JntToJac(a, jac, segment) < 0) throw std::runtime_error("KDL Jacobian failed for " + segment);
  Eigen::Matrix<double, 6, Eigen::Dynamic> J(6, model.numJoints());
  for (int j = 0; j < model.numJoints(); ++j) {
    const unsigned k = q_index_.at(model.jointName(JointId(j)));
    const Eigen::Matrix<double, 6, 1> col = jac.data.col(k);  // (linear; angular) in the KDL root frame
    J.col(j).head<3>() = q.base_rotation * col.head<3>();
    J.col(j).tail<3>() = q.base_rotation * col.tail<3>();
  }
  return J;
}

VectorXd KdlOracle::inverseDynamics(const Model& model, const Configuration& q, const VectorXd& qd,
                                    const VectorXd& qdd) {
  const unsigned nk = tree_->getNrOfJoints();
  KDL::JntArray kq = jointArray(model, q), kqd(nk), kqdd(nk), torques(nk);
  for (int j = 0; j < model.numJoints(); ++j) {
    const unsigned k = q_index_.at(model.jointName(JointId(j)));
    kqd(k) = qd[j];
    kqdd(k) = qdd[j];
  }
  KDL::WrenchMap none;
  if (id_->CartToJnt(kq, kqd, kqdd, none, torques) < 0) throw std::runtime_error("KDL inverse dynamics failed");
  VectorXd tau(model.numJoints());
  for (int j = 0; j < model.numJoints(); ++j) tau[j] = torques(q_index_.at(model.jointName(JointId(j))));
  return tau;
}

}  // namespace kinetrack::testing
