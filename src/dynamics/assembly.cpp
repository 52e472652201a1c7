#include "kinetrack/dynamics/assembly.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>

#include "assembly_impl.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/core/worker_pool.hpp"
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
// at fixed size and Y is kept factored, Y = ZᵀZ with Z = L⁻¹Tᵀ (Pass::joinOne).

namespace kinetrack {

using assembly_detail::EdgeKind;
using assembly_detail::idx;
using assembly_detail::kMaxJoinEdges;
using detail::crossForce;
using detail::crossMotion;

namespace {

constexpr int kMaxStack = 6 * kMaxJoinEdges;
using MatX = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxStack, kMaxStack>;
using VecX = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxStack, 1>;
using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
using MatN = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using VecN = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

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

struct AssemblyData::Workspace {
  explicit Workspace(const AssemblyPlan& plan) : dyn(plan.model()), kin(plan.model()), plan_impl(&plan.impl()) {
    const Impl& p = plan.impl();
    phi.assign(idx(p.phi_size), Matrix6d::Zero());
    beta.assign(idx(p.beta_size), Vector6d::Zero());
    g.assign(idx(p.g_size), Matrix6d::Zero());
    f0.assign(idx(p.f0_size), Vector6d::Zero());
    y.assign(idx(p.y_size), Matrix6d::Zero());
    force.assign(idx(p.force_size), Vector6d::Zero());
    zform.assign(p.nodes.size(), 0);
    const std::size_t ne = p.edges.size();
    S.assign(ne, Mat6X());
    c.assign(ne, Vector6d::Zero());
    tau.assign(ne, VecN());
    edge_force.assign(ne, Vector6d::Zero());
    T.assign(ne, Mat6X());
    Wt.assign(ne, Vector6d::Zero());
    Spinv.assign(ne, MatN());
    for (std::size_t e = 0; e < ne; ++e) {
      T[e].resize(6, p.edges[e].kind == EdgeKind::Free ? 0 : 6 - p.edges[e].dofs);
      Spinv[e].resize(p.edges[e].dofs >= 2 ? p.edges[e].dofs : 0, 6);
      S[e].resize(6, p.edges[e].dofs);
      tau[e].resize(p.edges[e].dofs);
      tau[e].setZero();
    }
    body_ext.assign(p.body_link.size(), Vector6d::Zero());
    body_acc.assign(p.body_link.size(), Vector6d::Zero());
    body_force.assign(p.body_link.size(), Vector6d::Zero());
    delta = VectorXd::Zero(plan.model().nv());
    if (plan.options().threads > 1) pool = std::make_unique<detail::WorkerPool>(plan.options().threads, 50.0);
  }

  DynamicsData dyn;  // kinematics, inertias, subspaces, link velocities
  Data kin;          // frame placements of the loop closures
  const Impl* plan_impl;
  std::vector<Matrix6d> phi, g, y;
  std::vector<Vector6d> beta, f0, force;
  std::vector<std::uint8_t> zform;   // per node: joined by joinOne (y holds Z, g holds W_k)
  std::vector<Mat6X> S;              // per edge: motion subspace (world)
  std::vector<Vector6d> c;           // per edge: velocity-product (or stabilisation) acceleration
  std::vector<VecN> tau;             // per edge: generalised forces along S
  std::vector<Mat6X> T;              // per edge: constraint-force basis (6 − dofs columns)
  std::vector<Vector6d> Wt;          // per edge: W τ, the force that does the joint's work (TᵀWτ-free part)
  std::vector<MatN> Spinv;           // per edge with dofs ≥ 2: S⁺ = R⁻¹Q₁ᵀ (joint accelerations)
  std::vector<Vector6d> edge_force;  // per edge: f_e on the child end
  std::vector<Vector6d> body_ext;    // per body: gravity + external − v ×* I v (a force)
  std::vector<Vector6d> body_acc;    // per body: spatial acceleration
  std::vector<Vector6d> body_force;  // per body: refinement's Newton–Euler forces
  VectorXd delta;                    // refinement's correction of ν̇
  Vector3d gravity = Vector3d::Zero();
  const Configuration* q = nullptr;  // the call's state (set per call, read by the joins)
  const VectorXd* v = nullptr;
  const VectorXd* tau_in = nullptr;
  std::unique_ptr<detail::WorkerPool> pool;
};

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

using Workspace = AssemblyData::Workspace;

void edgeBases(Workspace& w, const Edge& ed, std::size_t e);

// A tree (or the free base) joint's motion subspace, velocity-product acceleration and forces at
// the call's state, then its bases (edgeBases).
void setupEdge(const Model& model, Workspace& w, const Edge& ed, std::size_t e, int nb) {
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

struct Pass {
  const Impl& p;
  const Model& model;
  Workspace& w;
  bool rhs_only = false;  // refinement: reuse Φ, Y, G; new joint forces τ and accelerations c only

  const Matrix6d& phiOf(const Node& n, int i, int j) const {
    return n.a < 0 ? w.phi[idx(n.phi)] : w.phi[idx(n.phi + i * static_cast<int>(n.ports.size()) + j)];
  }
  const Vector6d& betaOf(const Node& n, int i) const { return n.a < 0 ? w.beta[idx(n.beta)] : w.beta[idx(n.beta + i)]; }

  void leafAssembly(const Node& n) {
    const int link = p.body_link[idx(n.body)];
    if (rhs_only) {  // the correction has no gravity, velocity or external force on the bodies
      w.beta[idx(n.beta)].setZero();
      return;
    }
    if (link < 0) {  // the world (or a fixed root): immobile
      w.phi[idx(n.phi)].setZero();
      w.beta[idx(n.beta)].setZero();
      return;
    }
    const Inertial& in = model.inertial(LinkId(link));
    const Transform& X = w.dyn.kinematics.link[idx(link)];
    const Vector3d c = X.p + X.R * in.com;
    // I⁻¹ on (n_O; F) → (ω; v_O): ω = A(n − c × F), v_O = F/m + c × ω, A the world inverse
    // rotational inertia about the centre of mass.
    const Matrix3d A = X.R * p.inertia_inv[idx(n.body)] * X.R.transpose();
    const Matrix3d C = so3::skew(c);
    const Matrix3d AC = A * C;
    Matrix6d& phi = w.phi[idx(n.phi)];
    phi.topLeftCorner<3, 3>() = A;
    phi.topRightCorner<3, 3>() = -AC;
    phi.bottomLeftCorner<3, 3>() = -AC.transpose();  // C A
    phi.bottomRightCorner<3, 3>() = -C * AC;
    phi.bottomRightCorner<3, 3>().diagonal().array() += 1.0 / in.mass;
    // Applied force other than the joints': gravity, external wrenches, minus v ×* I v.
    const Vector6d& v = w.dyn.velocity[idx(link)];
    Vector6d f = w.body_ext[idx(n.body)] - crossForce(v, w.dyn.inertia[idx(link)].apply(v));
    f.head<3>() += c.cross(in.mass * w.gravity);
    f.tail<3>() += in.mass * w.gravity;
    w.beta[idx(n.beta)].noalias() = phi * f;
  }

  // f0 = Wτ − Y(Φ_EE Wτ + r) with the stored Y, and β^C = β + Dᵀ f0.
  void joinRhs(const Node& n, const Node& A, const Node& B) {
    const int m = static_cast<int>(n.edges.size());
    const int h = static_cast<int>(n.ports.size());
    const Matrix6d* Y = &w.y[idx(n.y)];
    Vector6d* f0 = &w.f0[idx(n.f0)];
    Vector6d u[kMaxJoinEdges];  // Φ_EE Wτ + r per joint
    for (int e = 0; e < m; ++e) {
      const int ge = n.edges[idx(e)];
      u[e] = n.sa[idx(e)] * betaOf(A, n.ia[idx(e)]) + n.sb[idx(e)] * betaOf(B, n.ib[idx(e)]) - w.c[idx(ge)];
      for (int e2 = 0; e2 < m; ++e2) {
        const Vector6d& W2 = w.Wt[idx(n.edges[idx(e2)])];
        u[e].noalias() += (n.sa[idx(e)] * n.sa[idx(e2)]) * (phiOf(A, n.ia[idx(e)], n.ia[idx(e2)]) * W2);
        u[e].noalias() += (n.sb[idx(e)] * n.sb[idx(e2)]) * (phiOf(B, n.ib[idx(e)], n.ib[idx(e2)]) * W2);
      }
    }
    if (w.zform[idx(&n - p.nodes.data())]) {  // Y = ZᵀZ
      const Vector6d zu = Y[0] * u[0];
      f0[0] = w.Wt[idx(n.edges[0])];
      f0[0].noalias() -= Y[0].transpose() * zu;
    } else {
      for (int e = 0; e < m; ++e) {
        f0[e] = w.Wt[idx(n.edges[idx(e)])];
        for (int e2 = 0; e2 < m; ++e2) f0[e].noalias() -= Y[e * m + e2] * u[e2];
      }
    }
    for (int k = 0; k < h; ++k) {
      const int sk = n.h_side[idx(k)], jk = n.h_idx[idx(k)];
      const Node& Xk = sk == 0 ? A : B;
      Vector6d& b = w.beta[idx(n.beta + k)];
      b = betaOf(Xk, jk);
      for (int e = 0; e < m; ++e) {
        const double sg = sk == 0 ? n.sa[idx(e)] : n.sb[idx(e)];
        const int i = sk == 0 ? n.ia[idx(e)] : n.ib[idx(e)];
        b.noalias() += sg * (phiOf(Xk, jk, i) * f0[e]);
      }
    }
  }

  // One joint of R = 6 − d constraint directions, TᵀΦT positive definite (the common case): with
  // Z = L⁻¹Tᵀ (K = TᵀΦT = LLᵀ), Y = ZᵀZ is never formed: W_k = Z D_k (R × 6) per port gives
  // Φ^C_kl = [same side] Φ_kl − W_kᵀ W_l and, in disassembly, f = f0 − Zᵀ Σ_k W_k f_k. Z and W_k
  // are stored zero-padded to 6 rows. False when K is not positive definite.
  template <int R>
  bool joinOne(const Node& n, const Node& A, const Node& B, int e) {
    const Matrix6d Phi = phiOf(A, n.ia[0], n.ia[0]) + phiOf(B, n.ib[0], n.ib[0]);
    const Eigen::Matrix<double, 6, R> T = w.T[idx(e)].template leftCols<R>();
    const Eigen::Matrix<double, 6, R> PT = Phi * T;
    const Eigen::Matrix<double, R, R> K = T.transpose() * PT;
    const Eigen::LLT<Eigen::Matrix<double, R, R>> llt(K);
    if (llt.info() != Eigen::Success) return false;
    const Eigen::Matrix<double, R, R> L = llt.matrixL();
    Eigen::Matrix<double, R, 6> Z = T.transpose();
    for (int i = 0; i < R; ++i) {  // forward substitution, unrolled at fixed size
      for (int k = 0; k < i; ++k) Z.row(i) -= L(i, k) * Z.row(k);
      Z.row(i) /= L(i, i);
    }
    const Vector6d& Wt = w.Wt[idx(e)];
    const Vector6d u = Phi * Wt + n.sa[0] * betaOf(A, n.ia[0]) + n.sb[0] * betaOf(B, n.ib[0]) - w.c[idx(e)];
    const Eigen::Matrix<double, R, 1> zu = Z * u;
    Vector6d& f0 = w.f0[idx(n.f0)];
    f0 = Wt;
    f0.noalias() -= Z.transpose() * zu;
    Matrix6d& Z6 = w.y[idx(n.y)];
    Z6.setZero();
    Z6.template topRows<R>() = Z;
    const int h = static_cast<int>(n.ports.size());
    for (int k = 0; k < h; ++k) {
      const int side = n.h_side[idx(k)], j = n.h_idx[idx(k)];
      const Node& X = side == 0 ? A : B;
      const int i = side == 0 ? n.ia[0] : n.ib[0];
      const double sg = side == 0 ? n.sa[0] : n.sb[0];
      Matrix6d& W = w.g[idx(n.g + k)];
      W.template bottomRows<6 - R>().setZero();
      W.template topRows<R>().noalias() = (sg * Z) * phiOf(X, i, j);
    }
    for (int k = 0; k < h; ++k) {
      const int sk = n.h_side[idx(k)], jk = n.h_idx[idx(k)];
      const Node& Xk = sk == 0 ? A : B;
      const auto Wk = w.g[idx(n.g + k)].template topRows<R>();
      for (int l = k; l < h; ++l) {
        Matrix6d& out = w.phi[idx(n.phi + k * h + l)];
        if (sk == n.h_side[idx(l)])
          out = phiOf(Xk, jk, n.h_idx[idx(l)]);
        else
          out.setZero();
        out.noalias() -= Wk.transpose() * w.g[idx(n.g + l)].template topRows<R>();
        if (l != k) w.phi[idx(n.phi + l * h + k)] = out.transpose();
      }
      const int i = sk == 0 ? n.ia[0] : n.ib[0];
      const double sg = sk == 0 ? n.sa[0] : n.sb[0];
      Vector6d& b = w.beta[idx(n.beta + k)];
      b = betaOf(Xk, jk);
      b.noalias() += sg * (phiOf(Xk, jk, i) * f0);
    }
    w.zform[idx(&n - p.nodes.data())] = 1;
    return true;
  }

  void joinAssembly(const Node& n) {
    const Node& A = p.nodes[idx(n.a)];
    const Node& B = p.nodes[idx(n.b)];
    if (rhs_only) {
      joinRhs(n, A, B);
      return;
    }
    for (const int e : n.edges)
      if (p.edges[idx(e)].kind != EdgeKind::Loop) setupEdge(model, w, p.edges[idx(e)], idx(e), p.nb);
    const int m = static_cast<int>(n.edges.size());
    const int h = static_cast<int>(n.ports.size());
    Matrix6d* Y = &w.y[idx(n.y)];
    Vector6d* f0 = &w.f0[idx(n.f0)];
    bool done = false;
    if (m == 1) {
      const int e = n.edges[0];
      const Edge& ed = p.edges[idx(e)];
      if (ed.kind == EdgeKind::Free) {  // no constraint: f = S^{-T} τ
        Y[0].setZero();
        f0[0] = w.Wt[idx(e)];
        done = true;
      } else {
        bool ok = false;
        switch (6 - ed.dofs) {
          case 6: ok = joinOne<6>(n, A, B, e); break;
          case 5: ok = joinOne<5>(n, A, B, e); break;
          case 4: ok = joinOne<4>(n, A, B, e); break;
          case 3: ok = joinOne<3>(n, A, B, e); break;
          case 2: ok = joinOne<2>(n, A, B, e); break;
          default: ok = joinOne<1>(n, A, B, e); break;
        }
        if (ok) return;
      }
    }
    w.zform[idx(&n - p.nodes.data())] = 0;
    if (!done) generalSolve(n, A, B, Y, f0);

    const int g0 = n.g;
    if (m == 1) {  // one joint: G_k = s Y Φ^X(i, j_k), Φ^C_kl = [same side] Φ_kl − s Φ^X(j_k, i) G_l
      for (int k = 0; k < h; ++k) {
        const int side = n.h_side[idx(k)], j = n.h_idx[idx(k)];
        const Node& X = side == 0 ? A : B;
        const int i = side == 0 ? n.ia[0] : n.ib[0];
        const double sg = side == 0 ? n.sa[0] : n.sb[0];
        Matrix6d& G = w.g[idx(g0 + k)];
        G.noalias() = Y[0] * phiOf(X, i, j);
        if (sg < 0) G = -G;
      }
      for (int k = 0; k < h; ++k) {
        const int sk = n.h_side[idx(k)], jk = n.h_idx[idx(k)];
        const Node& Xk = sk == 0 ? A : B;
        const int i = sk == 0 ? n.ia[0] : n.ib[0];
        const double sg = sk == 0 ? n.sa[0] : n.sb[0];
        const Matrix6d D = sg * phiOf(Xk, jk, i);  // D_kᵀ
        for (int l = k; l < h; ++l) {
          Matrix6d& out = w.phi[idx(n.phi + k * h + l)];
          if (sk == n.h_side[idx(l)])
            out = phiOf(Xk, jk, n.h_idx[idx(l)]);
          else
            out.setZero();
          out.noalias() -= D * w.g[idx(g0 + l)];
          if (l != k) w.phi[idx(n.phi + l * h + k)] = out.transpose();
        }
        Vector6d& b = w.beta[idx(n.beta + k)];
        b = betaOf(Xk, jk);
        b.noalias() += D * f0[0];
      }
      return;
    }
    // G_{e,k} = Σ_e' Y_{e e'} D_{e',k}; D_{e,k} = s Φ^X(end of e in X, k's index in X).
    for (int k = 0; k < h; ++k) {
      const int side = n.h_side[idx(k)], j = n.h_idx[idx(k)];
      for (int e = 0; e < m; ++e) {
        Matrix6d& G = w.g[idx(g0 + e * h + k)];
        G.setZero();
        for (int e2 = 0; e2 < m; ++e2) {
          const double s = side == 0 ? n.sa[idx(e2)] : n.sb[idx(e2)];
          const int i = side == 0 ? n.ia[idx(e2)] : n.ib[idx(e2)];
          G.noalias() += (s * Y[e * m + e2]) * phiOf(side == 0 ? A : B, i, j);
        }
      }
    }
    // Φ^C and β^C.
    for (int k = 0; k < h; ++k) {
      const int sk = n.h_side[idx(k)], jk = n.h_idx[idx(k)];
      const Node& Xk = sk == 0 ? A : B;
      for (int l = k; l < h; ++l) {
        const int sl = n.h_side[idx(l)], jl = n.h_idx[idx(l)];
        Matrix6d& out = w.phi[idx(n.phi + k * h + l)];
        if (sk == sl)
          out = phiOf(Xk, jk, jl);
        else
          out.setZero();
        for (int e = 0; e < m; ++e) {
          const double s = sk == 0 ? n.sa[idx(e)] : n.sb[idx(e)];
          const int i = sk == 0 ? n.ia[idx(e)] : n.ib[idx(e)];
          // D_{e,k}ᵀ = s Φ^X(i, jk)ᵀ = s Φ^X(jk, i).
          out.noalias() -= (s * phiOf(Xk, jk, i)) * w.g[idx(g0 + e * h + l)];
        }
        if (l != k) w.phi[idx(n.phi + l * h + k)] = out.transpose();
      }
      Vector6d& b = w.beta[idx(n.beta + k)];
      b = betaOf(Xk, jk);
      for (int e = 0; e < m; ++e) {
        const double s = sk == 0 ? n.sa[idx(e)] : n.sb[idx(e)];
        const int i = sk == 0 ? n.ia[idx(e)] : n.ib[idx(e)];
        b.noalias() += (s * phiOf(Xk, jk, i)) * f0[e];
      }
    }
  }

  // Any number of joints, Φ_EE possibly singular: through the constraint-force bases T.
  void generalSolve(const Node& n, const Node& A, const Node& B, Matrix6d* Y, Vector6d* f0) {
    const int m = static_cast<int>(n.edges.size());
    const int s6 = 6 * m;
    MatX Phi(s6, s6);
    VecX rhs(s6), Wt(s6);
    int r = 0;
    for (int e = 0; e < m; ++e) r += 6 - p.edges[idx(n.edges[idx(e)])].dofs;
    MatX T = MatX::Zero(s6, r);
    int col = 0;
    for (int e = 0; e < m; ++e) {
      const int ge = n.edges[idx(e)];
      const Edge& ed = p.edges[idx(ge)];
      for (int e2 = 0; e2 < m; ++e2)
        Phi.block<6, 6>(6 * e, 6 * e2) = n.sa[idx(e)] * n.sa[idx(e2)] * phiOf(A, n.ia[idx(e)], n.ia[idx(e2)]) +
                                         n.sb[idx(e)] * n.sb[idx(e2)] * phiOf(B, n.ib[idx(e)], n.ib[idx(e2)]);
      rhs.segment<6>(6 * e) =
          n.sa[idx(e)] * betaOf(A, n.ia[idx(e)]) + n.sb[idx(e)] * betaOf(B, n.ib[idx(e)]) - w.c[idx(ge)];
      const int d = ed.kind == EdgeKind::Free ? 6 : ed.dofs;
      Wt.segment<6>(6 * e) = w.Wt[idx(ge)];
      if (d < 6) T.block(6 * e, col, 6, 6 - d) = w.T[idx(ge)];
      col += 6 - d;
    }
    MatX Kinv(r, r);
    if (r > 0) {
      const MatX K = T.transpose() * Phi * T;
      const Eigen::LDLT<MatX> ldlt(K);
      const double dmax = ldlt.vectorD().cwiseAbs().maxCoeff();
      if (ldlt.info() == Eigen::Success && ldlt.vectorD().cwiseAbs().minCoeff() > 1e-12 * dmax) {
        Kinv = ldlt.solve(MatX::Identity(r, r));
      } else {  // redundant closures: the least-norm constraint forces
        const Eigen::SelfAdjointEigenSolver<MatX> eig(K);
        const double tol = 1e-10 * eig.eigenvalues().cwiseAbs().maxCoeff();
        VecX inv(r);
        for (int i = 0; i < r; ++i) inv[i] = std::abs(eig.eigenvalues()[i]) > tol ? 1.0 / eig.eigenvalues()[i] : 0.0;
        Kinv = eig.eigenvectors() * inv.asDiagonal() * eig.eigenvectors().transpose();
      }
    }
    const MatX Ystack = r > 0 ? MatX(T * Kinv * T.transpose()) : MatX(MatX::Zero(s6, s6));
    const VecX lam = r > 0 ? VecX(-(Kinv * (T.transpose() * (Phi * Wt + rhs)))) : VecX(VecX::Zero(0));
    const VecX f = r > 0 ? VecX(Wt + T * lam) : Wt;
    for (int e = 0; e < m; ++e) {
      f0[e] = f.segment<6>(6 * e);
      for (int e2 = 0; e2 < m; ++e2) Y[e * m + e2] = Ystack.block<6, 6>(6 * e, 6 * e2);
    }
  }

  void joinDisassembly(const Node& n) {
    const int m = static_cast<int>(n.edges.size());
    const int h = static_cast<int>(n.ports.size());
    Vector6d fE[kMaxJoinEdges];
    if (w.zform[idx(&n - p.nodes.data())]) {  // f = f0 − Zᵀ Σ_k W_k f_k
      Vector6d u = Vector6d::Zero();
      for (int k = 0; k < h; ++k) u.noalias() += w.g[idx(n.g + k)] * w.force[idx(n.force + k)];
      fE[0] = w.f0[idx(n.f0)];
      fE[0].noalias() -= w.y[idx(n.y)].transpose() * u;
      w.edge_force[idx(n.edges[0])] = fE[0];
    } else {
      for (int e = 0; e < m; ++e) {
        fE[e] = w.f0[idx(n.f0 + e)];
        for (int k = 0; k < h; ++k) fE[e].noalias() -= w.g[idx(n.g + e * h + k)] * w.force[idx(n.force + k)];
        w.edge_force[idx(n.edges[idx(e)])] = fE[e];
      }
    }
    for (int side = 0; side < 2; ++side) {
      const Node& X = p.nodes[idx(side == 0 ? n.a : n.b)];
      const std::vector<int>& src = side == 0 ? n.a_src : n.b_src;
      const auto& add = side == 0 ? n.a_add : n.b_add;
      for (std::size_t i = 0; i < src.size(); ++i) {
        Vector6d& out = w.force[idx(X.force) + i];
        if (src[i] >= 0)
          out = w.force[idx(n.force + src[i])];
        else
          out.setZero();
        for (const auto& [e, sign] : add[i]) out += sign * fE[e];
      }
    }
  }

  void leafDisassembly(const Node& n) {
    if (p.body_link[idx(n.body)] < 0) {
      w.body_acc[idx(n.body)].setZero();
      return;
    }
    w.body_acc[idx(n.body)] = w.beta[idx(n.beta)];
    if (!n.ports.empty()) w.body_acc[idx(n.body)].noalias() += w.phi[idx(n.phi)] * w.force[idx(n.force)];
  }

  void assemble(int n) {
    const Node& x = p.nodes[idx(n)];
    if (x.a < 0)
      leafAssembly(x);
    else
      joinAssembly(x);
  }
  void disassemble(int n) {
    const Node& x = p.nodes[idx(n)];
    if (x.a < 0)
      leafDisassembly(x);
    else
      joinDisassembly(x);
  }
  void assembleRange(int first, int last) {
    for (int n = first; n <= last; ++n) assemble(n);
  }
  void disassembleRange(int first, int last) {
    for (int n = last; n >= first; --n) disassemble(n);
  }
};

void assembleTask(void* ctx, int i) {
  Pass& pass = *static_cast<Pass*>(ctx);
  const int t = pass.p.tasks[idx(i)];
  pass.assembleRange(pass.p.nodes[idx(t)].first, t);
}
void disassembleTask(void* ctx, int i) {
  Pass& pass = *static_cast<Pass*>(ctx);
  const int t = pass.p.tasks[idx(i)];
  pass.disassembleRange(pass.p.nodes[idx(t)].first, t);
}

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

// Steps 1 and 2 (and 3 in the leaves), on the caller or on the plan's threads.
void runPasses(const Impl& p, const Model& model, Workspace& w, bool rhs_only) {
  Pass pass{p, model, w, rhs_only};
  if (!w.pool) {
    pass.assembleRange(0, p.root);
    pass.disassembleRange(0, p.root);
    return;
  }
  w.pool->run(static_cast<int>(p.tasks.size()), assembleTask, &pass);
  for (const int n : p.top) pass.assemble(n);
  for (auto it = p.top.rbegin(); it != p.top.rend(); ++it) pass.disassemble(*it);
  w.pool->run(static_cast<int>(p.tasks.size()), disassembleTask, &pass);
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
  runPasses(p, model, w, false);
  jointAccelerations(p, w, q, nb, data.ddq);
  for (std::size_t k = 0; k < loops.size(); ++k) data.closure_force[k] = w.edge_force[idx(p.loop_edge[k])];
  for (std::size_t e = 0; e < p.edges.size(); ++e)
    for (const int j : p.edges[e].joints) data.joint_force[idx(j)] = w.edge_force[e];

  // Iterative refinement: the residual of the equations of motion (and of the closures) at the
  // result, solved for a correction with the same factorisation (right-hand sides only).
  for (int it = 0; it < plan.options().refinement_steps; ++it) {
    residual(p, model, w, data, tau);
    for (std::size_t e = 0; e < p.edges.size(); ++e) edgeBases(w, p.edges[e], e);
    runPasses(p, model, w, true);
    jointAccelerations(p, w, q, nb, w.delta);
    data.ddq += w.delta;
    for (std::size_t k = 0; k < loops.size(); ++k) data.closure_force[k] += w.edge_force[idx(p.loop_edge[k])];
    for (std::size_t e = 0; e < p.edges.size(); ++e)
      for (const int j : p.edges[e].joints) data.joint_force[idx(j)] += w.edge_force[e];
  }
  return data.ddq;
}

}  // namespace kinetrack
