#include "kinetrack/dynamics/rigid_body.hpp"

#include <Eigen/Cholesky>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/mass_properties.hpp"
#include "rigid_body_detail.hpp"

namespace kinetrack {

namespace {

// Spatial inertia about the origin of a body of mass m, world centre of mass c and world
// rotational inertia Ic about c: I_O = Ic + m((c·c)1 − c cᵀ) (parallel axes), h = m c.
SpatialInertia spatialInertia(double m, const Vector3d& c, const Matrix3d& Ic) {
  SpatialInertia I;
  I.mass = m;
  I.first_moment = m * c;
  I.rotational = Ic - I.first_moment * c.transpose();
  I.rotational.diagonal().array() += m * c.squaredNorm();
  return I;
}

void checkSize(const VectorXd& x, int nv, const char* what) {
  if (x.size() != nv)
    throw InvalidArgument(std::string(what) + ": expected " + std::to_string(nv) + " entries, got " +
                          std::to_string(x.size()));
}

}  // namespace

namespace detail {

void prepareDynamics(const Model& model, DynamicsData& d, const Configuration& q) {
  if (q.joints.size() != model.numJoints())
    throw InvalidArgument("dynamics: expected " + std::to_string(model.numJoints()) + " joint coordinates, got " +
                          std::to_string(q.joints.size()));
  forwardKinematics(model, d.kinematics, q);
  for (int l = 0; l < model.numLinks(); ++l) {
    if (!d.massive[static_cast<std::size_t>(l)]) continue;  // stays zero
    const Inertial& in = model.inertial(LinkId(l));
    const Transform& X = d.kinematics.link[static_cast<std::size_t>(l)];
    d.inertia[static_cast<std::size_t>(l)] =
        spatialInertia(in.mass, X.p + X.R * in.com, X.R * in.inertia * X.R.transpose());
  }
  for (int j = 0; j < model.numJoints(); ++j) {
    const Vector3d& a = d.kinematics.joint_axis[static_cast<std::size_t>(j)];
    Vector6d& S = d.subspace[static_cast<std::size_t>(j)];
    if (model.jointType(JointId(j)) == JointType::Prismatic) {
      S << Vector3d::Zero(), a;
    } else {  // revolute / continuous: the axis through the child link's origin
      const Vector3d& o = d.kinematics.link[static_cast<std::size_t>(j + 1)].p;
      S << a, o.cross(a);
    }
  }
  // Base columns: ṗ_B moves the body by (0; ṗ); ω_B by (ω; p_B × ω) (velocity at the origin).
  d.base_subspace.setZero();
  d.base_subspace.bottomLeftCorner<3, 3>().setIdentity();
  d.base_subspace.topRightCorner<3, 3>().setIdentity();
  d.base_subspace.bottomRightCorner<3, 3>() = so3::skew(q.base_position);
}

// d/dt(ṗ + p × ω) − (p̈ + p × ω̇) = ṗ × ω.
void baseMotion(const Model& model, const Configuration& q, const VectorXd& v, Vector6d& V0, Vector6d& c0) {
  V0.setZero();
  c0.setZero();
  if (model.nvBase() != 6) return;
  const Vector3d pd = v.head<3>(), w = v.segment<3>(3);
  V0 << w, pd + q.base_position.cross(w);
  c0.tail<3>() = pd.cross(w);
}

}  // namespace detail

using detail::baseMotion;
using detail::crossForce;
using detail::crossMotion;
using detail::linkVelocities;

namespace {

void applyWrenches(const Model& model, DynamicsData& d, std::span<const ExternalWrench> wrenches) {
  for (const ExternalWrench& w : wrenches) {
    if (!w.link.valid() || w.link.value >= model.numLinks())
      throw InvalidArgument("dynamics: external wrench on link id " + std::to_string(w.link.value) +
                            ", the model has " + std::to_string(model.numLinks()) + " links");
    Vector6d f;
    f << w.moment + w.point.cross(w.force), w.force;
    d.force[static_cast<std::size_t>(w.link.value)] -= f;
  }
}

}  // namespace

void detail::linkVelocities(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v) {
  detail::prepareDynamics(model, d, q);
  const int nb = model.nvBase();
  Vector6d c0;
  baseMotion(model, q, v, d.velocity[0], c0);
  for (int l = 1; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    d.velocity[i] =
        d.velocity[static_cast<std::size_t>(model.parent(LinkId(l)).value)] + d.subspace[i - 1] * v[nb + l - 1];
  }
}

Matrix6d SpatialInertia::matrix() const {
  Matrix6d M;
  const Matrix3d H = so3::skew(first_moment);
  M.topLeftCorner<3, 3>() = rotational;
  M.topRightCorner<3, 3>() = H;
  M.bottomLeftCorner<3, 3>() = -H;
  M.bottomRightCorner<3, 3>() = mass * Matrix3d::Identity();
  return M;
}

DynamicsData::DynamicsData(const Model& model)
    : kinematics(model),
      inertia(static_cast<std::size_t>(model.numLinks())),
      composite(static_cast<std::size_t>(model.numLinks())),
      articulated(static_cast<std::size_t>(model.numLinks()), Matrix6d::Zero()),
      massive(static_cast<std::size_t>(model.numLinks()), 0),
      velocity(static_cast<std::size_t>(model.numLinks()), Vector6d::Zero()),
      acceleration(static_cast<std::size_t>(model.numLinks()), Vector6d::Zero()),
      force(static_cast<std::size_t>(model.numLinks()), Vector6d::Zero()),
      subspace(static_cast<std::size_t>(model.numJoints()), Vector6d::Zero()),
      U(static_cast<std::size_t>(model.numJoints()), Vector6d::Zero()),
      bias_acceleration(static_cast<std::size_t>(model.numJoints()), Vector6d::Zero()),
      D(static_cast<std::size_t>(model.numJoints()), 0.0),
      u(static_cast<std::size_t>(model.numJoints()), 0.0),
      tau(VectorXd::Zero(model.nv())),
      mass_matrix(MatrixXd::Zero(model.nv(), model.nv())),
      ddq(VectorXd::Zero(model.nv())) {
  checkMassProperties(model);  // a clear error here rather than NaN in aba()
  for (int l = 0; l < model.numLinks(); ++l)
    massive[static_cast<std::size_t>(l)] = model.inertial(LinkId(l)).mass > 0.0;
}

const VectorXd& rnea(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v, const VectorXd& a,
                     std::span<const ExternalWrench> wrenches, const Vector3d& gravity) {
  const int nb = model.nvBase();
  checkSize(v, model.nv(), "rnea: velocity");
  checkSize(a, model.nv(), "rnea: acceleration");
  detail::prepareDynamics(model, d, q);
  // Root: gravity as a fictitious upward acceleration (0; −g) of the root.
  Vector6d V0, c0;
  baseMotion(model, q, v, V0, c0);
  d.velocity[0] = V0;
  d.acceleration[0] = c0;
  d.acceleration[0].tail<3>() -= gravity;
  if (nb == 6) d.acceleration[0].noalias() += d.base_subspace * a.head<6>();
  // Forward: velocities, accelerations, body forces.
  for (int l = 0; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    if (l > 0) {
      const auto j = static_cast<std::size_t>(l - 1);
      const auto p = static_cast<std::size_t>(model.parent(LinkId(l)).value);
      const Vector6d& S = d.subspace[j];
      d.velocity[i] = d.velocity[p] + S * v[nb + l - 1];
      // Ṡ = V × S for an axis fixed in the moving body (world coordinates).
      d.acceleration[i] = d.acceleration[p] + S * a[nb + l - 1] + crossMotion(d.velocity[i], S) * v[nb + l - 1];
    }
    if (d.massive[i])
      d.force[i] = d.inertia[i].apply(d.acceleration[i]) + crossForce(d.velocity[i], d.inertia[i].apply(d.velocity[i]));
    else
      d.force[i].setZero();
  }
  applyWrenches(model, d, wrenches);
  // Backward: joint forces, accumulated onto parents.
  for (int l = model.numLinks() - 1; l > 0; --l) {
    const auto i = static_cast<std::size_t>(l);
    d.tau[nb + l - 1] = d.subspace[i - 1].dot(d.force[i]);
    d.force[static_cast<std::size_t>(model.parent(LinkId(l)).value)] += d.force[i];
  }
  if (nb == 6) d.tau.head<6>() = d.base_subspace.transpose() * d.force[0];
  return d.tau;
}

const VectorXd& nonlinearEffects(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v,
                                 const Vector3d& gravity) {
  d.ddq.setZero();  // scratch: ν̇ = 0
  return rnea(model, d, q, v, d.ddq, {}, gravity);
}

const MatrixXd& crba(const Model& model, DynamicsData& d, const Configuration& q) {
  const int nb = model.nvBase();
  detail::prepareDynamics(model, d, q);
  for (int l = 0; l < model.numLinks(); ++l)
    d.composite[static_cast<std::size_t>(l)] = d.inertia[static_cast<std::size_t>(l)];
  for (int l = model.numLinks() - 1; l > 0; --l)
    d.composite[static_cast<std::size_t>(model.parent(LinkId(l)).value)] += d.composite[static_cast<std::size_t>(l)];
  MatrixXd& M = d.mass_matrix;
  // M(c, k) = S_kᵀ Ic(l_c) S_c for every joint k supporting c's link (and the base): the branch
  // sparsity of a tree; other entries stay zero.
  for (int j = 0; j < model.numJoints(); ++j) {
    const Vector6d F = d.composite[static_cast<std::size_t>(j + 1)].apply(d.subspace[static_cast<std::size_t>(j)]);
    for (const std::int32_t k : model.support(LinkId(j + 1))) {
      const double m = d.subspace[static_cast<std::size_t>(k)].dot(F);
      M(nb + j, nb + k) = m;
      M(nb + k, nb + j) = m;
    }
    if (nb == 6) {
      const Vector6d Fb = d.base_subspace.transpose() * F;
      M.block<6, 1>(0, nb + j) = Fb;
      M.block<1, 6>(nb + j, 0) = Fb.transpose();
    }
  }
  if (nb == 6) M.topLeftCorner<6, 6>() = d.base_subspace.transpose() * d.composite[0].matrix() * d.base_subspace;
  return M;
}

const VectorXd& aba(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v, const VectorXd& tau,
                    std::span<const ExternalWrench> wrenches, const Vector3d& gravity) {
  const int nb = model.nvBase();
  checkSize(v, model.nv(), "aba: velocity");
  checkSize(tau, model.nv(), "aba: generalised forces");
  detail::prepareDynamics(model, d, q);
  // Pass 1: velocities, bias accelerations c = V × S q̇, articulated inertias and bias forces.
  Vector6d V0, c0;
  baseMotion(model, q, v, V0, c0);
  d.velocity[0] = V0;
  for (int l = 0; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    if (l > 0) {
      const auto j = static_cast<std::size_t>(l - 1);
      const auto p = static_cast<std::size_t>(model.parent(LinkId(l)).value);
      const Vector6d& S = d.subspace[j];
      d.velocity[i] = d.velocity[p] + S * v[nb + l - 1];
      d.bias_acceleration[j] = crossMotion(d.velocity[i], S) * v[nb + l - 1];
    }
    if (d.massive[i]) {
      d.articulated[i] = d.inertia[i].matrix();
      d.force[i] = crossForce(d.velocity[i], d.inertia[i].apply(d.velocity[i]));  // pA
    } else {
      d.articulated[i].setZero();
      d.force[i].setZero();
    }
  }
  applyWrenches(model, d, wrenches);
  // Pass 2: leaves to root.
  for (int l = model.numLinks() - 1; l > 0; --l) {
    const auto i = static_cast<std::size_t>(l), j = static_cast<std::size_t>(l - 1);
    const auto p = static_cast<std::size_t>(model.parent(LinkId(l)).value);
    const Vector6d& S = d.subspace[j];
    d.U[j] = d.articulated[i] * S;
    d.D[j] = S.dot(d.U[j]);
    d.u[j] = tau[nb + l - 1] - S.dot(d.force[i]);
    Matrix6d& Ia = d.articulated[i];  // becomes I^a = I^A − U Uᵀ / D in place
    Ia.noalias() -= (d.U[j] / d.D[j]) * d.U[j].transpose();
    d.articulated[p] += Ia;
    d.force[p] += d.force[i] + Ia * d.bias_acceleration[j] + d.U[j] * (d.u[j] / d.D[j]);
  }
  // Pass 3: root to leaves, with gravity as the root's fictitious acceleration (0; −g).
  Vector6d A0;
  if (nb == 6) {
    // Base generalised forces (force; moment about p_B) as a spatial force at the origin.
    Vector6d F0;
    F0 << tau.segment<3>(3) + q.base_position.cross(tau.head<3>()), tau.head<3>();
    A0 = d.articulated[0].ldlt().solve(F0 - d.force[0]);
  } else {
    A0.setZero();
    A0.tail<3>() = -gravity;
  }
  d.acceleration[0] = A0;
  for (int l = 1; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l), j = static_cast<std::size_t>(l - 1);
    const auto p = static_cast<std::size_t>(model.parent(LinkId(l)).value);
    const Vector6d a = d.acceleration[p] + d.bias_acceleration[j];
    const double qdd = (d.u[j] - d.U[j].dot(a)) / d.D[j];
    d.ddq[nb + l - 1] = qdd;
    d.acceleration[i] = a + d.subspace[j] * qdd;
  }
  if (nb == 6) {
    // Back from the fictitious root acceleration to ν̇_B: A0 + (0; g) = (ω̇; p̈ + ṗ × ω + p × ω̇).
    Vector6d A = A0;
    A.tail<3>() += gravity;
    const Vector3d wd = A.head<3>();
    d.ddq.segment<3>(3) = wd;
    d.ddq.head<3>() = A.tail<3>() - v.head<3>().cross(v.segment<3>(3)) - q.base_position.cross(wd);
  }
  return d.ddq;
}

Vector3d centerOfMass(const Model& model, DynamicsData& d, const Configuration& q) {
  forwardKinematics(model, d.kinematics, q);
  double m = 0.0;
  Vector3d mc = Vector3d::Zero();
  for (int l = 0; l < model.numLinks(); ++l) {
    const Inertial& in = model.inertial(LinkId(l));
    const Transform& X = d.kinematics.link[static_cast<std::size_t>(l)];
    m += in.mass;
    mc += in.mass * (X.p + X.R * in.com);
  }
  return m > 0.0 ? Vector3d(mc / m) : Vector3d::Zero();
}

Vector6d spatialMomentum(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v) {
  checkSize(v, model.nv(), "spatialMomentum: velocity");
  linkVelocities(model, d, q, v);
  Vector6d h = Vector6d::Zero();
  for (int l = 0; l < model.numLinks(); ++l)
    h += d.inertia[static_cast<std::size_t>(l)].apply(d.velocity[static_cast<std::size_t>(l)]);
  return h;
}

double kineticEnergy(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v) {
  checkSize(v, model.nv(), "kineticEnergy: velocity");
  linkVelocities(model, d, q, v);
  double e = 0.0;
  for (int l = 0; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    e += 0.5 * d.velocity[i].dot(d.inertia[i].apply(d.velocity[i]));
  }
  return e;
}

}  // namespace kinetrack
