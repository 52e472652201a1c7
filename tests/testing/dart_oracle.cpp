#include "testing/dart_oracle.hpp"

#include <tinyxml2.h>

#include <dart/config.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/DegreeOfFreedom.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/Joint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace kinetrack::testing {

namespace {

std::string withoutGeometry(const std::string& path) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) throw std::runtime_error("cannot read " + path);
  tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  if (!robot) throw std::runtime_error(path + ": no <robot>");
  for (auto* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link"))
    for (const char* tag : {"visual", "collision"})
      while (auto* e = link->FirstChildElement(tag)) link->DeleteChild(e);
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

// DART warns on std::cerr about every massless link; keep the test output readable.
struct SilenceCerr {
  std::ostringstream sink;
  std::streambuf* old = std::cerr.rdbuf(sink.rdbuf());
  ~SilenceCerr() { std::cerr.rdbuf(old); }
};

}  // namespace

DartOracle::DartOracle(const std::string& urdf_path, const Model& model)
    : floating_(model.baseType() == BaseType::Floating), nv_(model.nv()) {
  using dart::utils::DartLoader;
  {
    SilenceCerr quiet;  // also DART's warning about the zero inertia it is given here
    const DartLoader::Options options(
        nullptr, floating_ ? DartLoader::RootJointType::FLOATING : DartLoader::RootJointType::FIXED,
        dart::dynamics::Inertia(0.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero()));
    DartLoader loader(options);
    skeleton_ = loader.parseSkeletonString(withoutGeometry(urdf_path), dart::common::Uri::createFromPath(urdf_path));
  }
  if (!skeleton_) throw std::runtime_error("DART could not load " + urdf_path);
  skeleton_->setGravity(Eigen::Vector3d(0.0, 0.0, -9.80665));
  for (std::size_t i = 0; i < skeleton_->getNumDofs(); ++i) {
    dart::dynamics::DegreeOfFreedom* dof = skeleton_->getDof(i);
    dof->setDampingCoefficient(0.0);
    dof->setSpringStiffness(0.0);
    dof->setCoulombFriction(0.0);
  }
  if (static_cast<int>(skeleton_->getNumDofs()) != nv_)
    throw std::runtime_error("DART has " + std::to_string(skeleton_->getNumDofs()) + " dofs, the model " +
                             std::to_string(nv_));
  if (floating_ && (skeleton_->getRootJoint()->getType() != dart::dynamics::FreeJoint::getStaticType() ||
                    skeleton_->getRootJoint()->getIndexInSkeleton(0) != 0))
    throw std::runtime_error("DART's root joint is not a FreeJoint at dofs 0–5");
  for (int j = 0; j < model.numJoints(); ++j) {
    const std::string& name = model.jointName(JointId(j));
    dart::dynamics::Joint* joint = skeleton_->getJoint(name);
    if (!joint || joint->getNumDofs() != 1) throw std::runtime_error("DART has no 1-dof joint " + name);
    dof_.push_back(static_cast<int>(joint->getIndexInSkeleton(0)));
  }
}

DartOracle::~DartOracle() = default;

std::string DartOracle::engine() const { return std::string("DART ") + DART_VERSION; }

MatrixXd DartOracle::velocityMap(const Configuration& q) const {
  MatrixXd C = MatrixXd::Zero(nv_, nv_);
  const int nb = floating_ ? 6 : 0;
  if (floating_) {  // DART (ω_b; v_b) from kinetrack (ṗ_B; ω_B)
    C.block<3, 3>(0, 3) = q.base_rotation.transpose();
    C.block<3, 3>(3, 0) = q.base_rotation.transpose();
  }
  for (std::size_t j = 0; j < dof_.size(); ++j) C(dof_[j], nb + static_cast<int>(j)) = 1.0;
  return C;
}

VectorXd DartOracle::positions(const Configuration& q) const {
  VectorXd x = VectorXd::Zero(nv_);
  if (floating_) {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = q.base_rotation;
    T.translation() = q.base_position;
    x.head<6>() = dart::dynamics::FreeJoint::convertToPositions(T);
  } else if (!q.base_position.isZero() || !q.base_rotation.isIdentity()) {
    throw std::invalid_argument("DartOracle: a fixed base must be at the origin with identity orientation");
  }
  for (std::size_t j = 0; j < dof_.size(); ++j) x[dof_[j]] = q.joints[static_cast<int>(j)];
  return x;
}

VectorXd DartOracle::accelerations(const Configuration& q, const VectorXd& v, const VectorXd& a) const {
  VectorXd ddq = velocityMap(q) * a;
  if (floating_) {  // + Ċ ν: the body-frame linear velocity turns with the body
    const Eigen::Vector3d w_b = q.base_rotation.transpose() * v.segment<3>(3);
    const Eigen::Vector3d v_b = q.base_rotation.transpose() * v.head<3>();
    ddq.segment<3>(3) -= w_b.cross(v_b);
  }
  return ddq;
}

void DartOracle::setState(const Configuration& q, const VectorXd& v) {
  skeleton_->setPositions(positions(q));
  skeleton_->setVelocities(velocities(q, v));
}

VectorXd DartOracle::inverseDynamics(const Configuration& q, const VectorXd& v, const VectorXd& a) {
  setState(q, v);
  skeleton_->setAccelerations(accelerations(q, v, a));
  skeleton_->computeInverseDynamics(false, false, false);
  return velocityMap(q).transpose() * skeleton_->getForces();
}

MatrixXd DartOracle::massMatrix(const Configuration& q) {
  setState(q, VectorXd::Zero(nv_));
  const MatrixXd C = velocityMap(q);
  return C.transpose() * skeleton_->getMassMatrix() * C;
}

VectorXd DartOracle::forwardDynamics(const Configuration& q, const VectorXd& v, const VectorXd& tau) {
  setState(q, v);
  skeleton_->setForces(forces(q, tau));
  skeleton_->computeForwardDynamics();
  // ν̇ = Cᵀ (ddq − Ċ ν)
  const VectorXd bias = accelerations(q, v, VectorXd::Zero(nv_));
  const VectorXd acc = velocityMap(q).transpose() * (skeleton_->getAccelerations() - bias);
  skeleton_->resetGeneralizedForces();
  return acc;
}

}  // namespace kinetrack::testing
