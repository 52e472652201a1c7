#include "kinetrack/dynamics/assembly.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/core/worker_pool.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/mass_properties.hpp"
#include "rigid_body_detail.hpp"

// The formulation (docs/dynamics.md, "Assembly–disassembly"). Every subassembly C carries, for
// its open joint ends (handles) h, the linear map from the spatial forces f_h applied there to
// the spatial accelerations of the bodies at the handles:
//     a_h = Σ_k Φ_hk f_k + β_h      (world Plücker coordinates, Φ symmetric positive semi-definite)
// A single body has Φ = I⁻¹ at every handle and β = I⁻¹ (gravity + external − v ×* I v).
//
// A joint e carries the force f_e from its parent end to its child end (−f_e acts on the parent
// end; sign s = −1 there, +1 at the child end). Its relative acceleration
//     Δa_e = a_child − a_parent = S_e q̈_e + c_e
// constrains Tᵀ(Δa_e − c_e) = 0 for a force basis T of the directions S_e does not move in, and
// S_eᵀ f_e = τ_e. Joining A and B through the joints E between them (one tree joint and any loop
// closures that close there): with Φ_EE the joints' mutual inverse inertia, r_E = β_E − c_E and
// D_{E,b} the joints' relative acceleration per unit force at an outer handle b,
//     f_E = f0 − Y Σ_b D_{E,b} f_b,   Y = T (TᵀΦ_EE T)⁻¹ Tᵀ,   f0 = Wτ − Y(Φ_EE Wτ + r_E)
// (W = S(SᵀS)⁻¹), and the joined subassembly has Φ^C_ab = [a, b on one side] Φ_ab − D_{E,a}ᵀ Y
// D_{E,b}, β^C_a = β_a + D_{E,a}ᵀ f0. With a single joint and Φ_EE = Φ invertible, the same Y is
// Φ⁻¹ − Φ⁻¹S(SᵀΦ⁻¹S)⁻¹SᵀΦ⁻¹ and f0 = Φ⁻¹S(SᵀΦ⁻¹S)⁻¹τ − Y r (no T needed): the fast path.

namespace kinetrack {

using detail::crossForce;
using detail::crossMotion;

namespace {

constexpr int kMaxJoinEdges = 8;  // joints closing in one step (tree joint + loop closures)
constexpr int kMaxStack = 6 * kMaxJoinEdges;
using MatX = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxStack, kMaxStack>;
using VecX = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxStack, 1>;
using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
using MatN = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using VecN = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

// Cost model of the counted operations (flops: multiplies and adds).
constexpr double kMatMat6 = 6 * 6 * 11;  // 6×6 · 6×6
constexpr double kMatVec6 = 6 * 11;      // 6×6 · 6
constexpr double kAdd6 = 36;             // 6×6 + 6×6

enum class EdgeKind : std::uint8_t { Tree, Free, Loop };

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

}  // namespace

struct AssemblyPlan::Impl {
  struct Edge {
    EdgeKind kind = EdgeKind::Tree;
    int parent_body = 0, child_body = 0;
    std::vector<int> joints;  // model joints, root → tip (Tree)
    int loop = -1;            // index into options.loops (Loop)
    int dofs = 0;
    bool concurrent = false;  // ≥ 2 revolute joints whose axes meet in one point (a spherical joint)
  };
  struct Node {
    int a = -1, b = -1, body = -1, parent = -1, first = 0, height = 1;
    std::vector<int> handles;  // ports: the bodies with an open joint end (a leaf: its body)
    std::vector<int> edges;    // joints closing here
    // Per closing edge: the port of its end in A / B and that end's sign (child end +1).
    std::vector<int> ia, ib;
    std::vector<double> sa, sb;
    // Per handle of this node: from B (1) or A (0), and its index there.
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

namespace {

using Impl = AssemblyPlan::Impl;
using Node = Impl::Node;
using Edge = Impl::Edge;

std::size_t idx(int i) { return static_cast<std::size_t>(i); }

// Bodies and joints of the model: a link with mass is a body; a chain of massless links between
// two bodies is one multi-DoF joint; a fixed root is part of the world (body 0).
void buildBodies(const Model& model, const AssemblyOptions& options, Impl& p) {
  checkMassProperties(model);
  const int nl = model.numLinks();
  const bool floating = model.baseType() == BaseType::Floating;
  std::vector<int> children(idx(nl), 0);
  for (int l = 1; l < nl; ++l) ++children[idx(model.parent(LinkId(l)).value)];
  p.link_body.assign(idx(nl), -1);
  p.body_link.push_back(-1);  // the world
  p.inertia_inv.push_back(Matrix3d::Zero());
  if (!floating) p.link_body[0] = 0;
  for (int l = 0; l < nl; ++l) {
    const double mass = model.inertial(LinkId(l)).mass;
    if (l == 0 && !floating) continue;
    if (mass > 0.0) {
      p.link_body[idx(l)] = static_cast<int>(p.body_link.size());
      p.body_link.push_back(l);
      p.inertia_inv.push_back(model.inertial(LinkId(l)).inertia.inverse());
    } else if (l == 0) {
      throw InvalidArgument("assembly: the floating root link '" + model.linkName(LinkId(0)) +
                            "' has no mass; give it the mass of the base body");
    } else if (children[idx(l)] != 1) {
      throw InvalidArgument("assembly: link '" + model.linkName(LinkId(l)) + "' has no mass and " +
                            std::to_string(children[idx(l)]) +
                            " child links; a massless link must lead to exactly one child (give it mass)");
    }
  }
  if (floating) {
    Edge e;
    e.kind = EdgeKind::Free;
    e.parent_body = 0;
    e.child_body = p.link_body[0];
    e.dofs = 6;
    p.edges.push_back(e);
  }
  for (int l = 1; l < nl; ++l) {
    if (p.link_body[idx(l)] < 0) continue;
    Edge e;
    e.child_body = p.link_body[idx(l)];
    int link = l;
    for (;;) {
      e.joints.push_back(link - 1);
      link = model.parent(LinkId(link)).value;
      if (p.link_body[idx(link)] >= 0) break;
    }
    std::reverse(e.joints.begin(), e.joints.end());
    e.parent_body = p.link_body[idx(link)];
    e.dofs = static_cast<int>(e.joints.size());
    e.concurrent = e.dofs >= 2;
    for (std::size_t k = 0; k < e.joints.size(); ++k) {
      const JointId j(e.joints[k]);
      if (model.jointType(j) == JointType::Prismatic || (k > 0 && model.jointPlacement(j).p.squaredNorm() != 0.0))
        e.concurrent = false;
    }
    if (e.dofs > 6)
      throw InvalidArgument("assembly: link '" + model.linkName(LinkId(l)) + "' is reached through " +
                            std::to_string(e.dofs) + " joints of massless links (at most 6)");
    p.edges.push_back(e);
  }
  for (std::size_t k = 0; k < options.loops.size(); ++k) {
    const LoopClosure& c = options.loops[k];
    const std::string what = "assembly: loop closure '" + c.name + "'";
    auto bodyOf = [&](FrameId f) {
      if (!f.valid() || f.value >= model.numFrames())
        throw InvalidArgument(what + ": frame id " + std::to_string(f.value) + " is not a frame of the model");
      const int link = model.frameLink(f).value;
      const int b = p.link_body[idx(link)];
      if (b < 0)
        throw InvalidArgument(what + ": frame '" + model.frameName(f) + "' is on the massless link '" +
                              model.linkName(LinkId(link)) + "'");
      return b;
    };
    if (!std::isfinite(c.frequency) || c.frequency < 0.0)
      throw InvalidArgument(what + ": the stabilisation frequency must be finite and >= 0");
    Edge e;
    e.kind = EdgeKind::Loop;
    e.loop = static_cast<int>(k);
    e.child_body = bodyOf(c.frame);
    e.parent_body = c.other ? bodyOf(*c.other) : 0;
    if (e.child_body == e.parent_body)
      throw InvalidArgument(what + ": both ends are on one rigid body (or both fixed to the world)");
    e.dofs = c.type == ClosureType::Point ? 3 : 0;
    p.loop_edge.push_back(static_cast<int>(p.edges.size()));
    p.edges.push_back(e);
  }
}

struct Builder {
  Impl& p;
  std::vector<std::vector<int>> tree_children;  // per body: tree edges to its children
  std::vector<int> parent_edge;                 // per body: its tree edge (−1 for the world)

  explicit Builder(Impl& plan) : p(plan) {
    const std::size_t nb = p.body_link.size();
    tree_children.resize(nb);
    parent_edge.assign(nb, -1);
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
      const Edge& ed = p.edges[e];
      if (ed.kind == EdgeKind::Loop) continue;
      tree_children[idx(ed.parent_body)].push_back(static_cast<int>(e));
      parent_edge[idx(ed.child_body)] = static_cast<int>(e);
    }
  }

  int leaf(int body) {
    Node n;
    n.body = body;
    n.first = static_cast<int>(p.nodes.size());
    p.nodes.push_back(n);
    return n.first;
  }
  int join(int a, int b) {
    Node n;
    n.a = a;
    n.b = b;
    n.first = p.nodes[idx(a)].first;
    n.height = 1 + std::max(p.nodes[idx(a)].height, p.nodes[idx(b)].height);
    p.nodes.push_back(n);
    const int id = static_cast<int>(p.nodes.size()) - 1;
    p.nodes[idx(a)].parent = id;
    p.nodes[idx(b)].parent = id;
    return id;
  }

  // Serial: a body, then each child subtree joined to it in turn (Fig. 2(a)).
  int serial(int body) {
    int node = leaf(body);
    for (const int e : tree_children[idx(body)]) {
      const int sub = serial(p.edges[idx(e)].child_body);
      node = join(node, sub);
    }
    return node;
  }

  // Parallel: cut the connected set of bodies at the tree joint that best balances the halves.
  std::vector<int> mark;  // per body: stamp of the component it is in
  int stamp = 0;
  int parallel(const std::vector<int>& bodies) {
    if (bodies.size() == 1) return leaf(bodies[0]);
    ++stamp;
    for (const int b : bodies) mark[idx(b)] = stamp;
    int top = -1;
    for (const int b : bodies) {
      const int e = parent_edge[idx(b)];
      if (e < 0 || mark[idx(p.edges[idx(e)].parent_body)] != stamp) {
        top = b;
        break;
      }
    }
    // Depth-first order from the top, then subtree sizes inside the component.
    std::vector<int> order{top};
    for (std::size_t i = 0; i < order.size(); ++i)
      for (const int e : tree_children[idx(order[i])]) {
        const int c = p.edges[idx(e)].child_body;
        if (mark[idx(c)] == stamp) order.push_back(c);
      }
    std::vector<int> size(p.body_link.size(), 0);
    const int n = static_cast<int>(order.size());
    int best = -1, best_cost = n + 1;
    for (int i = n - 1; i >= 0; --i) {
      const int b = order[idx(i)];
      size[idx(b)] += 1;
      if (b != top) {
        const int cost = std::max(size[idx(b)], n - size[idx(b)]);
        if (cost < best_cost) {
          best_cost = cost;
          best = b;
        }
        size[idx(p.edges[idx(parent_edge[idx(b)])].parent_body)] += size[idx(b)];
      }
    }
    // Split: the subtree under `best` against the rest.
    std::vector<int> below, above;
    std::vector<int> stack{best};
    std::vector<std::uint8_t> in_below(p.body_link.size(), 0);
    while (!stack.empty()) {
      const int b = stack.back();
      stack.pop_back();
      in_below[idx(b)] = 1;
      for (const int e : tree_children[idx(b)]) {
        const int c = p.edges[idx(e)].child_body;
        if (mark[idx(c)] == stamp) stack.push_back(c);
      }
    }
    for (const int b : order) (in_below[idx(b)] ? below : above).push_back(b);
    const int na = parallel(above);
    const int nb = parallel(below);
    return join(na, nb);
  }
};

// Which joints close at which node (the lowest node holding both ends), the handles of every
// node, and the index maps of the two passes.
void wireNodes(Impl& p) {
  std::vector<int> body_leaf(p.body_link.size(), -1), depth(p.nodes.size(), 0);
  for (std::size_t n = 0; n < p.nodes.size(); ++n)
    if (p.nodes[n].a < 0) body_leaf[idx(p.nodes[n].body)] = static_cast<int>(n);
  for (int n = static_cast<int>(p.nodes.size()) - 1; n >= 0; --n)
    if (p.nodes[idx(n)].parent >= 0) depth[idx(n)] = depth[idx(p.nodes[idx(n)].parent)] + 1;
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    int x = body_leaf[idx(p.edges[e].parent_body)], y = body_leaf[idx(p.edges[e].child_body)];
    while (x != y) {
      if (depth[idx(x)] >= depth[idx(y)])
        x = p.nodes[idx(x)].parent;
      else
        y = p.nodes[idx(y)].parent;
    }
    p.nodes[idx(x)].edges.push_back(static_cast<int>(e));
  }
  // Open joints of every node (one end inside), children before parents; a port is a body with
  // an open joint end. A leaf has its body as its only port (if any joint touches it).
  std::vector<std::vector<int>> open(p.nodes.size());
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    open[idx(body_leaf[idx(p.edges[e].parent_body)])].push_back(static_cast<int>(e));
    open[idx(body_leaf[idx(p.edges[e].child_body)])].push_back(static_cast<int>(e));
  }
  auto find = [](const std::vector<int>& v, int x) {
    const auto it = std::find(v.begin(), v.end(), x);
    return it == v.end() ? -1 : static_cast<int>(it - v.begin());
  };
  auto touches = [&](const std::vector<int>& edges, int body) {
    for (const int e : edges)
      if (p.edges[idx(e)].parent_body == body || p.edges[idx(e)].child_body == body) return true;
    return false;
  };
  for (std::size_t ni = 0; ni < p.nodes.size(); ++ni) {
    Node& n = p.nodes[ni];
    if (n.a < 0) {
      if (!open[ni].empty()) n.handles.push_back(n.body);
      continue;
    }
    if (static_cast<int>(n.edges.size()) > kMaxJoinEdges)
      throw InvalidArgument("assembly: " + std::to_string(n.edges.size()) + " joints close in one step (at most " +
                            std::to_string(kMaxJoinEdges) + "); use fewer loop closures");
    const Node& A = p.nodes[idx(n.a)];
    const Node& B = p.nodes[idx(n.b)];
    for (const int e : n.edges) {
      const Edge& ed = p.edges[idx(e)];
      const int pa = find(A.handles, ed.parent_body), cb = find(B.handles, ed.child_body);
      const int ca = find(A.handles, ed.child_body), pb = find(B.handles, ed.parent_body);
      if (pa >= 0 && cb >= 0) {
        n.ia.push_back(pa);
        n.sa.push_back(-1.0);
        n.ib.push_back(cb);
        n.sb.push_back(1.0);
      } else if (ca >= 0 && pb >= 0) {
        n.ia.push_back(ca);
        n.sa.push_back(1.0);
        n.ib.push_back(pb);
        n.sb.push_back(-1.0);
      } else {
        throw std::logic_error("assembly: joint ends not found under their joining node");
      }
    }
    for (const std::size_t c : {idx(n.a), idx(n.b)})
      for (const int e : open[c])
        if (find(n.edges, e) < 0) open[ni].push_back(e);
    for (int side = 0; side < 2; ++side) {
      const Node& X = side == 0 ? A : B;
      for (std::size_t i = 0; i < X.handles.size(); ++i)
        if (touches(open[ni], X.handles[i])) {
          n.handles.push_back(X.handles[i]);
          n.h_side.push_back(side);
          n.h_idx.push_back(static_cast<int>(i));
        }
    }
    // Disassembly: a child's port force = this node's force on that body (if still a port) plus
    // the closing joints' forces on it.
    for (int side = 0; side < 2; ++side) {
      const Node& X = side == 0 ? A : B;
      std::vector<int>& src = side == 0 ? n.a_src : n.b_src;
      auto& add = side == 0 ? n.a_add : n.b_add;
      for (std::size_t i = 0; i < X.handles.size(); ++i) {
        src.push_back(find(n.handles, X.handles[i]));
        std::vector<std::pair<int, double>> terms;
        for (std::size_t e = 0; e < n.edges.size(); ++e) {
          const int port = side == 0 ? n.ia[e] : n.ib[e];
          if (port == static_cast<int>(i)) terms.emplace_back(static_cast<int>(e), side == 0 ? n.sa[e] : n.sb[e]);
        }
        add.push_back(std::move(terms));
      }
    }
  }
}

// Counted cost of one node (assembly, disassembly) and the workspace layout.
void layoutAndCost(Impl& p) {
  for (Node& n : p.nodes) {
    const int h = static_cast<int>(n.handles.size());
    const int m = static_cast<int>(n.edges.size());
    n.phi = p.phi_size;
    n.beta = p.beta_size;
    n.force = p.force_size;
    p.force_size += h;
    if (n.a < 0) {
      p.phi_size += 1;
      p.beta_size += 1;
      n.assembly_flops = 2 * 27 * 5 + 3 * 36 + kMatVec6 + 3 * 6 * 5;  // I⁻¹ by blocks, bias force, β
      n.disassembly_flops = kMatVec6;
      continue;
    }
    n.g = p.g_size;
    n.f0 = p.f0_size;
    n.y = p.y_size;
    p.phi_size += h * h;
    p.beta_size += h;
    p.g_size += m * h;
    p.f0_size += m;
    p.y_size += m * m;
    double solve = 0.0;
    if (m == 1) {
      const int d = p.edges[idx(n.edges[0])].dofs;
      solve = kAdd6 + 6 * 6 * 6 / 3.0 * 2 + 6 * 6 * 6 * 2                        // Φ, LLT, Φ⁻¹
              + 2.0 * 36 * d + 2.0 * 6 * d * d + d * d * d + 2.0 * 36 * d + 36;  // P, Q, Y
    } else {
      const double s = 6.0 * m;
      solve = m * m * kAdd6 + 2 * s * s * s + s * s * s / 3.0 + 2 * s * s * s;  // K, LDLT, Y
    }
    n.assembly_flops = solve + kMatVec6 * m + h * m * m * kMatMat6             // f0, G
                       + 0.5 * h * (h + 1) * m * kMatMat6 + h * m * kMatVec6;  // Φ^C, β^C
    n.disassembly_flops = m * h * kMatVec6;
  }
}

void computeStats(const Model& model, const AssemblyOptions& options, Impl& p) {
  AssemblyStats& s = p.stats;
  s.bodies = static_cast<int>(p.body_link.size());
  s.closures = static_cast<int>(options.loops.size());
  s.joints = static_cast<int>(p.edges.size()) - s.closures;
  s.nodes = static_cast<int>(p.nodes.size());
  s.height = p.nodes[idx(p.root)].height;
  std::vector<double> path(p.nodes.size(), 0.0);  // longest chain below and including a node
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    const double own = n.assembly_flops + n.disassembly_flops;
    s.total_flops += own;
    s.max_handles = std::max(s.max_handles, static_cast<int>(n.handles.size()));
    path[i] = own + (n.a < 0 ? 0.0 : std::max(path[idx(n.a)], path[idx(n.b)]));
  }
  s.critical_path_flops = path[idx(p.root)];
  (void)model;
  // Threads: the caller's part (nodes above the tasks) plus the tasks by longest first onto the
  // least loaded thread.
  const int threads = std::max(1, options.threads);
  if (threads == 1) {
    s.threaded_flops = s.total_flops;
    return;
  }
  std::vector<double> subtree(p.nodes.size(), 0.0);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    subtree[i] = n.assembly_flops + n.disassembly_flops + (n.a < 0 ? 0.0 : subtree[idx(n.a)] + subtree[idx(n.b)]);
  }
  double caller = 0.0;
  for (const int t : p.top) caller += p.nodes[idx(t)].assembly_flops + p.nodes[idx(t)].disassembly_flops;
  std::vector<double> load(idx(threads), 0.0);
  for (const int t : p.tasks) *std::min_element(load.begin(), load.end()) += subtree[idx(t)];
  s.threaded_flops = caller + *std::max_element(load.begin(), load.end());
  s.tasks = static_cast<int>(p.tasks.size());
}

// Subtrees for the threads: split the costliest until it is no larger than an even share.
void splitForThreads(int threads, Impl& p) {
  if (threads <= 1) return;
  std::vector<double> subtree(p.nodes.size(), 0.0);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    subtree[i] = n.assembly_flops + n.disassembly_flops + (n.a < 0 ? 0.0 : subtree[idx(n.a)] + subtree[idx(n.b)]);
  }
  std::vector<int> tasks{p.root};
  for (;;) {
    const auto it =
        std::max_element(tasks.begin(), tasks.end(), [&](int x, int y) { return subtree[idx(x)] < subtree[idx(y)]; });
    double sum = 0.0;
    for (const int t : tasks) sum += subtree[idx(t)];
    const int big = *it;
    if (p.isLeaf(big) || static_cast<int>(tasks.size()) >= 8 * threads) break;
    if (static_cast<int>(tasks.size()) >= threads && subtree[idx(big)] <= sum / threads) break;
    tasks.erase(it);
    tasks.push_back(p.nodes[idx(big)].a);
    tasks.push_back(p.nodes[idx(big)].b);
    p.top.push_back(big);
  }
  std::sort(tasks.begin(), tasks.end(), [&](int x, int y) { return subtree[idx(x)] > subtree[idx(y)]; });
  std::sort(p.top.begin(), p.top.end());
  p.tasks = tasks;
}

}  // namespace

const char* toString(AssemblySchedule s) { return s == AssemblySchedule::Serial ? "serial" : "parallel"; }

AssemblySchedule parseAssemblySchedule(std::string_view name) {
  if (name == "serial") return AssemblySchedule::Serial;
  if (name == "parallel") return AssemblySchedule::Parallel;
  throw InvalidArgument("unknown assembly schedule '" + std::string(name) + "' (serial, parallel)");
}

LoopClosure LoopClosure::holding(const Model& model, const Configuration& q, std::string name, FrameId frame,
                                 std::optional<FrameId> other, ClosureType type) {
  Data data(model);
  forwardKinematics(model, data, q);
  const Transform& X = updateFramePlacement(model, data, frame);
  LoopClosure c;
  c.name = std::move(name);
  c.frame = frame;
  c.other = other;
  c.type = type;
  if (other) {
    const Transform Y = updateFramePlacement(model, data, *other);
    c.offset.R = Y.R.transpose() * X.R;
    c.offset.p = Y.R.transpose() * (X.p - Y.p);
  } else {
    c.offset = X;
  }
  return c;
}

AssemblyPlan::AssemblyPlan(const Model& model, AssemblyOptions options)
    : AssemblyPlan(std::make_shared<const Model>(model), std::move(options)) {}

AssemblyPlan::AssemblyPlan(std::shared_ptr<const Model> model, AssemblyOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  if (!model_) throw InvalidArgument("assembly: no model");
  if (options_.threads < 1) throw InvalidArgument("assembly: threads must be >= 1");
  if (options_.refinement_steps < 0) throw InvalidArgument("assembly: refinement_steps must be >= 0");
  auto p = std::make_shared<Impl>();
  p->nb = model_->nvBase();
  buildBodies(*model_, options_, *p);
  Builder b(*p);
  if (options_.schedule == AssemblySchedule::Serial) {
    p->root = b.serial(0);
  } else {
    b.mark.assign(p->body_link.size(), 0);
    std::vector<int> all(p->body_link.size());
    std::iota(all.begin(), all.end(), 0);
    p->root = b.parallel(all);
  }
  wireNodes(*p);
  layoutAndCost(*p);
  splitForThreads(options_.threads, *p);
  computeStats(*model_, options_, *p);
  impl_ = std::move(p);
}

const AssemblyStats& AssemblyPlan::stats() const { return impl_->stats; }

std::string AssemblyPlan::describe() const {
  const Impl& p = *impl_;
  std::ostringstream os;
  auto name = [&](int body) {
    return p.body_link[idx(body)] < 0
               ? std::string(model_->baseType() == BaseType::Fixed ? model_->linkName(LinkId(0)) + " (world)"
                                                                   : std::string("world"))
               : model_->linkName(LinkId(p.body_link[idx(body)]));
  };
  std::function<void(int, int)> rec = [&](int n, int depth) {
    const Node& x = p.nodes[idx(n)];
    os << std::string(idx(2 * depth), ' ');
    if (x.a < 0) {
      os << name(x.body) << "\n";
      return;
    }
    os << "join (" << x.edges.size() << " joint" << (x.edges.size() == 1 ? "" : "s") << ", " << x.handles.size()
       << " open)\n";
    rec(x.a, depth + 1);
    rec(x.b, depth + 1);
  };
  rec(p.root, 0);
  return os.str();
}

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
    return n.a < 0 ? w.phi[idx(n.phi)] : w.phi[idx(n.phi + i * static_cast<int>(n.handles.size()) + j)];
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
    const int h = static_cast<int>(n.handles.size());
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
  // Z = L⁻¹Tᵀ (K = TᵀΦT = LLᵀ), Y = ZᵀZ is never formed: W_k = Z D_k (R × 6) per handle gives
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
    const int h = static_cast<int>(n.handles.size());
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
    const int h = static_cast<int>(n.handles.size());
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
    const int h = static_cast<int>(n.handles.size());
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
    if (!n.handles.empty()) w.body_acc[idx(n.body)].noalias() += w.phi[idx(n.phi)] * w.force[idx(n.force)];
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

void checkSize(const VectorXd& x, int nv, const char* what) {
  if (x.size() != nv)
    throw InvalidArgument(std::string("assemblyForwardDynamics: ") + what + ": expected " + std::to_string(nv) +
                          " entries, got " + std::to_string(x.size()));
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
  checkSize(v, model.nv(), "velocity");
  checkSize(tau, model.nv(), "generalised forces");
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
