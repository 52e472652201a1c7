#pragma once
// The composite reduction shared by DYN's QP (dynamical_ik.cpp) and the whole-body instantaneous
// IK's Gauss–Newton model (instantaneous_ik_problem.cpp), private to kinetrack::ik.
//
// Column c of any target Jacobian is the screw S_c = (ω_c; v_c), v at the base origin, so a
// target's JᵀWJ is Sᵀ M S and its JᵀW r is Sᵀ f with (angular; linear) blocks M, f about the base
// origin. Summing M and f over each subtree (composite blocks, like composite rigid-body inertias)
// turns the whole H and g into one pass over the joints: H(c, d) = S_dᵀ M_c(link of c) S_c for d on
// c's support, g_c = −S_cᵀ f_c. Inlined into both hot paths; allocates nothing.
#include <cstdint>
#include <vector>

#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::detail {

/// The variables (ṗ_B, ω_B, ṡ) of DYN's QP, or the chart coordinates of the whole-body problem,
/// form a tree: the six base coordinates a chain, each joint below the joint of its parent link
/// (or below the base). H = Σ JᵀWJ has exactly this ancestor/descendant sparsity
/// (qp::TreeBoxSolver's structure).
inline std::vector<int> variableTree(const Model& model) {
  const int nb = model.nvBase();
  std::vector<int> parent(static_cast<std::size_t>(model.nv()), -1);
  for (int c = 1; c < nb; ++c) parent[static_cast<std::size_t>(c)] = c - 1;
  for (int j = 0; j < model.numJoints(); ++j) {
    const int p = model.parentLink(JointId(j)).value;
    parent[static_cast<std::size_t>(nb + j)] = p > 0 ? nb + p - 1 : nb - 1;
  }
  return parent;
}

/// On entry Mc[l] and fc[l] hold the blocks of link l's own targets (angular; linear order,
/// about kin.link[0].p). On exit they hold the subtree sums (Mc only when H is non-null), S[nb + j]
/// the screw of joint j, g = −Sᵀ f_c, and, when H is non-null, the lower triangle of H = Sᵀ M_c S
/// (base variables linear then angular, their screws unit vectors; entries off the supports are
/// left untouched).
template <class HMatrix, class GVector>
inline void reduceComposites(const Model& model, const Data& kin, std::vector<Matrix6d>& Mc, std::vector<Vector6d>& fc,
                             std::vector<Vector6d>& S, HMatrix* H, GVector& g) {
  const int nb = model.nvBase(), n = model.numJoints(), nl = model.numLinks();
  for (int l = nl - 1; l > 0; --l) {
    const std::size_t parent = static_cast<std::size_t>(model.parent(LinkId(l)).value);
    if (H) Mc[parent] += Mc[static_cast<std::size_t>(l)];
    fc[parent] += fc[static_cast<std::size_t>(l)];
  }
  const Vector3d& ref = kin.link[0].p;
  for (int j = 0; j < n; ++j) {
    const Vector3d& a = kin.joint_axis[static_cast<std::size_t>(j)];
    Vector6d& Sj = S[static_cast<std::size_t>(nb + j)];
    const JointType type = model.jointType(JointId(j));
    if (type == JointType::Prismatic)
      Sj << Vector3d::Zero(), a;
    else if (type == JointType::Custom)  // child origin moving at v, turning at a about it
      Sj << a,
          (kin.link[static_cast<std::size_t>(j + 1)].p - ref).cross(a) + kin.joint_linear[static_cast<std::size_t>(j)];
    else
      Sj << a, (kin.link[static_cast<std::size_t>(j + 1)].p - ref).cross(a);
  }
  // Base columns: unit screws, so the block is M_c(root) itself, reordered (variables linear
  // then angular; M and f in (angular; linear) order).
  for (int c = 0; c < nb; ++c) {
    const int mc = c < 3 ? c + 3 : c - 3;
    if (H)
      for (int d = 0; d <= c; ++d) (*H)(c, d) = Mc[0](d < 3 ? d + 3 : d - 3, mc);
    g[c] = -fc[0][mc];
  }
  for (int j = 0; j < n; ++j) {
    const std::size_t l = static_cast<std::size_t>(j + 1);
    const int c = nb + j;
    const Vector6d& Sc = S[static_cast<std::size_t>(c)];
    g[c] = -Sc.dot(fc[l]);
    if (!H) continue;
    const Vector6d F = Mc[l] * Sc;
    // Base screws are unit vectors: S_dᵀF picks one entry (linear d → F_{3+d}, angular → F_{d−3}).
    for (int d = 0; d < nb; ++d) (*H)(c, d) = d < 3 ? F[3 + d] : F[d - 3];
    for (std::int32_t i : model.support(LinkId(j + 1))) (*H)(c, nb + i) = S[static_cast<std::size_t>(nb + i)].dot(F);
  }
}

}  // namespace kinetrack::detail
