// Steps 1–3 of the assembly–disassembly forward dynamics: each node of the schedule joined
// (leaves to root) and undone (root to leaves), on the caller or on the plan's threads. The
// formulation is described at the top of assembly.cpp.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "assembly_impl.hpp"
#include "kinetrack/core/so3.hpp"
#include "rigid_body_detail.hpp"

namespace kinetrack {

using assembly_detail::EdgeKind;
using assembly_detail::idx;
using assembly_detail::kMaxJoinEdges;
using assembly_detail::MatX;
using assembly_detail::VecX;
using assembly_detail::Workspace;
using detail::crossForce;

namespace {

using Impl = AssemblyPlan::Impl;
using Node = Impl::Node;
using Edge = Impl::Edge;

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
      if (p.edges[idx(e)].kind != EdgeKind::Loop) assembly_detail::setupEdge(model, w, p.edges[idx(e)], idx(e), p.nb);
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

}  // namespace

// Steps 1 and 2 (and 3 in the leaves), on the caller or on the plan's threads.
void assembly_detail::runPasses(const Impl& p, const Model& model, Workspace& w, bool rhs_only) {
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

}  // namespace kinetrack
