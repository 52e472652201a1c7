#include "kinetrack/dynamics/assembly.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>

#include "assembly_impl.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "rigid_body_detail.hpp"

// The formulation (docs/dynamics.md, "Assembly–disassembly"). Every subassembly C carries, for
// ports h (the bodies with open joint ends), the linear map from the spatial forces f_h applied to
// them to their spatial accelerations:
//     a_h = Σ_k Φ_hk f_k + β_h      (world Plücker coordinates, Φ symmetric positive semi-definite)
// A single body (one port) has Φ = I⁻¹ and β = I⁻¹ (gravity + external − v ×* I v).
//
// A joint e carries the force f_e from its parent end to its child end (−f_e acts on the parent
// end; sign s = −1 there, +1 at the child end). Its relative acceleration
//     Δa_e = a_child − a_parent = S_e q̈_e + c_e
// constrains Tᵀ(Δa_e − c_e) = 0 for a force basis T of the directions S_e does not move in, and
// S_eᵀ f_e = τ_e. Joining A and B through the joints E between them (one tree joint and any loop
// closures that close there): with Φ_EE the joints' mutual inverse inertia, r_E = β_E − c_E and
// D_{E,b} the joints' relative acceleration per unit force at an outer port b,
//     f_E = f0 − Y Σ_b D_{E,b} f_b,   Y = T (TᵀΦ_EE T)⁻¹ Tᵀ,   f0 = Wτ − Y(Φ_EE Wτ + r_E)
// (W = S(SᵀS)⁻¹), and the joined subassembly has Φ^C_ab = [a, b on one side] Φ_ab − D_{E,a}ᵀ Y
// D_{E,b}, β^C_a = β_a + D_{E,a}ᵀ f0. With a single joint (the common case) K = TᵀΦT is solved
// at fixed size and Y is kept factored, Y = ZᵀZ with Z = L⁻¹Tᵀ (Pass::joinOne in assembly_passes.cpp).

namespace kinetrack {

using assembly_detail::EdgeKind;
using assembly_detail::idx;
using assembly_detail::Mat6X;
using assembly_detail::MatN;
using assembly_detail::VecN;
using assembly_detail::Workspace;
using detail::crossForce;
using detail::crossMotion;

namespace {

// A basis T of the spatial forces a joint with motion subspace S transmits without doing work
// (TᵀS = 0), 6 − dofs columns: for a revolute joint (a; o × a) the two moments normal to a and
// the three forces through o; for a prismatic one the three moments and the two forces normal to
// its direction; otherwise the orthogonal complement of S by Householder QR.
void constraintBasis(const Mat6X& S, Mat6X& T) {
  const int d = static_cast<int>(S.cols());
  if (d == 0) {
    T.setIdentity();
    return;
  }
  if (d == 1) {
    const Vector3d a = S.col(0).head<3>();
    const double an = a.norm();
    if (an > 1e-12) {  // revolute: o × a is the linear part; recover o (the point nearest the origin)
      const Vector3d u = a / an;
      const Vector3d o = u.cross(S.col(0).tail<3>()) / an;  // u × (o × a)/|a| = o⊥
      const Vector3d n1 = u.unitOrthogonal(), n2 = u.cross(n1);
      T.col(0) << n1, Vector3d::Zero();
      T.col(1) << n2, Vector3d::Zero();
      for (int k = 0; k < 3; ++k) {
        const Vector3d e = Vector3d::Unit(k);
        T.col(2 + k) << o.cross(e), e;
      }
      return;
    }
    const Vector3d u = S.col(0).tail<3>().normalized();  // prismatic
    const Vector3d n1 = u.unitOrthogonal(), n2 = u.cross(n1);
    for (int k = 0; k < 3; ++k) T.col(k) << Vector3d::Unit(k), Vector3d::Zero();
    T.col(3) << Vector3d::Zero(), n1;
    T.col(4) << Vector3d::Zero(), n2;
    return;
  }
  if (d == 6) return;
  const Eigen::HouseholderQR<Mat6X> qr(S);
  const Matrix6d Q = qr.householderQ();
  T = Q.rightCols(6 - d);
}

using Impl = AssemblyPlan::Impl;
using Node = Impl::Node;
using Edge = Impl::Edge;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Workspace and the call.

AssemblyData::AssemblyData(const AssemblyPlan& plan)
    : ddq(VectorXd::Zero(plan.model().nv())),
      joint_force(static_cast<std::size_t>(plan.model().numJoints()), Vector6d::Zero()),
      closure_force(plan.options().loops.size(), Vector6d::Zero()),
      closure_rotation_error(plan.options().loops.size(), 0.0),
      closure_position_error(plan.options().loops.size(), 0.0),
      closure_velocity_error(plan.options().loops.size(), 0.0),
      ws_(std::make_unique<Workspace>(plan)) {}
AssemblyData::~AssemblyData() = default;
AssemblyData::AssemblyData(AssemblyData&&) noexcept = default;
AssemblyData& AssemblyData::operator=(AssemblyData&&) noexcept = default;

namespace {

void edgeBases(Workspace& w, const Edge& ed, std::size_t e);

}  // namespace

// A tree (or the free base) joint's motion subspace, velocity-product acceleration and forces at
// the call's state, then its bases (edgeBases).
void assembly_detail::setupEdge(const Model& model, Workspace& w, const Edge& ed, std::size_t e, int nb) {
  const VectorXd& v = *w.v;
  const VectorXd& tau = *w.tau_in;
  if (ed.kind == EdgeKind::Free) {
    Vector6d V0, c0;
    detail::baseMotion(model, *w.q, v, V0, c0);
    w.S[e] = w.dyn.base_subspace;
    w.c[e] = c0;
    w.tau[e] = tau.head<6>();
  } else {
    w.c[e].setZero();
    for (std::size_t k = 0; k < ed.joints.size(); ++k) {
      const int j = ed.joints[k];
      const Vector6d& S = w.dyn.subspace[idx(j)];
      w.S[e].col(static_cast<Eigen::Index>(k)) = S;
      w.c[e] += crossMotion(w.dyn.velocity[idx(j + 1)], S) * v[nb + j];
      w.tau[e][static_cast<Eigen::Index>(k)] = tau[nb + j];
    }
  }
  edgeBases(w, ed, e);
}

namespace {

// Per joint, once per call: the constraint-force basis T, the working force Wτ (W = S(SᵀS)⁻¹,
// SᵀWτ = τ) and, for several DoF, the pseudo-inverse S⁺ — by Householder QR of S (S = Q R),
// W τ = Q₁R⁻ᵀτ and S⁺ = R⁻¹Q₁ᵀ, which stay accurate near a spherical joint's gimbal lock where
// the normal equations SᵀS would square the conditioning.
void edgeBases(Workspace& w, const Edge& ed, std::size_t e) {
  const Mat6X& S = w.S[e];
  if (ed.kind == EdgeKind::Free) {
    const Vector3d& pb = w.dyn.kinematics.link[0].p;
    const VecN& t = w.tau[e];
    w.Wt[e] << t.tail<3>() + pb.cross(t.head<3>()), t.head<3>();
    return;
  }
  const int d = ed.dofs;
  if (d <= 1) {
    constraintBasis(S, w.T[e]);
    if (d == 1)
      w.Wt[e] = S.col(0) * (w.tau[e][0] / S.col(0).squaredNorm());
    else
      w.Wt[e].setZero();
    return;
  }
  if (ed.concurrent) {
    // Rotations about one point o: S = (A; o × A) with the world axes A (3 × d). T: the three
    // forces through o and the moments normal to every axis; Wτ a couple n with Aᵀn = τ;
    // q̈ = A⁺ (angular part).
    const Vector3d o = w.dyn.kinematics.link[idx(ed.joints.back() + 1)].p;
    Mat6X& T = w.T[e];
    for (int k = 0; k < 3; ++k) {
      const Vector3d u = Vector3d::Unit(k);
      T.col(k) << o.cross(u), u;
    }
    if (d == 2) {
      const Vector3d nrm = S.col(0).head<3>().cross(S.col(1).head<3>()).normalized();
      T.col(3) << nrm, Vector3d::Zero();
      const Eigen::Matrix<double, 3, 2> A = S.topRows<3>();
      const Eigen::Matrix2d AtA = A.transpose() * A;
      const Eigen::Matrix<double, 2, 3> Ap = AtA.inverse() * A.transpose();
      w.Wt[e] << Ap.transpose() * w.tau[e], Vector3d::Zero();
      w.Spinv[e].setZero();
      w.Spinv[e].leftCols<3>() = Ap;
    } else {
      const Matrix3d A = S.topRows<3>();
      const Matrix3d Ainv = A.inverse();
      w.Wt[e] << Ainv.transpose() * w.tau[e], Vector3d::Zero();
      w.Spinv[e].setZero();
      w.Spinv[e].leftCols<3>() = Ainv;
    }
    return;
  }
  const Eigen::HouseholderQR<Mat6X> qr(S);
  const Matrix6d Q = qr.householderQ();
  const auto R = qr.matrixQR().topLeftCorner(d, d).triangularView<Eigen::Upper>();
  w.T[e] = Q.rightCols(6 - d);
  VecN y = w.tau[e];
  R.transpose().solveInPlace(y);
  w.Wt[e].noalias() = Q.leftCols(d) * y;
  MatN Qt = Q.leftCols(d).transpose();
  R.solveInPlace(Qt);
  w.Spinv[e] = Qt;
}

// Step 4: joint accelerations from the bodies' accelerations, S q̈ = a_child − a_parent − c.
void jointAccelerations(const Impl& p, const Workspace& w, const Configuration& q, int nb, VectorXd& out) {
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    const Edge& ed = p.edges[e];
    if (ed.kind == EdgeKind::Loop) continue;
    const Vector6d rel = w.body_acc[idx(ed.child_body)] - w.body_acc[idx(ed.parent_body)] - w.c[e];
    if (ed.kind == EdgeKind::Free) {
      const Vector3d wd = rel.head<3>();
      out.segment<3>(3) = wd;
      out.head<3>() = rel.tail<3>() - q.base_position.cross(wd);
    } else if (ed.dofs == 1) {
      const auto& S = w.S[e].col(0);
      out[nb + ed.joints[0]] = S.dot(rel) / S.squaredNorm();
    } else {
      const VecN qdd = w.Spinv[e] * rel;
      for (std::size_t k = 0; k < ed.joints.size(); ++k) out[nb + ed.joints[k]] = qdd[static_cast<Eigen::Index>(k)];
    }
  }
}

// The residual at data.ddq, as the right-hand side of a correction: per joint τ − Sᵀ F (F the
// force the joint must transmit for the bodies to accelerate as computed: Newton–Euler with
// gravity, external and closure forces), per closure the unmet relative acceleration c − Δa; the
// joints' velocity-product terms are set to zero (the correction is linear in ν̇).
void residual(const Impl& p, const Model& model, Workspace& w, AssemblyData& data, const VectorXd& tau) {
  const int nb = p.nb;
  // Body accelerations from ν̇ (the root's, then down the tree joints, parents first).
  w.body_acc[0].setZero();
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    const Edge& ed = p.edges[e];
    if (ed.kind == EdgeKind::Loop) continue;
    Vector6d a = w.body_acc[idx(ed.parent_body)] + w.c[e];
    if (ed.kind == EdgeKind::Free) {
      a.noalias() += w.S[e] * data.ddq.head<6>();
    } else {
      for (std::size_t k = 0; k < ed.joints.size(); ++k)
        a.noalias() += w.S[e].col(static_cast<Eigen::Index>(k)) * data.ddq[nb + ed.joints[k]];
    }
    w.body_acc[idx(ed.child_body)] = a;
  }
  // Net force each body needs minus what acts on it besides its tree joints.
  for (std::size_t b = 1; b < p.body_link.size(); ++b) {
    const int link = p.body_link[b];
    if (link < 0) continue;
    const Inertial& in = model.inertial(LinkId(link));
    const Transform& X = w.dyn.kinematics.link[idx(link)];
    const Vector3d c = X.p + X.R * in.com;
    const Vector6d& vel = w.dyn.velocity[idx(link)];
    const SpatialInertia& I = w.dyn.inertia[idx(link)];
    Vector6d f = I.apply(w.body_acc[b]) + crossForce(vel, I.apply(vel)) - w.body_ext[b];
    f.head<3>() -= c.cross(in.mass * w.gravity);
    f.tail<3>() -= in.mass * w.gravity;
    w.body_force[b] = f;
  }
  w.body_force[0].setZero();
  for (std::size_t k = 0; k < data.closure_force.size(); ++k) {
    const Edge& ed = p.edges[idx(p.loop_edge[k])];
    w.body_force[idx(ed.child_body)] -= data.closure_force[k];
    w.body_force[idx(ed.parent_body)] += data.closure_force[k];
  }
  // Up the tree (children after parents in edge order): joint force and residual.
  for (std::size_t e = p.edges.size(); e-- > 0;) {
    const Edge& ed = p.edges[e];
    if (ed.kind == EdgeKind::Loop) {
      const Vector6d da = w.body_acc[idx(ed.child_body)] - w.body_acc[idx(ed.parent_body)];
      w.c[e] -= da;  // the unmet part of c (only Tᵀ of it is imposed)
      continue;
    }
    const Vector6d& F = w.body_force[idx(ed.child_body)];
    w.body_force[idx(ed.parent_body)] += F;
    if (ed.kind == EdgeKind::Free) {
      w.tau[e] = tau.head<6>() - w.S[e].transpose() * F;
    } else {
      for (std::size_t k = 0; k < ed.joints.size(); ++k)
        w.tau[e][static_cast<Eigen::Index>(k)] =
            tau[nb + ed.joints[k]] - w.S[e].col(static_cast<Eigen::Index>(k)).dot(F);
    }
    w.c[e].setZero();
  }
}

}  // namespace

const VectorXd& assemblyForwardDynamics(const AssemblyPlan& plan, AssemblyData& data, const Configuration& q,
                                        const VectorXd& v, const VectorXd& tau,
                                        std::span<const ExternalWrench> wrenches, const Vector3d& gravity) {
  const Model& model = plan.model();
  const Impl& p = plan.impl();
  Workspace& w = data.workspace();
  if (w.plan_impl != &p) throw InvalidArgument("assemblyForwardDynamics: the data was made for another plan");
  const int nb = p.nb;
  detail::checkSize(v, model.nv(), "assemblyForwardDynamics: velocity");
  detail::checkSize(tau, model.nv(), "assemblyForwardDynamics: generalised forces");
  detail::linkVelocities(model, w.dyn, q, v);
  w.gravity = gravity;

  // Tree joints are set up (motion subspaces, bases, forces) in the join that closes them, on the
  // thread that runs it; loop closures here.
  w.q = &q;
  w.v = &v;
  w.tau_in = &tau;
  // Loop closures: the frames' poses, errors and the stabilising relative acceleration.
  const std::vector<LoopClosure>& loops = plan.options().loops;
  if (!loops.empty()) w.kin.link = w.dyn.kinematics.link;
  for (std::size_t k = 0; k < loops.size(); ++k) {
    const LoopClosure& lc = loops[k];
    const int e = p.loop_edge[k];
    const Transform X = updateFramePlacement(model, w.kin, lc.frame);
    Transform target = lc.offset;
    Vector6d v_other = Vector6d::Zero();
    if (lc.other) {
      const Transform& Yo = updateFramePlacement(model, w.kin, *lc.other);
      target.R = Yo.R * lc.offset.R;
      target.p = Yo.p + Yo.R * lc.offset.p;
      v_other = w.dyn.velocity[idx(model.frameLink(*lc.other).value)];
    }
    const Vector6d dv = w.dyn.velocity[idx(model.frameLink(lc.frame).value)] - v_other;
    const Vector3d theta = lc.type == ClosureType::Weld ? so3::log(X.R * target.R.transpose()) : Vector3d::Zero();
    const Vector3d delta = X.p - target.p;
    Vector6d dx;
    dx << theta, delta + X.p.cross(theta);
    const double wn = lc.frequency;
    w.c[idx(e)] = -2.0 * wn * dv - wn * wn * dx;
    if (lc.type == ClosureType::Point) {
      // The constraint point moves: d/dt of the relative point velocity Tᵀ Δv adds
      // ω_x × ṗ_x − ω_y × ṗ_y (each body's point velocity ṗ = v_O + ω × p).
      const Vector6d& vx = w.dyn.velocity[idx(model.frameLink(lc.frame).value)];
      const Vector3d px = vx.tail<3>() + vx.head<3>().cross(X.p);
      const Vector3d py = v_other.tail<3>() + v_other.head<3>().cross(target.p);
      w.c[idx(e)].tail<3>() -= vx.head<3>().cross(px) - v_other.head<3>().cross(py);
      Mat6X& S = w.S[idx(e)];
      for (int a = 0; a < 3; ++a) {
        const Vector3d u = Vector3d::Unit(a);
        S.col(a) << u, X.p.cross(u);
      }
    }
    edgeBases(w, p.edges[idx(e)], idx(e));
    data.closure_rotation_error[k] = theta.norm();
    data.closure_position_error[k] = delta.norm();
    const Vector3d dv_point = dv.tail<3>() + dv.head<3>().cross(X.p);
    data.closure_velocity_error[k] =
        lc.type == ClosureType::Weld ? std::hypot(dv_point.norm(), dv.head<3>().norm()) : dv_point.norm();
  }
  // External wrenches onto their bodies.
  for (Vector6d& f : w.body_ext) f.setZero();
  for (const ExternalWrench& x : wrenches) {
    if (!x.link.valid() || x.link.value >= model.numLinks())
      throw InvalidArgument("assemblyForwardDynamics: external wrench on link id " + std::to_string(x.link.value) +
                            ", the model has " + std::to_string(model.numLinks()) + " links");
    const int body = p.link_body[idx(x.link.value)];
    if (body < 0)
      throw InvalidArgument("assemblyForwardDynamics: external wrench on the massless link '" + model.linkName(x.link) +
                            "'");
    if (body == 0) continue;  // the world / a fixed root does not move
    w.body_ext[idx(body)].head<3>() += x.moment + x.point.cross(x.force);
    w.body_ext[idx(body)].tail<3>() += x.force;
  }

  // Steps 1 to 4.
  assembly_detail::runPasses(p, model, w, false);
  jointAccelerations(p, w, q, nb, data.ddq);
  for (std::size_t k = 0; k < loops.size(); ++k) data.closure_force[k] = w.edge_force[idx(p.loop_edge[k])];
  for (std::size_t e = 0; e < p.edges.size(); ++e)
    for (const int j : p.edges[e].joints) data.joint_force[idx(j)] = w.edge_force[e];

  // Iterative refinement: the residual of the equations of motion (and of the closures) at the
  // result, solved for a correction with the same factorisation (right-hand sides only).
  for (int it = 0; it < plan.options().refinement_steps; ++it) {
    residual(p, model, w, data, tau);
    for (std::size_t e = 0; e < p.edges.size(); ++e) edgeBases(w, p.edges[e], e);
    assembly_detail::runPasses(p, model, w, true);
    jointAccelerations(p, w, q, nb, w.delta);
    data.ddq += w.delta;
    for (std::size_t k = 0; k < loops.size(); ++k) data.closure_force[k] += w.edge_force[idx(p.loop_edge[k])];
    for (std::size_t e = 0; e < p.edges.size(); ++e)
      for (const int j : p.edges[e].joints) data.joint_force[idx(j)] += w.edge_force[e];
  }
  return data.ddq;
}

}  // namespace kinetrack
