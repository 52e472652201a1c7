#pragma once
// Collision limits: no proxy below the ground, no two proxies through each other, as inequality
// rows of DYN's velocity QP with a margin, on the model of the limits in limits.hpp (built once
// from a Model; per step they write QP rows and bounds without allocating).
//
// The proxies are capsules fixed to links (model/collision_proxy.hpp). Per step, at the
// configuration of a Data after forwardKinematics:
//  - ground, per capsule end (a sphere has one) within the activation distance, its lowest
//    point p (the end minus the radius along `up`) at height h = up·p − height:
//        up·J_p ν ≥ −V tanh((γ/V)(h − margin))                  (the shaping of DYN Eq. 12)
//    with the discrete guard ≥ (margin − h)/Δt (a step cannot cross the margin; below it, the push
//    back is capped at what lands on it);
//  - self-collision, per candidate pair (A, B) with closest segment points c_a, c_b, normal
//    n = (c_a − c_b)/|c_a − c_b| and distance d = |c_a − c_b| − r_a − r_b:
//        nᵀ (J_a(c_a) − J_b(c_b)) ν ≥ −V tanh((γ/V)(d − margin)),  same guard.
//    ḋ = nᵀ(ċ_a − ċ_b) for the points fixed to the links at c_a, c_b (the closest points' own
//    motion along the segments is normal to n), so each row is the exact rate of its distance.
// Near the margin the bound is −γ(d − margin) (γ the rate gain, 1/s); far from it, the approach
// speed is capped at V. Rows exist only for proxies and pairs closer than their activation
// distance, up to a fixed number of rows (the nearest first): the QP's size never changes, an
// unused row is zero with infinite bounds.
//
// Pairs: every two proxies on different links, except links within `ignore_within_joints` joints
// of each other (2 by default: parent and child, and the links of a two- or three-axis joint),
// pairs named in `exclude`, and pairs closer than the margin (plus `reference_clearance`) at a
// reference configuration (overlapping by design: reported by overlappingAtReference()).
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/model/collision_proxy.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::ik {

/// The shaping of the collision rows: bound −V tanh((γ/V)(d − margin)) on ḋ.
struct CollisionShaping {
  double gain = 20.0;         ///< γ (1/s): the rate at which a gap to the margin may close near it
  double max_velocity = 2.0;  ///< V (m/s): the largest approach speed far from the margin
  bool discrete_safe = true;  ///< also ḋ ≥ (margin − d)/Δt: a step cannot cross the margin
};

/// The ground: a plane with normal `up` at `height` along it.
struct GroundOptions {
  bool enabled = false;
  /// Unit normal of the ground, pointing up (world); unset: the model's up (Model::up()).
  std::optional<Vector3d> up;
  double height = 0.0;                ///< the plane's offset along `up` (m)
  double margin = 0.0;                ///< clearance kept above the plane (m, ≥ 0)
  double activation_distance = 0.05;  ///< rows for proxies lower than this above the margin (m)
  int max_rows = 24;                  ///< rows reserved (the lowest capsule ends first)
};

/// Self-collision between proxies on different links.
struct SelfCollisionOptions {
  bool enabled = false;
  double margin = 0.01;               ///< clearance kept between two proxies (m, ≥ 0)
  double activation_distance = 0.05;  ///< rows for pairs closer than this above the margin (m)
  int max_rows = 16;                  ///< rows reserved (the closest pairs first)
  /// Links this many joints apart or fewer never collide (0: only the same link is skipped; 1:
  /// parent and child; 2, the default: also the links of a two- or three-axis joint assembly
  /// such as a robot's hip, shoulder or wrist, which touch by design). Counted along the tree
  /// path; fixed (merged) links are their link.
  int ignore_within_joints = 2;
  /// Link pairs that never collide (either name may be "*": every link).
  std::vector<std::pair<std::string, std::string>> exclude;
  /// Pairs closer than margin + reference_clearance at the reference configuration are skipped
  /// (m, any sign; 0: those inside the margin there, which the rows would push apart from the
  /// first step, often through their own joint, where no velocity can; −margin: only those that
  /// overlap). The reference: `reference`, else the model's zero configuration.
  double reference_clearance = 0.0;
  std::optional<Configuration> reference;
  /// Keep those pairs instead of skipping them, each held at its own distance at the reference
  /// minus `reference_slack`: a pair that overlaps by design there (a robot's upper arm in the
  /// bounding capsule of its torso) may not go deeper than it is in that pose, which keeps an arm
  /// from passing through the body without pushing it out of the capsule at the first step. Its
  /// penetration (CollisionViolation) counts from there.
  bool hold_reference_overlaps = false;
  double reference_slack = 0.005;  ///< m, ≥ 0
};

struct CollisionOptions {
  GroundOptions ground;
  SelfCollisionOptions self;
  CollisionShaping shaping;
  [[nodiscard]] bool enabled() const { return ground.enabled || self.enabled; }
};

/// A candidate self-collision pair (indices into the proxies).
struct CollisionPair {
  int a = -1, b = -1;
};

/// Violation figures at the configuration of the last update (margins not counted).
struct CollisionViolation {
  double ground_depth = 0.0;  ///< deepest proxy point below the ground (m, ≥ 0)
  int ground_proxy = -1;      ///< its proxy (−1 when none is below)
  /// Deepest overlap of a candidate pair (m, ≥ 0); for a pair held at its reference overlap
  /// (hold_reference_overlaps), how far it is past that overlap.
  double penetration = 0.0;
  CollisionPair pair;                                             ///< that pair (−1 when none overlaps)
  double min_distance = std::numeric_limits<double>::infinity();  ///< smallest pair distance seen (m)
  int active_rows = 0;                                            ///< rows written (ground + self)
  int dropped = 0;  ///< proxies or pairs within activation that found no row
};

/// What one written row holds.
struct CollisionRow {
  bool ground = true;  ///< a ground row (index: the proxy) or a self-collision row (index: the pair)
  int index = -1;
  double gap = 0.0;  ///< height above the ground or pair distance, minus the margin (m)
  int end = 0;       ///< ground rows: the capsule end whose lowest point the row holds (0: a, 1: b)
};

/// Ground and self-collision rows for DYN's QP. Built once (allocates); update() and
/// velocityRows() do not allocate.
class CollisionLimits {
 public:
  /// Shares `model` (the constructor from a reference copies it) and keeps `proxies`. Throws
  /// InvalidArgument for a null model, a proxy with an invalid link, a non-finite end, a negative
  /// or non-finite radius (naming the proxy), a non-finite or negative option, a zero `up`, an
  /// unknown link name in `exclude` (listing the links) or a reference configuration of the
  /// wrong size.
  CollisionLimits(std::shared_ptr<const Model> model, std::vector<CollisionProxy> proxies,
                  const CollisionOptions& options);
  CollisionLimits(const Model& model, std::vector<CollisionProxy> proxies, const CollisionOptions& options);

  /// Rows reserved: ground.max_rows (at most one per capsule end; 0 when disabled) plus
  /// self.max_rows (at most one per candidate pair; 0 when disabled).
  [[nodiscard]] int numRows() const { return ground_rows_ + self_rows_; }
  [[nodiscard]] int numGroundRows() const { return ground_rows_; }
  [[nodiscard]] const std::vector<CollisionProxy>& proxies() const { return proxies_; }
  [[nodiscard]] const CollisionOptions& options() const { return options_; }
  /// The candidate self-collision pairs after the filter.
  [[nodiscard]] const std::vector<CollisionPair>& pairs() const { return pairs_; }
  /// The pairs the reference-configuration filter removed, with their distance there (m).
  /// The margin kept by candidate pair k (pairs()[k]): self.margin, or for a pair held at its
  /// reference overlap its reference distance minus self.reference_slack (may be negative).
  [[nodiscard]] double pairMargin(int k) const { return pair_margin_.at(static_cast<std::size_t>(k)); }
  [[nodiscard]] const std::vector<std::pair<CollisionPair, double>>& overlappingAtReference() const {
    return overlapping_;
  }

  /// Geometry at the configuration of `data` (forwardKinematics done): world capsules, heights,
  /// pair distances, the rows' active set and the violation figures. No allocation.
  void update(const Data& data);

  /// Writes the numRows() rows A (numRows × nv) and their bounds lbA ≤ A ν ≤ ubA (ubA = +∞) at
  /// the state of the last update(), which must have been made with this `data`: the active rows
  /// first (row r < activeRows() is activeRow(r): ground rows, then self-collision rows), then
  /// the unused ones, zero with lbA = −∞. Δt > 0 (s) serves the discrete guard. No allocation.
  void velocityRows(const Data& data, double dt, Eigen::Ref<MatrixXd> A, Eigen::Ref<VectorXd> lbA,
                    Eigen::Ref<VectorXd> ubA) const;

  /// Violation figures at the last update().
  [[nodiscard]] const CollisionViolation& violation() const { return violation_; }
  /// Rows the last update() made active (violation().active_rows), in the order velocityRows
  /// writes them: row r < activeRows() is activeRow(r).
  [[nodiscard]] int activeRows() const { return violation_.active_rows; }
  [[nodiscard]] CollisionRow activeRow(int r) const;

  /// At the configuration of `data` (forwardKinematics done), computed afresh: the distance of
  /// two proxies (m, margins not counted; negative when they overlap) and the height above the
  /// ground of a proxy's lowest point (m), or of the lowest point of one of its ends (0: a, 1: b).
  /// For tests and reports.
  [[nodiscard]] double proxyDistance(const Data& data, int a, int b) const;
  [[nodiscard]] double groundHeight(const Data& data, int proxy) const;
  [[nodiscard]] double groundHeight(const Data& data, int proxy, int end) const;

 private:
  struct Row {
    int index = 0;  // proxy (ground) or pair (self)
    int end = 0;    // ground: the capsule end
    double gap = 0.0;
    Vector3d pa = Vector3d::Zero(), pb = Vector3d::Zero(), n = Vector3d::Zero();
  };
  struct World {
    Vector3d a = Vector3d::Zero(), b = Vector3d::Zero(), centre = Vector3d::Zero();
    double bound = 0.0;  // radius of the bounding sphere (half length + radius)
  };
  void worldCapsules(const Data& data, std::vector<World>& world) const;

  std::shared_ptr<const Model> model_;
  std::vector<CollisionProxy> proxies_;
  CollisionOptions options_;
  Vector3d up_ = Vector3d::UnitZ();
  int ground_rows_ = 0, self_rows_ = 0;
  std::vector<CollisionPair> pairs_;
  std::vector<std::pair<CollisionPair, double>> overlapping_;
  std::vector<double> pair_margin_;  // per candidate pair: the margin its row keeps
  // per-step scratch (sized once)
  std::vector<World> world_;
  std::vector<Row> ground_active_, self_active_;  // candidates; the first *_count_ are the rows
  int ground_count_ = 0, self_count_ = 0;
  CollisionViolation violation_;
};

}  // namespace kinetrack::ik
