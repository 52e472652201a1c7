#pragma once
// Private to kinetrack::dynamics: the schedule of an AssemblyPlan (assembly_plan.cpp builds it,
// assembly.cpp runs it). The formulation is described at the top of assembly.cpp.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <memory>

#include "kinetrack/core/worker_pool.hpp"
#include "kinetrack/dynamics/assembly.hpp"

namespace kinetrack {

namespace assembly_detail {

constexpr int kMaxJoinEdges = 8;  // joints closing in one step (tree joint + loop closures)

enum class EdgeKind : std::uint8_t { Tree, Free, Loop };

inline std::size_t idx(int i) { return static_cast<std::size_t>(i); }

constexpr int kMaxStack = 6 * kMaxJoinEdges;
using MatX = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxStack, kMaxStack>;
using VecX = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxStack, 1>;
using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
using MatN = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using VecN = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

}  // namespace assembly_detail

struct AssemblyPlan::Impl {
  struct Edge {
    assembly_detail::EdgeKind kind = assembly_detail::EdgeKind::Tree;
    int parent_body = 0, child_body = 0;
    std::vector<int> joints;  // model joints, root → tip (Tree)
    int loop = -1;            // index into options.loops (Loop)
    int dofs = 0;
    bool concurrent = false;  // ≥ 2 revolute joints whose axes meet in one point (a spherical joint)
  };
  struct Node {
    int a = -1, b = -1, body = -1, parent = -1, first = 0, height = 1;
    std::vector<int> ports;  // ports: the bodies with an open joint end (a leaf: its body)
    std::vector<int> edges;  // joints closing here
    // Per closing edge: the port of its end in A / B and that end's sign (child end +1).
    std::vector<int> ia, ib;
    std::vector<double> sa, sb;
    // Per port of this node: from B (1) or A (0), and its index there.
    std::vector<int> h_side, h_idx;
    // Per port of A (then B), its force in disassembly: this node's port a_src (−1: none) plus
    // sign × the force of each closing joint listed in a_add.
    std::vector<int> a_src, b_src;
    std::vector<std::vector<std::pair<int, double>>> a_add, b_add;
    // Offsets into the workspace arrays.
    int phi = 0, beta = 0, g = 0, f0 = 0, y = 0, force = 0;
    double assembly_flops = 0.0, disassembly_flops = 0.0;
  };

  int nb = 0;                         // model.nvBase()
  std::vector<int> body_link;         // per body: its link (−1: the world; the fixed root is the world)
  std::vector<int> link_body;         // per link: its body, or −1 (massless: inside a joint chain)
  std::vector<Matrix3d> inertia_inv;  // per body: inverse rotational inertia about the COM (link axes)
  std::vector<Edge> edges;            // tree joints first (in link order), then loop closures
  std::vector<int> loop_edge;         // per loop closure: its edge
  std::vector<Node> nodes;            // post-order: children before parents, subtrees contiguous
  int root = -1;
  std::vector<int> tasks;  // subtree roots handed to threads (threads > 1)
  std::vector<int> top;    // nodes above them, run by the caller (post-order)
  int phi_size = 0, beta_size = 0, g_size = 0, f0_size = 0, y_size = 0, force_size = 0;
  AssemblyStats stats;

  [[nodiscard]] bool isLeaf(int n) const { return nodes[static_cast<std::size_t>(n)].a < 0; }
};

// The per-thread workspace of one plan (the body of AssemblyData).

struct AssemblyData::Workspace {
  explicit Workspace(const AssemblyPlan& plan) : dyn(plan.model()), kin(plan.model()), plan_impl(&plan.impl()) {
    const AssemblyPlan::Impl& p = plan.impl();
    phi.assign(assembly_detail::idx(p.phi_size), Matrix6d::Zero());
    beta.assign(assembly_detail::idx(p.beta_size), Vector6d::Zero());
    g.assign(assembly_detail::idx(p.g_size), Matrix6d::Zero());
    f0.assign(assembly_detail::idx(p.f0_size), Vector6d::Zero());
    y.assign(assembly_detail::idx(p.y_size), Matrix6d::Zero());
    force.assign(assembly_detail::idx(p.force_size), Vector6d::Zero());
    zform.assign(p.nodes.size(), 0);
    const std::size_t ne = p.edges.size();
    S.assign(ne, assembly_detail::Mat6X());
    c.assign(ne, Vector6d::Zero());
    tau.assign(ne, assembly_detail::VecN());
    edge_force.assign(ne, Vector6d::Zero());
    T.assign(ne, assembly_detail::Mat6X());
    Wt.assign(ne, Vector6d::Zero());
    Spinv.assign(ne, assembly_detail::MatN());
    for (std::size_t e = 0; e < ne; ++e) {
      T[e].resize(6, p.edges[e].kind == assembly_detail::EdgeKind::Free ? 0 : 6 - p.edges[e].dofs);
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
  const AssemblyPlan::Impl* plan_impl;
  std::vector<Matrix6d> phi, g, y;
  std::vector<Vector6d> beta, f0, force;
  std::vector<std::uint8_t> zform;           // per node: joined by joinOne (y holds Z, g holds W_k)
  std::vector<assembly_detail::Mat6X> S;     // per edge: motion subspace (world)
  std::vector<Vector6d> c;                   // per edge: velocity-product (or stabilisation) acceleration
  std::vector<assembly_detail::VecN> tau;    // per edge: generalised forces along S
  std::vector<assembly_detail::Mat6X> T;     // per edge: constraint-force basis (6 − dofs columns)
  std::vector<Vector6d> Wt;                  // per edge: W τ, the force that does the joint's work (TᵀWτ-free part)
  std::vector<assembly_detail::MatN> Spinv;  // per edge with dofs ≥ 2: S⁺ = R⁻¹Q₁ᵀ (joint accelerations)
  std::vector<Vector6d> edge_force;          // per edge: f_e on the child end
  std::vector<Vector6d> body_ext;            // per body: gravity + external − v ×* I v (a force)
  std::vector<Vector6d> body_acc;            // per body: spatial acceleration
  std::vector<Vector6d> body_force;          // per body: refinement's Newton–Euler forces
  VectorXd delta;                            // refinement's correction of ν̇
  Vector3d gravity = Vector3d::Zero();
  const Configuration* q = nullptr;  // the call's state (set per call, read by the joins)
  const VectorXd* v = nullptr;
  const VectorXd* tau_in = nullptr;
  std::unique_ptr<detail::WorkerPool> pool;
};

namespace assembly_detail {

using Workspace = AssemblyData::Workspace;

/// A tree (or free base) joint's motion subspace, velocity-product acceleration, forces and
/// bases at the call's state (assembly.cpp); run by the join that closes it.
void setupEdge(const Model& model, Workspace& w, const AssemblyPlan::Impl::Edge& ed, std::size_t e, int nb);

/// Steps 1 and 2 (and 3 in the leaves) over the whole schedule, on the caller or on the plan's
/// threads; `rhs_only`: the refinement's pass with the stored factors (assembly_passes.cpp).
void runPasses(const AssemblyPlan::Impl& p, const Model& model, Workspace& w, bool rhs_only);

}  // namespace assembly_detail

}  // namespace kinetrack
