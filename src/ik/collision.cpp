#include "kinetrack/ik/collision.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"

namespace kinetrack::ik {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void checkNonNegative(double v, const std::string& what) {
  if (!std::isfinite(v) || v < 0.0)
    throw InvalidArgument("CollisionLimits: " + what + ": expected a finite value ≥ 0, got " + std::to_string(v));
}

// Number of joints on the tree path between two links.
int jointsBetween(const Model& model, LinkId a, LinkId b) {
  int n = 0;
  auto depth = [&](LinkId l) { return static_cast<int>(model.support(l).size()); };
  while (a != b) {
    if (depth(a) >= depth(b))
      a = model.parent(a);
    else
      b = model.parent(b);
    ++n;
  }
  return n;
}

// A link by its name, or by the name of a frame merged into it (URDF fixed links); "*" = any.
LinkId linkByName(const Model& model, const std::string& name) {
  if (name == "*") return LinkId();
  if (auto l = model.findLink(name)) return *l;
  if (auto f = model.findFrame(name)) return model.frameLink(*f);
  return model.linkId(name);  // throws, listing the links
}

// Closest points and signed distance of two world capsules, with the unit normal from B to A.
// Segments that meet (the normal undefined) take the normal of the two segments' plane, oriented
// from B's centre towards A's; for parallel ones any normal to A's direction.
struct PairGeometry {
  Vector3d pa, pb, n;
  double distance;  // |pa − pb| − r_a − r_b
};

PairGeometry pairGeometry(const Vector3d& a0, const Vector3d& a1, double ra, const Vector3d& b0, const Vector3d& b1,
                          double rb) {
  const SegmentClosestPoints c = closestPointsOfSegments(a0, a1, b0, b1);
  PairGeometry g{c.pa, c.pb, Vector3d::Zero(), c.distance - ra - rb};
  if (c.distance > 1e-12) {
    g.n = (c.pa - c.pb) / c.distance;
    return g;
  }
  Vector3d n = (a1 - a0).cross(b1 - b0);
  if (n.squaredNorm() < 1e-24) n = (a1 - a0).squaredNorm() > 1e-24 ? (a1 - a0).unitOrthogonal() : Vector3d::UnitZ();
  n.normalize();
  if (n.dot(0.5 * (a0 + a1) - 0.5 * (b0 + b1)) < 0.0) n = -n;
  g.n = n;
  return g;
}

}  // namespace

CollisionLimits::CollisionLimits(const Model& model, std::vector<CollisionProxy> proxies,
                                 const CollisionOptions& options)
    : CollisionLimits(std::make_shared<const Model>(model), std::move(proxies), options) {}

CollisionLimits::CollisionLimits(std::shared_ptr<const Model> model, std::vector<CollisionProxy> proxies,
                                 const CollisionOptions& options)
    : model_(std::move(model)), proxies_(std::move(proxies)), options_(options) {
  if (!model_) throw InvalidArgument("CollisionLimits: null model");
  const Model& m = *model_;
  for (std::size_t i = 0; i < proxies_.size(); ++i) {
    const CollisionProxy& p = proxies_[i];
    const std::string who = "proxy " + std::to_string(i) + " '" + p.name + "'";
    if (!p.link.valid() || p.link.value >= m.numLinks())
      throw InvalidArgument("CollisionLimits: " + who + ": invalid link id " + std::to_string(p.link.value) + " (" +
                            std::to_string(m.numLinks()) + " links)");
    if (!p.a.allFinite() || !p.b.allFinite())
      throw InvalidArgument("CollisionLimits: " + who + ": segment end is not finite");
    checkNonNegative(p.radius, who + ": radius");
  }
  const GroundOptions& go = options_.ground;
  const SelfCollisionOptions& so = options_.self;
  if (!std::isfinite(go.height)) throw InvalidArgument("CollisionLimits: ground.height is not finite");
  checkNonNegative(go.margin, "ground.margin");
  checkNonNegative(go.activation_distance, "ground.activation_distance");
  checkNonNegative(so.margin, "self.margin");
  checkNonNegative(so.activation_distance, "self.activation_distance");
  if (!std::isfinite(so.reference_clearance))
    throw InvalidArgument("CollisionLimits: self.reference_clearance is not finite");
  checkNonNegative(so.reference_slack, "self.reference_slack");
  checkNonNegative(options_.shaping.gain, "shaping.gain");
  checkNonNegative(options_.shaping.max_velocity, "shaping.max_velocity");
  if (!(options_.shaping.gain > 0.0) || !(options_.shaping.max_velocity > 0.0))
    throw InvalidArgument("CollisionLimits: shaping.gain and shaping.max_velocity must be > 0");
  if (go.max_rows < 0 || so.max_rows < 0)
    throw InvalidArgument("CollisionLimits: ground.max_rows and self.max_rows must be ≥ 0");
  if (so.ignore_within_joints < 0) throw InvalidArgument("CollisionLimits: self.ignore_within_joints must be ≥ 0");
  up_ = go.up.value_or(m.up());
  if (!up_.allFinite() || up_.norm() < 1e-9)
    throw InvalidArgument("CollisionLimits: ground.up must be a finite non-zero vector");
  up_.normalize();

  const int n = static_cast<int>(proxies_.size());
  if (go.enabled) ground_rows_ = std::min(go.max_rows, 2 * n);
  if (so.enabled) {
    // Candidate pairs: different links far enough apart in the tree, not excluded by name.
    std::vector<std::pair<LinkId, LinkId>> excluded;
    for (const auto& [x, y] : so.exclude) excluded.emplace_back(linkByName(m, x), linkByName(m, y));
    auto isExcluded = [&](LinkId a, LinkId b) {
      for (const auto& [x, y] : excluded) {
        const bool ax = !x.valid() || x == a, by = !y.valid() || y == b;
        const bool bx = !x.valid() || x == b, ay = !y.valid() || y == a;
        if ((ax && by) || (bx && ay)) return true;
      }
      return false;
    };
    std::vector<CollisionPair> candidates;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const LinkId a = proxies_[static_cast<std::size_t>(i)].link, b = proxies_[static_cast<std::size_t>(j)].link;
        if (a == b || jointsBetween(m, a, b) <= so.ignore_within_joints || isExcluded(a, b)) continue;
        candidates.push_back({i, j});
      }
    // Pairs overlapping (closer than the clearance) at the reference configuration.
    const Configuration ref = so.reference.value_or(Configuration(m));
    if (ref.joints.size() != m.numJoints())
      throw InvalidArgument("CollisionLimits: self.reference: expected " + std::to_string(m.numJoints()) +
                            " joint coordinates, got " + std::to_string(ref.joints.size()));
    Data data(m);
    forwardKinematics(m, data, ref);
    for (const CollisionPair& p : candidates) {
      const double d = proxyDistance(data, p.a, p.b);
      const bool overlapping = d < so.margin + so.reference_clearance;
      if (overlapping) overlapping_.push_back({p, d});
      if (overlapping && !so.hold_reference_overlaps) continue;
      pairs_.push_back(p);
      pair_margin_.push_back(overlapping ? std::min(so.margin, d - so.reference_slack) : so.margin);
    }
    self_rows_ = std::min(so.max_rows, static_cast<int>(pairs_.size()));
  }
  world_.resize(proxies_.size());
  ground_active_.resize(go.enabled ? 2 * proxies_.size() : 0);
  self_active_.resize(pairs_.size());
}

void CollisionLimits::worldCapsules(const Data& data, std::vector<World>& world) const {
  for (std::size_t i = 0; i < proxies_.size(); ++i) {
    const CollisionProxy& p = proxies_[i];
    const Transform& L = data.link[static_cast<std::size_t>(p.link.value)];
    World& w = world[i];
    w.a = L.R * p.a + L.p;
    w.b = L.R * p.b + L.p;
    w.centre = 0.5 * (w.a + w.b);
    w.bound = 0.5 * (w.b - w.a).norm() + p.radius;
  }
}

double CollisionLimits::proxyDistance(const Data& data, int a, int b) const {
  const CollisionProxy& A = proxies_.at(static_cast<std::size_t>(a));
  const CollisionProxy& B = proxies_.at(static_cast<std::size_t>(b));
  const Transform& LA = data.link[static_cast<std::size_t>(A.link.value)];
  const Transform& LB = data.link[static_cast<std::size_t>(B.link.value)];
  return pairGeometry(LA.R * A.a + LA.p, LA.R * A.b + LA.p, A.radius, LB.R * B.a + LB.p, LB.R * B.b + LB.p, B.radius)
      .distance;
}

double CollisionLimits::groundHeight(const Data& data, int proxy) const {
  return std::min(groundHeight(data, proxy, 0), groundHeight(data, proxy, 1));
}

double CollisionLimits::groundHeight(const Data& data, int proxy, int end) const {
  const CollisionProxy& P = proxies_.at(static_cast<std::size_t>(proxy));
  const Transform& L = data.link[static_cast<std::size_t>(P.link.value)];
  return up_.dot(L.R * (end == 0 ? P.a : P.b) + L.p) - P.radius - options_.ground.height;
}

void CollisionLimits::update(const Data& data) {
  worldCapsules(data, world_);
  CollisionViolation v;
  // Ground: the lowest end of each capsule (its lowest point is that end minus r·up).
  const GroundOptions& go = options_.ground;
  int ground_candidates = 0;
  // A row per capsule end within the activation distance (one for a sphere): with the lowest
  // end only, a long capsule turning about it (a foot pitching) puts its other end through the
  // ground within a step.
  for (std::size_t i = 0; i < proxies_.size(); ++i) {
    const World& w = world_[i];
    const double ha = up_.dot(w.a), hb = up_.dot(w.b);
    const double h = std::min(ha, hb) - proxies_[i].radius - go.height;
    if (-h > v.ground_depth) v.ground_depth = -h, v.ground_proxy = static_cast<int>(i);
    if (!go.enabled) continue;
    const bool sphere = w.a == w.b;
    for (int end = 0; end < (sphere ? 1 : 2); ++end) {
      const Vector3d& p = end == 0 ? w.a : w.b;
      const double he = up_.dot(p) - proxies_[i].radius - go.height;
      if (he - go.margin >= go.activation_distance) continue;
      Row& r = ground_active_[static_cast<std::size_t>(ground_candidates++)];
      r.index = static_cast<int>(i);
      r.end = end;
      r.gap = he - go.margin;
      r.pa = p;
    }
  }
  ground_count_ = std::min(ground_candidates, ground_rows_);
  if (ground_candidates > ground_count_) {  // the lowest first
    std::nth_element(ground_active_.begin(), ground_active_.begin() + ground_count_,
                     ground_active_.begin() + ground_candidates,
                     [](const Row& x, const Row& y) { return x.gap < y.gap; });
  }
  v.dropped += ground_candidates - ground_count_;

  // Self-collision: bounding spheres first, segment distances for the pairs they do not separate.
  const SelfCollisionOptions& so = options_.self;
  int self_candidates = 0;
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    const CollisionPair& p = pairs_[k];
    const World& A = world_[static_cast<std::size_t>(p.a)];
    const World& B = world_[static_cast<std::size_t>(p.b)];
    const double margin = pair_margin_[k];
    const double sep = A.bound + B.bound + std::max(margin, 0.0) + so.activation_distance;
    if ((A.centre - B.centre).squaredNorm() > sep * sep) continue;
    const PairGeometry g = pairGeometry(A.a, A.b, proxies_[static_cast<std::size_t>(p.a)].radius, B.a, B.b,
                                        proxies_[static_cast<std::size_t>(p.b)].radius);
    v.min_distance = std::min(v.min_distance, g.distance);
    const double allowed = std::min(0.0, margin);  // the overlap a held pair may keep (≤ 0)
    if (allowed - g.distance > v.penetration) v.penetration = allowed - g.distance, v.pair = p;
    if (g.distance - margin < so.activation_distance) {
      Row& r = self_active_[static_cast<std::size_t>(self_candidates++)];
      r.index = static_cast<int>(k);
      r.gap = g.distance - margin;
      r.pa = g.pa;
      r.pb = g.pb;
      r.n = g.n;
    }
  }
  self_count_ = std::min(self_candidates, self_rows_);
  if (self_candidates > self_count_) {  // the closest first
    std::nth_element(self_active_.begin(), self_active_.begin() + self_count_, self_active_.begin() + self_candidates,
                     [](const Row& x, const Row& y) { return x.gap < y.gap; });
  }
  v.dropped += self_candidates - self_count_;
  v.active_rows = ground_count_ + self_count_;
  violation_ = v;
}

CollisionRow CollisionLimits::activeRow(int r) const {
  if (r < 0 || r >= violation_.active_rows)
    throw InvalidArgument("CollisionLimits::activeRow: row " + std::to_string(r) + " of " +
                          std::to_string(violation_.active_rows) + " active");
  if (r < ground_count_) {
    const Row& x = ground_active_[static_cast<std::size_t>(r)];
    return {true, x.index, x.gap, x.end};
  }
  const Row& x = self_active_[static_cast<std::size_t>(r - ground_count_)];
  return {false, x.index, x.gap};
}

void CollisionLimits::velocityRows(const Data& data, double dt, Eigen::Ref<MatrixXd> A, Eigen::Ref<VectorXd> lbA,
                                   Eigen::Ref<VectorXd> ubA) const {
  const Model& m = *model_;
  const CollisionShaping& sh = options_.shaping;
  // DYN Eq. 12 on the gap: −V tanh(k·gap) with k = γ/V, and the discrete guard.
  const LimitShaping shaping{sh.gain / sh.max_velocity, sh.max_velocity, sh.discrete_safe};
  auto bound = [&](double gap) { return shapedVelocityBounds(gap, 0.0, kInf, sh.max_velocity, shaping, dt).first; };
  // Active rows packed first (ground, then self-collision), unused rows after them.
  int row = 0;
  for (int k = 0; k < ground_count_; ++k, ++row) {
    const Row& r = ground_active_[static_cast<std::size_t>(k)];
    auto a = A.row(row);
    a.setZero();
    addProjectedPointJacobian(m, data, proxies_[static_cast<std::size_t>(r.index)].link, r.pa, up_, a);
    lbA[row] = bound(r.gap);
    ubA[row] = kInf;
  }
  for (int k = 0; k < self_count_; ++k, ++row) {
    const Row& r = self_active_[static_cast<std::size_t>(k)];
    const CollisionPair& p = pairs_[static_cast<std::size_t>(r.index)];
    auto a = A.row(row);
    a.setZero();
    addProjectedPointJacobian(m, data, proxies_[static_cast<std::size_t>(p.a)].link, r.pa, r.n, a);
    addProjectedPointJacobian(m, data, proxies_[static_cast<std::size_t>(p.b)].link, r.pb, -r.n, a);
    lbA[row] = bound(r.gap);
    ubA[row] = kInf;
  }
  for (; row < ground_rows_ + self_rows_; ++row) {
    A.row(row).setZero();
    lbA[row] = -kInf;
    ubA[row] = kInf;
  }
}

}  // namespace kinetrack::ik
