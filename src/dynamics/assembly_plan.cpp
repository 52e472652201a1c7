// AssemblyPlan: the bodies and joints of a model, the binary schedule tree (serial or parallel),
// its ports and index maps, the workspace layout, the counted cost and the split for threads.
#include <Eigen/LU>
#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "assembly_impl.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/mass_properties.hpp"
#include "rigid_body_detail.hpp"

namespace kinetrack {

using assembly_detail::EdgeKind;
using assembly_detail::idx;
using assembly_detail::kMaxJoinEdges;

namespace {

// Cost model of the counted operations (flops: multiplies and adds).
constexpr double kMatMat6 = 6 * 6 * 11;  // 6×6 · 6×6
constexpr double kMatVec6 = 6 * 11;      // 6×6 · 6
constexpr double kAdd6 = 36;             // 6×6 + 6×6

using Impl = AssemblyPlan::Impl;
using Node = Impl::Node;
using Edge = Impl::Edge;

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

// Which joints close at which node (the lowest node holding both ends), the ports of every
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
      if (!open[ni].empty()) n.ports.push_back(n.body);
      continue;
    }
    if (static_cast<int>(n.edges.size()) > kMaxJoinEdges)
      throw InvalidArgument("assembly: " + std::to_string(n.edges.size()) + " joints close in one step (at most " +
                            std::to_string(kMaxJoinEdges) + "); use fewer loop closures");
    const Node& A = p.nodes[idx(n.a)];
    const Node& B = p.nodes[idx(n.b)];
    for (const int e : n.edges) {
      const Edge& ed = p.edges[idx(e)];
      const int pa = find(A.ports, ed.parent_body), cb = find(B.ports, ed.child_body);
      const int ca = find(A.ports, ed.child_body), pb = find(B.ports, ed.parent_body);
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
      for (std::size_t i = 0; i < X.ports.size(); ++i)
        if (touches(open[ni], X.ports[i])) {
          n.ports.push_back(X.ports[i]);
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
      for (std::size_t i = 0; i < X.ports.size(); ++i) {
        src.push_back(find(n.ports, X.ports[i]));
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
    const int h = static_cast<int>(n.ports.size());
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
    s.max_handles = std::max(s.max_handles, static_cast<int>(n.ports.size()));
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
    : AssemblyPlan(std::make_shared<const Model>(model), std::move(options)) {
  if (model.hasCustomJoints()) detail::refuseCustomJoints(model);
}

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
    os << "join (" << x.edges.size() << " joint" << (x.edges.size() == 1 ? "" : "s") << ", " << x.ports.size()
       << " open)\n";
    rec(x.a, depth + 1);
    rec(x.b, depth + 1);
  };
  rec(p.root, 0);
  return os.str();
}

}  // namespace kinetrack
