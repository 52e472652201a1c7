#pragma once
// Private to kinetrack::dynamics: the schedule of an AssemblyPlan (assembly_plan.cpp builds it,
// assembly.cpp runs it). The formulation is described at the top of assembly.cpp.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kinetrack/dynamics/assembly.hpp"

namespace kinetrack {

namespace assembly_detail {

constexpr int kMaxJoinEdges = 8;  // joints closing in one step (tree joint + loop closures)

enum class EdgeKind : std::uint8_t { Tree, Free, Loop };

inline std::size_t idx(int i) { return static_cast<std::size_t>(i); }

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

}  // namespace kinetrack
