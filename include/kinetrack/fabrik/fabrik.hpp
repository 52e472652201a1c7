#pragma once
// FABRIK (Aristidou & Lasenby; FAB Algorithm 1, and the multi-end-effector version of 2011): a
// position-based IK solver over a tree of joint points with fixed bone lengths, with hinge and
// ball-and-socket (cone + twist) constraints and hinge-hinge coupling. See docs/fabrik.md.
//
// Frames. Every bone j (from parent(j) to joint j) carries a frame F_j (world rotation) whose z
// axis is the bone direction. The root carries the base frame F_0 (given). Joint j's constraint
// is expressed in its constraint frame C_j = F_parent(j) · R_offset_j; a constraint-free bone
// keeps C_j^T F_j fixed when it has no target below it and otherwise is transported by the
// minimal rotation onto its new direction (so its twist is inherited from the previous pose).
#include <array>
#include <cstdint>
#include <numbers>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/status.hpp"

namespace kinetrack::fabrik {

using Matrix3Xd = Eigen::Matrix3Xd;
inline constexpr double kPi = std::numbers::pi;

enum class ConstraintType : std::uint8_t { None, Hinge, Ball };

/// The allowed motion of bone j relative to its constraint frame C_j = F_parent · R_offset.
struct JointConstraint {
  ConstraintType type = ConstraintType::None;
  /// Constraint frame in the parent bone's frame (identity: centred on the parent bone direction).
  Matrix3d R_offset = Matrix3d::Identity();
  /// Hinge: rotation axis in C_j, perpendicular to C_j's z (normalised by the skeleton). The
  /// hinge angle θ is measured about it from C_j's z: F_j = C_j · Rot(axis, θ).
  Vector3d hinge_axis = Vector3d::UnitX();
  double min_angle = -kPi;  ///< hinge range (rad)
  double max_angle = kPi;
  /// Ball: half-angle of the cone about C_j's z the bone must stay in (rad, in [0, π]).
  double cone_angle = kPi;
  /// Ball: twist range (rad) about the bone, of the swing-twist split C_j^T F_j = swing · Rz(τ).
  double min_twist = -kPi;
  double max_twist = kPi;
};

/// A tree of joint points: joint 0 is the root, parent(j) < j. Bone lengths are taken from the
/// rest positions given at construction and never change.
class Skeleton {
 public:
  /// `parents[j]` is joint j's parent (-1 for joint 0 only); `rest` is (3 × n), metres.
  /// Throws InvalidArgument on a bad parent list, a size mismatch or a zero-length bone.
  Skeleton(std::vector<int> parents, const Eigen::Ref<const Matrix3Xd>& rest);

  /// Sets joint j's constraint (j ≥ 1). Throws InvalidArgument for a hinge axis not perpendicular
  /// to z, an empty range or a cone angle outside [0, π].
  void setConstraint(int j, const JointConstraint& c);
  /// Couples the hinge of joint `distal` to its parent's hinge: θ_distal = k · θ_parent (k = 2/3
  /// for a finger's DIP/PIP). Both must be hinges; the parent's range is narrowed to the values
  /// whose image lies in the distal range. Throws InvalidArgument otherwise.
  void setCoupling(int distal, double k);
  /// The base (root) frame F_0, a rotation (default identity).
  void setBaseFrame(const Matrix3d& R) { base_frame_ = R; }

  [[nodiscard]] int size() const { return static_cast<int>(parent_.size()); }
  [[nodiscard]] int parent(int j) const { return parent_[static_cast<std::size_t>(j)]; }
  [[nodiscard]] double length(int j) const { return length_[static_cast<std::size_t>(j)]; }
  [[nodiscard]] const JointConstraint& constraint(int j) const { return constraint_[static_cast<std::size_t>(j)]; }
  /// Coupling factor of joint j to its parent (0: not coupled).
  [[nodiscard]] double coupling(int j) const { return coupling_[static_cast<std::size_t>(j)]; }
  [[nodiscard]] const Matrix3d& baseFrame() const { return base_frame_; }
  /// cos of joint j's cone half-angle (cached for the solver).
  [[nodiscard]] double coneCos(int j) const { return cone_cos_[static_cast<std::size_t>(j)]; }

 private:
  void checkJoint(int j) const;
  std::vector<int> parent_;
  std::vector<double> length_;  // length_[0] = 0
  std::vector<JointConstraint> constraint_;
  std::vector<double> coupling_;
  std::vector<double> cone_cos_;
  Matrix3d base_frame_ = Matrix3d::Identity();
};

enum class RootMode : std::uint8_t {
  Fixed,  ///< the root stays where the input put it, or at its target when it has one
  Free,   ///< the root goes where the backward pass puts it (the whole tree may translate)
};

struct Options {
  double tolerance = 1e-6;  ///< largest target distance accepted as converged (m)
  int max_iterations = 100;
  RootMode root = RootMode::Fixed;
  /// Restarts allowed when an iteration reduces the error by less than `stall_ratio` (a stall,
  /// e.g. a one-sided hinge locked at its bound): first the neutral pose (hinges at the in-range
  /// angle nearest 0, ball joints on their cone axis with the in-range twist nearest 0), then the
  /// hinges at 1/2, 1/4, 3/4 of their ranges (other joints keep their relative rotations); the
  /// iterations go on. 0: plain FABRIK.
  int restarts = 3;
  double stall_ratio = 0.999;
  /// Stop at a stall once every restart is used (status Stationary, Result::stalled) instead of
  /// iterating to the cap: for trackers that solve every frame and prefer time to the last
  /// fraction of a percent an unreachable-inside-the-limits target would still gain.
  bool stop_when_stalled = false;
  /// Where restart k (cycling) puts the hinges: a fraction of each range from its minimum, or a
  /// negative value for the neutral pose above.
  std::array<double, 4> restart_fractions{-1.0, 0.5, 0.25, 0.75};
};

/// How a solve ended. The ik::Result fields: status Converged (every target within the
/// tolerance), Stationary (the targets were missed at a fixed point: a target out of reach —
/// `unreachable`, the chain stretched towards it — or no progress with every restart used —
/// `stalled`, Options::stop_when_stalled), IterationLimit (the cap was reached first, the last
/// iterate is returned); iterations: full (backward + forward) iterations. mnte and the
/// violations are not computed (0): the constraints hold by construction.
struct Result : ik::Result {
  double error = 0.0;        ///< largest distance of a targeted joint to its target (m)
  bool unreachable = false;  ///< with the root held, a target lies beyond the bones' reach
  bool stalled = false;      ///< stopped at a stall after the last restart (Options::stop_when_stalled)
};

/// Solves FABRIK on one Skeleton. Sized at construction: solve() never allocates.
class Solver {
 public:
  explicit Solver(Skeleton skeleton);

  /// Sets / removes the target of joint j (any joint: leaves, intermediate joints, the root).
  void setTarget(int j, const Vector3d& target);
  void clearTarget(int j);
  void clearTargets();

  /// Replaces the base (root) frame F_0 for the next solve; the bone frames are re-derived from
  /// the positions passed to that solve (resetFrames), as on a first solve.
  void setBaseFrame(const Matrix3d& R);

  /// Re-derives the bone frames from `positions` (3 × n): every frame is the minimal rotation of
  /// its constraint frame onto the bone (zero twist). solve() calls it on the first solve.
  void resetFrames(const Eigen::Ref<const Matrix3Xd>& positions);

  /// Moves `positions` (3 × n, in/out, metres) towards the targets. Bone lengths are kept (the
  /// input must have the skeleton's bone lengths; they are restored exactly in the first pass)
  /// and every constraint holds at return. Throws InvalidArgument for a wrong shape.
  Result solve(Eigen::Ref<Matrix3Xd> positions, const Options& options = {});

  [[nodiscard]] const Skeleton& skeleton() const { return skeleton_; }
  /// Bone frame F_j (world) after the last solve; F_0 is the base frame.
  [[nodiscard]] const Matrix3d& frame(int j) const { return frame_[static_cast<std::size_t>(j)]; }
  /// Hinge angle of joint j after the last solve (rad; 0 for other joints).
  [[nodiscard]] double hingeAngle(int j) const { return angle_[static_cast<std::size_t>(j)]; }
  /// Constraint frame C_j = F_parent(j) · R_offset_j (world) after the last solve (j ≥ 1).
  [[nodiscard]] Matrix3d constraintFrame(int j) const;

 private:
  void backward(Eigen::Ref<Matrix3Xd> p, bool free_root);
  void forward(Eigen::Ref<Matrix3Xd> p, const Vector3d& root);
  void placeBone(Eigen::Ref<Matrix3Xd> p, int j, const Vector3d& desired);
  /// A hinge angle with its cosine and sine, and those of k·t for a coupled pair.
  struct HingeTrig {
    double t = 0.0, ct = 1.0, st = 0.0, ck = 1.0, sk = 0.0;
  };
  [[nodiscard]] HingeTrig coupledAngle(const Eigen::Ref<const Matrix3Xd>& p, int j, const Vector3d& q) const;
  void updateRelative();
  void restartPose(Eigen::Ref<Matrix3Xd> p, double fraction);
  [[nodiscard]] double error(const Eigen::Ref<const Matrix3Xd>& p) const;

  /// A coupled hinge pair (j, c), θ_c = k θ_j, in C_j's coordinates: the hinge axes and lengths,
  /// and where joint c lies relative to joint j's parent on a coarse grid of θ_j over its range
  /// (fixed at construction). coupledAngle() searches it, then refines by Newton's method.
  struct CoupledPair {
    Vector3d h, yj, zc, yc;  // hinge axis of j, h × z, child's zero direction and its h_c × z
    double k = 0.0, lj = 0.0, lc = 0.0;
    std::array<double, 7> t{};
    std::array<Vector3d, 7> point{};
    [[nodiscard]] Vector3d rotate(const Vector3d& v, double ct, double st) const;
    [[nodiscard]] Vector3d position(double t) const;
    /// f, f', f'' at `trig`.t (whose sines and cosines it fills in).
    void cost(HingeTrig& trig, const Vector3d& target, double& f, double& d1, double& d2) const;
  };

  /// A ball joint's twist range as directions in the xy plane of its constraint frame.
  struct TwistLimit {
    bool limited = false;
    std::array<double, 2> mid{}, lo{}, hi{};  // (cos, sin) of the middle and of the bounds
    double cos_half = -1.0;                   // cos of the half-width
  };

  Skeleton skeleton_;
  std::vector<TwistLimit> twist_;                    // per joint
  std::vector<std::array<double, 4>> hinge_bounds_;  // per joint: cos, sin of min_angle and max_angle
  HingeTrig coupled_{};  // the last coupled pair placed (its child reuses k·t) and its parent joint
  int coupled_joint_ = -1;
  std::vector<CoupledPair> pair_;  // per joint with a coupled child (indexed by that joint)
  std::vector<Matrix3d> frame_;
  std::vector<Matrix3d> rel_;     // C_j^T F_j of the last pose (carried by untargeted subtrees)
  std::vector<double> angle_;     // hinge angles
  std::vector<Vector3d> target_;  // per joint
  std::vector<std::uint8_t> has_target_, active_;
  std::vector<std::uint8_t> saved_active_;  // restartPose: active_ while every bone is carried
  std::vector<std::uint8_t> plain_offset_;  // R_offset is exactly the identity: C_j = F_parent
  std::vector<Vector3d> sum_;               // backward pass: sum of the children's proposals
  std::vector<int> count_;
  std::vector<double> reach_;       // path length from the root
  std::vector<int> coupled_child_;  // the child coupled to joint j's hinge, or -1
  Matrix3Xd best_p_;                // the closest pose a restart left (positions, frames, angles)
  std::vector<Matrix3d> best_frame_;
  std::vector<double> best_angle_;
  bool frames_valid_ = false;
};

}  // namespace kinetrack::fabrik
