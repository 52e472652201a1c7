#include "kinetrack/dynamics/rigid_body.hpp"

#include <Eigen/Cholesky>
#include <array>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/mass_properties.hpp"
#include "rigid_body_detail.hpp"

namespace kinetrack {

namespace {

// Spatial inertia about the origin of a link with mass, in two steps that prepareDynamics runs
// in separate loops over the links (a 3 × 3 result read straight back, in other pairs of
// doubles than it was stored in, stalls the loads: store forwarding fails):
// 1) centre of mass c = p + R c_L (kept in first_moment for now) and R Ic Rᵀ, the rotational
//    inertia about it in world axes;
// 2) parallel axes: I_O = R Ic Rᵀ + m((c·c)1 − c cᵀ) and h = m c.
void worldInertiaAtCom(const Inertial& in, const Transform& X, SpatialInertia& I) {
  I.first_moment = X.p + X.R * in.com;
  Matrix3d T;
  T.noalias() = X.R * in.inertia;
  I.rotational.noalias() = T * X.R.transpose();
  I.mass = in.mass;
}

void shiftInertiaToOrigin(SpatialInertia& I) {
  const Vector3d c = I.first_moment;
  I.first_moment = I.mass * c;
  I.rotational.noalias() -= I.first_moment * c.transpose();
  I.rotational.diagonal().array() += I.mass * c.squaredNorm();
}

// The 6 × 6 form [I_O, [h]×; −[h]×, m·1] of a spatial inertia, written into M.
inline void inertiaMatrix(const SpatialInertia& I, Matrix6d& M) {
  const Vector3d& h = I.first_moment;
  M.topLeftCorner<3, 3>() = I.rotational;
  M.bottomRightCorner<3, 3>().setZero();
  M.bottomRightCorner<3, 3>().diagonal().setConstant(I.mass);
  M.topRightCorner<3, 3>().diagonal().setZero();  // [h]×
  M(0, 4) = -h.z(), M(0, 5) = h.y(), M(1, 5) = -h.x();
  M(1, 3) = h.z(), M(2, 3) = -h.y(), M(2, 4) = h.x();
  M.bottomLeftCorner<3, 3>() = M.topRightCorner<3, 3>().transpose();  // −[h]× = [h]×ᵀ
}

// A function-driven joint (model/joint_function.hpp) at coordinate s, its parent held: the
// motion subspace S = (ω; v_O) per unit ṡ (ω the child's angular velocity, v_O = v_c + p_c × ω
// the velocity of the child-fixed point at the world origin, p_c the child origin) and its rate
// ∂S/∂s, which the acceleration needs as (∂S/∂s) ṡ² besides V × S ṡ (an axis that moves with s):
//   ω = Σ_k f_k′ u_k,  u_k = R_j R_1 ⋯ R_{k−1} r_k,  ∂u_k/∂s = (Σ_{m<k} f_m′ u_m) × u_k,
//   v_c = R_j t′(s),  ∂v_O/∂s = R_j t″ + v_c × ω + p_c × ∂ω/∂s.
void customSubspace(const Model& model, DynamicsData& d, JointId j, double s) {
  const auto jj = static_cast<std::size_t>(j.value);
  const Transform& P = d.kinematics.link[static_cast<std::size_t>(model.parentLink(j).value)];
  const Matrix3d Rj = P.R * model.jointPlacement(j).R;
  const JointMotion& motion = model.jointMotion(j);
  Vector3d dt = Vector3d::Zero(), ddt = Vector3d::Zero(), w = Vector3d::Zero(), dw = Vector3d::Zero();
  double f = 0.0, df = 0.0, ddf = 0.0;
  for (const MotionAxis& ax : motion.translations) {
    ax.function.evaluate(s, f, df, ddf);
    dt += df * ax.axis;
    ddt += ddf * ax.axis;
  }
  Matrix3d R = Rj;
  for (const MotionAxis& ax : motion.rotations) {
    ax.function.evaluate(s, f, df, ddf);
    const Vector3d u = R * ax.axis;
    dw += ddf * u + df * w.cross(u);
    w += df * u;
    if (f != 0.0) R = R * so3::axisAngle(ax.axis, f);
  }
  const Vector3d& p = d.kinematics.link[jj + 1].p;
  const Vector3d v = Rj * dt;
  Vector6d& S = d.subspace[jj];
  S << w, v + p.cross(w);
  d.subspace_rate[jj] << dw, Rj * ddt + v.cross(w) + p.cross(dw);
}

}  // namespace

namespace detail {

void refuseCustomJoints(const Model& model) {
  std::string names;
  for (int j = 0; j < model.numJoints(); ++j)
    if (model.jointType(JointId(j)) == JointType::Custom)
      names += (names.empty() ? "" : ", ") + model.jointName(JointId(j));
  throw InvalidArgument(
      "dynamics: model '" + model.name() +
      "' has function-driven (custom) joints, which the rigid-body dynamics does not support yet: " + names);
}

void checkSize(const VectorXd& x, int nv, const char* what) {
  if (x.size() != nv)
    throw InvalidArgument(std::string(what) + ": expected " + std::to_string(nv) + " entries, got " +
                          std::to_string(x.size()));
}

void prepareDynamics(const Model& model, DynamicsData& d, const Configuration& q, bool custom_joints) {
  if (!custom_joints && model.hasCustomJoints()) refuseCustomJoints(model);
  if (q.joints.size() != model.numJoints())
    throw InvalidArgument("dynamics: expected " + std::to_string(model.numJoints()) + " joint coordinates, got " +
                          std::to_string(q.joints.size()));
  forwardKinematics(model, d.kinematics, q);
  for (int l = 0; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    if (d.massive[i]) worldInertiaAtCom(model.inertial(LinkId(l)), d.kinematics.link[i], d.inertia[i]);  // else zero
  }
  for (int j = 0; j < model.numJoints(); ++j) {
    const Vector3d& a = d.kinematics.joint_axis[static_cast<std::size_t>(j)];
    Vector6d& S = d.subspace[static_cast<std::size_t>(j)];
    const JointType type = model.jointType(JointId(j));
    if (type == JointType::Custom) {
      customSubspace(model, d, JointId(j), q.joints[j]);
    } else if (type == JointType::Prismatic) {
      S.head<3>().setZero();
      S.tail<3>() = a;
    } else {  // revolute / continuous: the axis through the child link's origin
      const Vector3d& o = d.kinematics.link[static_cast<std::size_t>(j + 1)].p;
      // S = (a; o × a), the cross product entry by entry into S (through a Vector3d temporary
      // it is stored as scalars and loaded back as pairs: a store-forwarding stall).
      S[0] = a[0], S[1] = a[1], S[2] = a[2];
      S[3] = o[1] * a[2] - o[2] * a[1];
      S[4] = o[2] * a[0] - o[0] * a[2];
      S[5] = o[0] * a[1] - o[1] * a[0];
    }
  }
  for (int l = 0; l < model.numLinks(); ++l)
    if (d.massive[static_cast<std::size_t>(l)]) shiftInertiaToOrigin(d.inertia[static_cast<std::size_t>(l)]);
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
  detail::prepareDynamics(model, d, q, /*custom_joints=*/true);
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
  inertiaMatrix(*this, M);
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
      subspace_rate(static_cast<std::size_t>(model.numJoints()), Vector6d::Zero()),
      D(static_cast<std::size_t>(model.numJoints()), 0.0),
      u(static_cast<std::size_t>(model.numJoints()), 0.0),
      tau(VectorXd::Zero(model.nv())),
      mass_matrix(MatrixXd::Zero(model.nv(), model.nv())),
      ddq(VectorXd::Zero(model.nv())) {
  checkMassProperties(model);  // a clear error here rather than NaN in aba()
  const int nl = model.numLinks(), nj = model.numJoints();
  for (int l = 0; l < nl; ++l) massive[static_cast<std::size_t>(l)] = model.inertial(LinkId(l)).mass > 0.0;
  // aba: a massless link with exactly one child takes that child's articulated inertia as is.
  std::vector<int> children(static_cast<std::size_t>(nl), 0);
  only_child.assign(static_cast<std::size_t>(nl), -1);
  for (int l = 1; l < nl; ++l) {
    const auto p = static_cast<std::size_t>(model.parent(LinkId(l)).value);
    ++children[p];
    only_child[p] = l;
  }
  for (int l = 0; l < nl; ++l)
    if (massive[static_cast<std::size_t>(l)] || children[static_cast<std::size_t>(l)] != 1)
      only_child[static_cast<std::size_t>(l)] = -1;
  // crba: joints in blocks of up to three along a chain (massSupportBlock).
  for (int j = 0; j < nj; ++j) {
    const bool extends = !chain_blocks.empty() && j - chain_blocks.back() < 3 && model.parent(LinkId(j + 1)).value == j;
    if (!extends) chain_blocks.push_back(j);
  }
  chain_blocks.push_back(nj);
  // crba: each support as runs of consecutive joints.
  support_run_begin.reserve(static_cast<std::size_t>(nj) + 1);
  for (int j = 0; j < nj; ++j) {
    const std::size_t first = support_runs.size();
    support_run_begin.push_back(static_cast<std::int32_t>(first / 2));
    for (const std::int32_t k : model.support(LinkId(j + 1))) {
      if (support_runs.size() > first && support_runs[support_runs.size() - 2] + support_runs.back() == k) {
        ++support_runs.back();
      } else {
        support_runs.push_back(k);
        support_runs.push_back(1);
      }
    }
  }
  support_run_begin.push_back(static_cast<std::int32_t>(support_runs.size() / 2));
}

const VectorXd& rnea(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v, const VectorXd& a,
                     std::span<const ExternalWrench> wrenches, const Vector3d& gravity) {
  const int nb = model.nvBase();
  const bool custom = model.hasCustomJoints();
  detail::checkSize(v, model.nv(), "rnea: velocity");
  detail::checkSize(a, model.nv(), "rnea: acceleration");
  detail::prepareDynamics(model, d, q, /*custom_joints=*/true);
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
      if (custom) d.acceleration[i] += d.subspace_rate[j] * (v[nb + l - 1] * v[nb + l - 1]);
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

namespace {

// Columns and rows j0 … j0 + B − 1 of the joint block of M, for joints in a chain (each one's
// link the parent of the next one's): support(j0 + u) is support(j0) plus j0 + 1 … j0 + u, so
// the common part is walked once for all B forces F = d.force[j + 1] (= Ic S_j), its runs of
// consecutive joints giving contiguous columns; M(k, j) = S_k·F_j and M(j, k) the same.
template <int B>
void massSupportBlock(const DynamicsData& d, int nb, int j0, MatrixXd& M) {
  const Eigen::Index ld = M.outerStride();
  std::array<Vector6d, B> F;
  for (int t = 0; t < B; ++t) F[static_cast<std::size_t>(t)] = d.force[static_cast<std::size_t>(j0 + t + 1)];
  double* const col = M.data() + (nb + j0) * ld + nb;  // M(nb + k, nb + j0 + t) = col[t·ld + k]
  double* const row = M.data() + nb * ld + nb + j0;    // M(nb + j0 + t, nb + k) = row[k·ld + t]
  const std::int32_t* run = d.support_runs.data() + 2 * d.support_run_begin[static_cast<std::size_t>(j0)];
  const std::int32_t* const end = d.support_runs.data() + 2 * d.support_run_begin[static_cast<std::size_t>(j0) + 1];
  for (; run != end; run += 2)
    for (std::int32_t k = run[0]; k < run[0] + run[1]; ++k) {
      const Vector6d& S = d.subspace[static_cast<std::size_t>(k)];
      for (int t = 0; t < B; ++t) {
        const double m = S.dot(F[static_cast<std::size_t>(t)]);
        col[t * ld + k] = m;
        row[k * ld + t] = m;
      }
    }
  for (int u = 1; u < B; ++u)
    for (int k = j0 + 1; k <= j0 + u; ++k) {
      const double m = d.subspace[static_cast<std::size_t>(k)].dot(F[static_cast<std::size_t>(u)]);
      col[u * ld + k] = m;
      row[k * ld + u] = m;
    }
}

}  // namespace

const MatrixXd& crba(const Model& model, DynamicsData& d, const Configuration& q) {
  const int nb = model.nvBase();
  detail::prepareDynamics(model, d, q, /*custom_joints=*/true);
  for (int l = 0; l < model.numLinks(); ++l)
    d.composite[static_cast<std::size_t>(l)] = d.inertia[static_cast<std::size_t>(l)];
  for (int l = model.numLinks() - 1; l > 0; --l)
    d.composite[static_cast<std::size_t>(model.parent(LinkId(l)).value)] += d.composite[static_cast<std::size_t>(l)];
  MatrixXd& M = d.mass_matrix;
  const Vector3d& pB = q.base_position;
  // F_j = Ic S_j first, in a loop of their own: read back right after being written, they stall
  // the loads (the 3-vector halves are not the 2-double pairs the dot products load).
  for (int j = 0; j < model.numJoints(); ++j)
    d.force[static_cast<std::size_t>(j + 1)] =
        d.composite[static_cast<std::size_t>(j + 1)].apply(d.subspace[static_cast<std::size_t>(j)]);
  // M(c, k) = S_kᵀ Ic(l_c) S_c = S_kᵀ F_c for every joint k supporting c's link: the branch
  // sparsity of a tree; other entries stay zero. Joints in blocks of a chain (massSupportBlock).
  for (std::size_t b = 0; b + 1 < d.chain_blocks.size(); ++b) {
    const int j0 = d.chain_blocks[b];
    switch (d.chain_blocks[b + 1] - j0) {
      case 1: massSupportBlock<1>(d, nb, j0, M); break;
      case 2: massSupportBlock<2>(d, nb, j0, M); break;
      default: massSupportBlock<3>(d, nb, j0, M); break;
    }
  }
  if (nb == 6) {
    // The base rows and columns of joint j: S_Bᵀ F_j = (f; n − p_B × f), the force and its
    // moment about p_B.
    for (int j = 0; j < model.numJoints(); ++j) {
      const Vector6d& F = d.force[static_cast<std::size_t>(j + 1)];
      const Vector3d f = F.tail<3>(), n = F.head<3>() - pB.cross(F.tail<3>());
      M.block<3, 1>(0, nb + j) = f;
      M.block<3, 1>(3, nb + j) = n;
      M.block<1, 3>(nb + j, 0) = f.transpose();
      M.block<1, 3>(nb + j, 3) = n.transpose();
    }
    // S_Bᵀ Ic S_B for the whole body: the spatial inertia about p_B in (ṗ_B, ω_B) coordinates,
    // [m·1, −[c]×; [c]×, I_p] with the first moment c = h − m p_B about p_B and the rotational
    // inertia I_p = I_O + [h]×[p]× + [p]×[h]× − m[p]×[p]× = I_O + p hᵀ + c pᵀ + (m p·p − 2 h·p)1.
    const SpatialInertia& I = d.composite[0];
    const Vector3d& h = I.first_moment;
    const Vector3d c = h - I.mass * pB;
    const double diag = I.mass * pB.squaredNorm() - 2.0 * h.dot(pB);
    auto B = M.topLeftCorner<6, 6>();
    B.topLeftCorner<3, 3>() = I.mass * Matrix3d::Identity();
    B.bottomLeftCorner<3, 3>() << 0.0, -c.z(), c.y(), c.z(), 0.0, -c.x(), -c.y(), c.x(), 0.0;
    B.topRightCorner<3, 3>() = B.bottomLeftCorner<3, 3>().transpose();
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a <= b; ++a) {
        const double x = I.rotational(a, b) + pB[a] * h[b] + c[a] * pB[b] + (a == b ? diag : 0.0);
        B(3 + a, 3 + b) = x;
        B(3 + b, 3 + a) = x;
      }
  }
  return M;
}

const VectorXd& aba(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v, const VectorXd& tau,
                    std::span<const ExternalWrench> wrenches, const Vector3d& gravity) {
  const int nb = model.nvBase();
  detail::checkSize(v, model.nv(), "aba: velocity");
  detail::checkSize(tau, model.nv(), "aba: generalised forces");
  detail::prepareDynamics(model, d, q);
  // Pass 1: velocities, bias accelerations c = V × S q̇, rigid-body inertias and bias forces.
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
    } else if (nb == 0) {
      continue;  // a fixed root takes no part
    }
    if (d.massive[i]) {
      inertiaMatrix(d.inertia[i], d.articulated[i]);
      d.force[i] = crossForce(d.velocity[i], d.inertia[i].apply(d.velocity[i]));  // pA
    } else {
      if (d.only_child[i] < 0) d.articulated[i].setZero();  // else written in pass 2
      d.force[i].setZero();
    }
  }
  if (nb == 0) d.force[0].setZero();
  applyWrenches(model, d, wrenches);
  // Pass 2: leaves to root. I^a = I^A − U Uᵀ / D goes to the parent: added to it, or, for a
  // massless parent with no other child, written as the parent's own I^A (its zero never formed).
  for (int l = model.numLinks() - 1; l > 0; --l) {
    const auto i = static_cast<std::size_t>(l), j = static_cast<std::size_t>(l - 1);
    const auto p = static_cast<std::size_t>(model.parent(LinkId(l)).value);
    const Vector6d& S = d.subspace[j];
    Matrix6d& Ia = d.articulated[i];
    const Vector6d U = Ia * S;
    const double D = S.dot(U);
    const double u = tau[nb + l - 1] - S.dot(d.force[i]);
    d.U[j] = U;
    d.D[j] = D;
    d.u[j] = u;
    const Vector6d W = U / D;
    Matrix6d* out = &Ia;  // I^a
    if (d.only_child[p] == l) {
      out = &d.articulated[p];
      for (int k = 0; k < 6; ++k) out->col(k) = Ia.col(k) - W * U[k];
    } else if (p == 0 && nb == 0) {
      Ia.noalias() -= W * U.transpose();  // a fixed root takes no inertia
    } else {
      Matrix6d& A = d.articulated[p];
      for (int k = 0; k < 6; ++k) {
        Ia.col(k) -= W * U[k];
        A.col(k) += Ia.col(k);
      }
    }
    d.force[p] += d.force[i] + *out * d.bias_acceleration[j] + U * (u / D);
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
  detail::checkSize(v, model.nv(), "spatialMomentum: velocity");
  linkVelocities(model, d, q, v);
  Vector6d h = Vector6d::Zero();
  for (int l = 0; l < model.numLinks(); ++l)
    h += d.inertia[static_cast<std::size_t>(l)].apply(d.velocity[static_cast<std::size_t>(l)]);
  return h;
}

double kineticEnergy(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v) {
  detail::checkSize(v, model.nv(), "kineticEnergy: velocity");
  linkVelocities(model, d, q, v);
  double e = 0.0;
  for (int l = 0; l < model.numLinks(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    e += 0.5 * d.velocity[i].dot(d.inertia[i].apply(d.velocity[i]));
  }
  return e;
}

}  // namespace kinetrack
