#include "testing/mujoco_oracle.hpp"

#include <tinyxml2.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

namespace kinetrack::testing {

namespace {

// Mass (kg) and principal inertias (kg m²) given to massless moving links so that MuJoCo's
// compiler accepts them; set back to zero in the compiled model.
constexpr double kPlaceholder = 1e-12;
constexpr const char* kFreeJoint = "kinetrack_floating_base";

Vector3d readTriple(const tinyxml2::XMLElement* e, const char* attribute) {
  Vector3d x = Vector3d::Zero();
  const char* text = e ? e->Attribute(attribute) : nullptr;
  if (text && std::sscanf(text, "%lf %lf %lf", &x[0], &x[1], &x[2]) != 3)
    throw std::runtime_error(std::string("bad ") + attribute + " '" + text + "'");
  return x;
}

std::string formatTriple(const Vector3d& x) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%.17g %.17g %.17g", x[0], x[1], x[2]);
  return buffer;
}

// URDF rpy: R = Rz(y) Ry(p) Rx(r).
Matrix3d fromRpy(const Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy[2], Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy[1], Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy[0], Vector3d::UnitX()))
      .toRotationMatrix();
}

Vector3d toRpy(const Matrix3d& R) {
  return {std::atan2(R(2, 1), R(2, 2)), std::atan2(-R(2, 0), std::hypot(R(0, 0), R(1, 0))),
          std::atan2(R(1, 0), R(0, 0))};
}

// Rewrites an <inertial> in principal axes: rpy of the principal frame, diagonal inertia. MuJoCo
// diagonalises a full inertia tensor itself (mju_eig3), but its Jacobi iteration stops early: on
// the iCub's chest the tensor it rebuilds is off by 1.3e-7 relative, which shows as ~5e-9 errors
// in τ and M. Eigen's solver is exact to rounding; of the 12 right-handed orderings of the axes the
// one farthest from the rpy singularity (pitch ±90°) is written.
void toPrincipalAxes(tinyxml2::XMLElement* inertial) {
  tinyxml2::XMLElement* origin = inertial->FirstChildElement("origin");
  tinyxml2::XMLElement* inertia = inertial->FirstChildElement("inertia");
  if (!inertia) return;
  const auto get = [&](const char* a) { return inertia->DoubleAttribute(a, 0.0); };
  Matrix3d I;
  I << get("ixx"), get("ixy"), get("ixz"), get("ixy"), get("iyy"), get("iyz"), get("ixz"), get("iyz"), get("izz");
  if (I.isZero(0.0)) return;
  const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(I);
  const Matrix3d R0 = fromRpy(readTriple(origin, "rpy"));
  Matrix3d best_R = Matrix3d::Identity();
  Vector3d best_d = Vector3d::Zero();
  double best_cos = -1.0;
  for (int shift = 0; shift < 3; ++shift)
    for (int signs = 0; signs < 4; ++signs) {
      Matrix3d V;
      Vector3d d;
      for (int c = 0; c < 3; ++c) {
        V.col(c) = eig.eigenvectors().col((c + shift) % 3);
        d[c] = eig.eigenvalues()[(c + shift) % 3];
      }
      if (signs > 0) V.col(signs - 1) *= -1.0;
      if (V.determinant() < 0.0) V.col(signs == 3 ? 0 : 2) *= -1.0;
      const Matrix3d R = R0 * V;
      const double c = std::hypot(R(0, 0), R(1, 0));
      if (c > best_cos) best_cos = c, best_R = R, best_d = d;
    }
  if (!origin) origin = inertial->InsertNewChildElement("origin");
  origin->SetAttribute("rpy", formatTriple(toRpy(best_R)).c_str());
  for (const char* a : {"ixy", "ixz", "iyz"}) inertia->SetAttribute(a, 0.0);
  inertia->SetAttribute("ixx", best_d[0]);
  inertia->SetAttribute("iyy", best_d[1]);
  inertia->SetAttribute("izz", best_d[2]);
}

// The URDF text MuJoCo is given (see the header). `placeholders` receives the names of the
// massless moving links given kPlaceholder mass and inertia.
std::string mujocoUrdf(const std::string& path, bool floating, bool fuse_static,
                       std::vector<std::string>& placeholders) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) throw std::runtime_error("cannot read " + path);
  tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  if (!robot) throw std::runtime_error(path + ": no <robot>");
  std::map<std::string, std::string> parent_joint_type;  // child link → type of its joint
  for (auto* joint = robot->FirstChildElement("joint"); joint; joint = joint->NextSiblingElement("joint"))
    parent_joint_type[joint->FirstChildElement("child")->Attribute("link")] = joint->Attribute("type");
  std::string root;
  for (auto* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link")) {
    const std::string name = link->Attribute("name");
    if (name == "world") throw std::runtime_error(path + ": a link is already called 'world'");
    for (const char* tag : {"visual", "collision"})
      while (auto* e = link->FirstChildElement(tag)) link->DeleteChild(e);
    const auto type = parent_joint_type.find(name);
    if (type == parent_joint_type.end()) root = name;
    tinyxml2::XMLElement* inertial = link->FirstChildElement("inertial");
    const tinyxml2::XMLElement* mass = inertial ? inertial->FirstChildElement("mass") : nullptr;
    const bool massless = !mass || mass->DoubleAttribute("value", 0.0) == 0.0;
    const bool moving = type != parent_joint_type.end() && type->second != "fixed";
    if (massless && moving) {
      if (inertial) link->DeleteChild(inertial);
      inertial = link->InsertNewChildElement("inertial");
      inertial->InsertNewChildElement("mass")->SetAttribute("value", kPlaceholder);
      auto* inertia = inertial->InsertNewChildElement("inertia");
      for (const char* a : {"ixx", "iyy", "izz"}) inertia->SetAttribute(a, kPlaceholder);
      for (const char* a : {"ixy", "ixz", "iyz"}) inertia->SetAttribute(a, 0.0);
      placeholders.push_back(name);
    } else if (inertial) {
      toPrincipalAxes(inertial);
    }
  }
  auto* mujoco = doc.NewElement("mujoco");
  auto* compiler = mujoco->InsertNewChildElement("compiler");
  compiler->SetAttribute("fusestatic", fuse_static ? "true" : "false");
  compiler->SetAttribute("discardvisual", "true");
  compiler->SetAttribute("inertiafromgeom", "false");
  compiler->SetAttribute("balanceinertia", "false");
  robot->InsertFirstChild(mujoco);
  if (floating) {
    robot->InsertNewChildElement("link")->SetAttribute("name", "world");
    auto* joint = robot->InsertNewChildElement("joint");
    joint->SetAttribute("name", kFreeJoint);
    joint->SetAttribute("type", "floating");
    joint->InsertNewChildElement("parent")->SetAttribute("link", "world");
    joint->InsertNewChildElement("child")->SetAttribute("link", root.c_str());
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

}  // namespace

MujocoOracle::MujocoOracle(const std::string& urdf_path, const Model& model, const MujocoOptions& options)
    : floating_(model.baseType() == BaseType::Floating), nv_(model.nv()) {
  std::vector<std::string> placeholders;
  const std::string xml = mujocoUrdf(urdf_path, floating_, options.fuse_static, placeholders);
  // Load from memory through a virtual file system (no temporary files).
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const char* name = "kinetrack_oracle.urdf";
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(xml.size())) != 0)
    throw std::runtime_error("MuJoCo VFS refused the URDF");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], xml.data(), xml.size());
  char error[1024] = "";
  m_ = mj_loadXML(name, vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  if (!m_) throw std::runtime_error("MuJoCo could not load " + urdf_path + ": " + error);

  // Massless moving links back to zero: MuJoCo's algorithms run on zero-mass bodies (their
  // subtrees carry mass); only its compiler refuses them.
  for (const std::string& link : placeholders) {
    const int b = mj_name2id(m_, mjOBJ_BODY, link.c_str());
    if (b < 0 || m_->body_mass[b] != kPlaceholder) {
      mj_deleteModel(m_);
      throw std::runtime_error("MuJoCo merged mass into the massless link " + link + " (fusestatic)");
    }
    m_->body_mass[b] = 0.0;
    for (int k = 0; k < 3; ++k) m_->body_inertia[3 * b + k] = 0.0;
  }
  restored_ = static_cast<int>(placeholders.size());
  m_->opt.gravity[0] = 0.0;
  m_->opt.gravity[1] = 0.0;
  m_->opt.gravity[2] = -9.80665;
  m_->opt.disableflags |= mjDSBL_PASSIVE | mjDSBL_CONSTRAINT;
  d_ = mj_makeData(m_);
  mj_setConst(m_, d_);  // constants derived from the masses (subtree masses, …)

  if (m_->nv != nv_)
    throw std::runtime_error("MuJoCo has " + std::to_string(m_->nv) + " dofs, the model " + std::to_string(nv_));
  for (int j = 0; j < model.numJoints(); ++j) {
    const std::string& joint = model.jointName(JointId(j));
    const int id = mj_name2id(m_, mjOBJ_JOINT, joint.c_str());
    if (id < 0) throw std::runtime_error("MuJoCo has no joint " + joint);
    qpos_adr_.push_back(m_->jnt_qposadr[id]);
    dof_adr_.push_back(m_->jnt_dofadr[id]);
  }
  if (floating_) {
    const int id = mj_name2id(m_, mjOBJ_JOINT, kFreeJoint);
    if (id < 0 || m_->jnt_type[id] != mjJNT_FREE) throw std::runtime_error("MuJoCo made no free joint");
    base_qpos_ = m_->jnt_qposadr[id];
    base_dof_ = m_->jnt_dofadr[id];
  }
}

MujocoOracle::~MujocoOracle() {
  if (d_) mj_deleteData(d_);
  if (m_) mj_deleteModel(m_);
}

std::string MujocoOracle::engine() const {
  const int v = mj_version();  // 222 for 2.2.2
  return "MuJoCo " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
}

MatrixXd MujocoOracle::velocityMap(const Configuration& q) const {
  MatrixXd C = MatrixXd::Zero(nv_, nv_);
  const int nb = floating_ ? 6 : 0;
  if (floating_) {
    C.block<3, 3>(base_dof_, 0).setIdentity();
    C.block<3, 3>(base_dof_ + 3, 3) = q.base_rotation.transpose();
  }
  for (std::size_t j = 0; j < dof_adr_.size(); ++j) C(dof_adr_[j], nb + static_cast<int>(j)) = 1.0;
  return C;
}

VectorXd MujocoOracle::qpos(const Configuration& q) const {
  VectorXd x = Eigen::Map<const VectorXd>(m_->qpos0, m_->nq);
  if (floating_) {
    const Eigen::Quaterniond r(q.base_rotation);
    x.segment<3>(base_qpos_) = q.base_position;
    x.segment<4>(base_qpos_ + 3) << r.w(), r.x(), r.y(), r.z();
  } else if (!q.base_position.isZero() || !q.base_rotation.isIdentity()) {
    throw std::invalid_argument("MujocoOracle: a fixed base must be at the origin with identity orientation");
  }
  for (std::size_t j = 0; j < qpos_adr_.size(); ++j) x[qpos_adr_[j]] = q.joints[static_cast<int>(j)];
  return x;
}

void MujocoOracle::setState(const Configuration& q, const VectorXd* v) {
  Eigen::Map<VectorXd>(d_->qpos, m_->nq) = qpos(q);
  Eigen::Map<VectorXd>(d_->qvel, m_->nv) = v ? qvel(q, *v) : VectorXd::Zero(m_->nv);
}

VectorXd MujocoOracle::inverseDynamics(const Configuration& q, const VectorXd& v, const VectorXd& a) {
  setState(q, &v);
  Eigen::Map<VectorXd>(d_->qacc, m_->nv) = qacc(q, a);
  // The documented inverse dynamics; with passive forces and constraints disabled,
  // qfrc_inverse = M qacc + qfrc_bias.
  mj_inverse(m_, d_);
  return velocityMap(q).transpose() * Eigen::Map<const VectorXd>(d_->qfrc_inverse, m_->nv);
}

MatrixXd MujocoOracle::massMatrix(const Configuration& q) {
  setState(q, nullptr);
  mj_kinematics(m_, d_);
  mj_comPos(m_, d_);
  mj_crb(m_, d_);
  MatrixXd M(m_->nv, m_->nv);
  mj_fullM(m_, M.data(), d_->qM);  // row-major dense, but M is symmetric
  const MatrixXd C = velocityMap(q);
  return C.transpose() * M * C;
}

VectorXd MujocoOracle::forwardDynamics(const Configuration& q, const VectorXd& v, const VectorXd& tau) {
  setState(q, &v);
  Eigen::Map<VectorXd>(d_->qfrc_applied, m_->nv) = qfrc(q, tau);
  mj_forward(m_, d_);
  const VectorXd acc = velocityMap(q).transpose() * Eigen::Map<const VectorXd>(d_->qacc, m_->nv);
  Eigen::Map<VectorXd>(d_->qfrc_applied, m_->nv).setZero();
  return acc;
}

}  // namespace kinetrack::testing
