#pragma once
// Tasks: what an IK solver is asked to reach. One TaskSet per solver instance holds every task,
// with names resolved to ids once, weights, gains and the current values:
//  - frame tasks (FrameTask, TargetId): position, orientation and pose targets on model frames,
//    with their velocities — read by DynamicalIk, InstantaneousIk, PairwiseIk and the methods
//    built on them;
//  - marker tasks (MarkerTask, MarkerTaskId): a point on a model frame and its measured world
//    position, which may be missing in a frame; coordinate tasks (CoordinateTask): a joint pulled
//    towards a value; coupler tasks (CouplerTask): s_dep = f(s_ind), OpenSim's
//    CoordinateCouplerConstraint, exact or as a penalty — read by MarkerIk;
//  - posture tasks (PostureTask): every joint pulled towards a pose and/or a joint velocity
//    reference, with per-joint weights — read by MarkerIk (the pose) and DynamicalIk (both, as a
//    velocity reference: see PostureTask).
// Each kind has its own id type and list (all(), markers(), coordinates(), couplers(),
// postures()); a solver's TaskSet accepts the kinds the solver reads (TaskKinds) and refuses the
// others, so no task is silently ignored. Adding, removing, enabling, re-weighting and setting a
// value is one API (solver.tasks().…) whatever the method — mink's task / limit / solve split
// (STYLE.md).
//
// Conventions (docs/conventions.md): target positions p_WT (m) and orientations R_WT in the
// world frame; velocities world-frame (ṗ in m/s, ω in rad/s). Weights are the W of DYN Eq. 10
// (per component), the w = K_r² of the per-frame objective (SPEC §3). Gains K (1/s; or the
// per-step κ = K·Δt under DynamicalIkOptions::gain_mode = PerStep) are read by DYN only: the
// per-frame solvers reach each frame's targets by iterating to convergence.
#include <Eigen/LU>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/target.hpp"
#include "kinetrack/model/joint_function.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::ik {

/// Weight and gain of one component (position or orientation) of a task.
struct TaskGain {
  double weight = 1.0;  ///< W ≥ 0 (0 leaves the component out)
  double gain = 10.0;   ///< K ≥ 0 in 1/s (or κ, see above); DYN only
};

/// One target on a model frame, as stored by a TaskSet (read-only for solvers).
struct FrameTask {
  FrameId frame;
  LinkId link;  ///< the link carrying `frame`
  TargetType type = TargetType::Pose;
  double position_weight = 0.0, orientation_weight = 0.0;  ///< 0 for a component the type lacks
  double position_gain = 0.0, orientation_gain = 0.0;
  bool alive = true;  ///< false once removed (ids are never reused)
  bool enabled = true;
  bool has_position = false, has_orientation = false;           ///< a value was set
  Vector3d p = Vector3d::Zero();                                ///< p_WT (m)
  Matrix3d R = Matrix3d::Identity();                            ///< R_WT
  bool velocity_given = false, angular_velocity_given = false;  ///< given with the last value
  Vector3d velocity = Vector3d::Zero();                         ///< ṗ_WT (m/s), zero unless given
  Vector3d angular_velocity = Vector3d::Zero();                 ///< ω_WT (rad/s), zero unless given

  [[nodiscard]] bool hasPosition() const { return type != TargetType::Orientation; }
  [[nodiscard]] bool hasOrientation() const { return type != TargetType::Position; }
  /// Live, enabled, of a type with this component, and a value set.
  [[nodiscard]] bool positionSet() const { return alive && enabled && hasPosition() && has_position; }
  [[nodiscard]] bool orientationSet() const { return alive && enabled && hasOrientation() && has_orientation; }
  /// The weight of a single-component task (position weight of a position target, else the
  /// orientation weight).
  [[nodiscard]] double weight() const { return type == TargetType::Position ? position_weight : orientation_weight; }
};

/// True when R is a finite rotation matrix (‖RᵀR − I‖∞ ≤ 1e-6, det ≥ 0).
inline bool isRotation(const Matrix3d& R) {
  return R.allFinite() && (R.transpose() * R - Matrix3d::Identity()).cwiseAbs().maxCoeff() <= 1e-6 &&
         R.determinant() >= 0.0;
}

/// Throws InvalidArgument unless isRotation(R); `what` and `where` prefix the message. Does not
/// allocate unless it throws.
void checkRotation(const Matrix3d& R, std::string_view what, std::string_view where = {});

// --- marker, coordinate, coupler and posture tasks ------------------------------------------------
// Each kind has its own ids, indexing its list (TaskSet::markers(), …); ids are never reused.
using MarkerTaskId = Id<struct MarkerTaskTag>;
using CoordinateTaskId = Id<struct CoordinateTaskTag>;
using CouplerTaskId = Id<struct CouplerTaskTag>;
using PostureTaskId = Id<struct PostureTaskTag>;

/// A marker: a point fixed on a model frame (the marker is a frame of the model, e.g.
/// io::withMarkers), with weight w in Σ w ‖m(q) − m̂‖² and its measured world position m̂ (m).
/// A measurement with a non-finite component is a marker missing in that frame: it drops out of
/// that frame's sum (not an error).
struct MarkerTask {
  FrameId frame;
  LinkId link;  ///< the link carrying `frame`
  double weight = 1.0;
  bool alive = true;  ///< false once removed (ids are never reused)
  bool enabled = true;
  Vector3d measured = Vector3d::Constant(std::numeric_limits<double>::quiet_NaN());  ///< m̂ (m)

  [[nodiscard]] bool present() const { return measured.allFinite(); }
  /// Counts in this frame's sum: live, enabled, a positive weight and present.
  [[nodiscard]] bool active() const { return weight > 0.0 && measured.allFinite() && alive && enabled; }
};

/// A joint pulled towards a value: w (s − ŝ)². A non-finite value switches it off for the frame.
struct CoordinateTask {
  JointId joint;
  double weight = 1.0;
  bool alive = true;
  bool enabled = true;
  double value = std::numeric_limits<double>::quiet_NaN();  ///< ŝ (rad or m)

  [[nodiscard]] bool active() const { return weight > 0.0 && std::isfinite(value) && alive && enabled; }
};

/// OpenSim's CoordinateCouplerConstraint: s_dependent = f(s_independent). Weight +infinity
/// enforces it exactly (an equality of every step; OpenSim's default constraint_weight), a finite
/// weight w > 0 adds the penalty w (s_dep − f(s_ind))², 0 leaves it out.
struct CouplerTask {
  std::string name;
  JointId dependent, independent;
  ScalarFunction function;
  double weight = std::numeric_limits<double>::infinity();
  bool alive = true;
  bool enabled = true;

  [[nodiscard]] bool active() const { return weight > 0.0 && alive && enabled; }
  [[nodiscard]] bool exact() const { return std::isinf(weight); }
};

/// Every joint pulled towards a pose ŝ and/or given a velocity reference v̂, with per-joint weights
/// w_j ≥ 0 (0 leaves a joint out). What each solver makes of it:
///  - MarkerIk (per frame, iterated to convergence): Σ_j w_j (s_j − ŝ_j)² over the joints with a
///    finite value; the velocities and the gain are not read (as the frame tasks' velocities and
///    gains are read by DYN only).
///  - DynamicalIk (one velocity QP per step): a secondary objective ½ Σ_j w_j (ν_j − v*_j)² over
///    the joints (H += diag w, g −= w∘v*, added after the damping; the base has no posture term),
///    with the joint velocity reference of Eq. 9 per joint, K the gain (1/s, or κ = K·Δt under
///    GainMode::PerStep) and r_j = ŝ_j − s_j at q_{k−1}:
///      value finite, velocity given:  v*_j = v̂_j + K r_j   ((1 − KΔt) v̂_j + K r_j under
///                                     Discretization::Consistent, as the frame tasks)
///      value finite, no velocity:     v*_j = K r_j         (a pull towards the pose)
///      no finite value, velocity given: v*_j = v̂_j         (a pure velocity reference, e.g. a
///                                     learned prior's gradient: prior::PriorPosture)
///      neither:                       the joint is out for the step.
///    The given velocity is used as is (no finite differences of the values, no mean over the
///    step). With w small against the frame targets' weights the term decides only the freedom
///    the targets leave (docs/gpm.md, "The prior inside DYN").
struct PostureTask {
  VectorXd weights;             ///< numJoints
  VectorXd values;              ///< numJoints, ŝ (rad or m), NaN until set
  VectorXd velocities;          ///< numJoints, v̂ (rad/s or m/s), zero unless given
  double gain = 10.0;           ///< K ≥ 0 in 1/s (or κ); DYN only, for the pull towards the values
  bool velocity_given = false;  ///< velocities were set (setVelocities) and not cleared since
  bool any_value = false;       ///< some value is finite (setValues): otherwise a pure velocity reference
  bool alive = true;
  bool enabled = true;

  [[nodiscard]] bool active() const { return alive && enabled; }
};

/// The kinds of task a TaskSet accepts: those its solver reads (adding another kind throws
/// InvalidArgument naming the solver). The default, frame tasks only, is the frame-target
/// solvers' (InstantaneousIk, PairwiseIk); DynamicalIk reads frame and posture tasks, MarkerIk
/// every kind, of frame tasks orientation targets only.
struct TaskKinds {
  bool frame = true;
  bool marker = false;
  bool coordinate = false;
  bool coupler = false;
  bool posture = false;
  static constexpr TaskKinds all() { return {true, true, true, true, true}; }
};

/// The tasks of one solver. Ids index tasks() and are never reused. Adding a task allocates;
/// setting values, gains, weights and enabling do not.
class TaskSet {
 public:
  /// A rule a solver imposes on its tasks (e.g. pair-wise: position targets only on the root
  /// link); called on every add with the new task, throws InvalidArgument to refuse it.
  using Rule = std::function<void(const Model&, const FrameTask&, std::string_view frame)>;

  /// Tasks on frames of `model` (shared, immutable). `owner` names the solver in error messages;
  /// `kinds` are the kinds of task the solver reads (frame tasks only by default).
  explicit TaskSet(std::shared_ptr<const Model> model, std::string owner = "IK", Rule rule = {}, TaskKinds kinds = {});

  [[nodiscard]] const Model& model() const { return *model_; }
  [[nodiscard]] const TaskKinds& kinds() const { return kinds_; }

  // --- tasks -----------------------------------------------------------------------------------
  /// Adds a target on a model frame. Throws InvalidArgument for an unknown frame (listing the
  /// frames), a negative or non-finite weight or gain, or a task the solver's rule refuses.
  TargetId addPosition(std::string_view frame, TaskGain position = {});
  TargetId addOrientation(std::string_view frame, TaskGain orientation = {});
  TargetId addPose(std::string_view frame, TaskGain position = {}, TaskGain orientation = {});
  /// Removes a task (its id stays invalid). Throws InvalidArgument for an invalid id.
  void remove(TargetId t);
  void setEnabled(TargetId t, bool enabled);
  /// Weights of the position and orientation components (a component the type lacks stays 0).
  void setWeights(TargetId t, double position_weight, double orientation_weight);
  /// Both components' weight (single-component tasks: their weight).
  void setWeight(TargetId t, double weight) { setWeights(t, weight, weight); }
  void setGains(TargetId t, double position_gain, double orientation_gain);

  // --- values (every frame) ----------------------------------------------------------------------
  /// World target position (m) of a position or pose task, optionally with its velocity (m/s).
  /// Throws InvalidArgument for a non-finite value or an orientation-only task.
  void setPosition(TargetId t, const Vector3d& p) { setPosition(t, p, Vector3d::Zero(), false); }
  void setPosition(TargetId t, const Vector3d& p, const Vector3d& velocity) { setPosition(t, p, velocity, true); }
  /// World target orientation R_WT of an orientation or pose task, optionally with its angular
  /// velocity ω (rad/s, world frame). Throws InvalidArgument for a non-finite value, a matrix
  /// that is not a rotation (‖RᵀR − I‖∞ > 1e-6 or det < 0) or a position-only task.
  void setOrientation(TargetId t, const Matrix3d& R) { setOrientation(t, R, Vector3d::Zero(), false); }
  void setOrientation(TargetId t, const Matrix3d& R, const Vector3d& omega) { setOrientation(t, R, omega, true); }

  // --- reading -----------------------------------------------------------------------------------
  [[nodiscard]] int size() const;  ///< live (not removed) tasks
  /// Throws InvalidArgument for an invalid or removed id.
  [[nodiscard]] const FrameTask& operator[](TargetId t) const;
  [[nodiscard]] TargetType type(TargetId t) const { return (*this)[t].type; }
  [[nodiscard]] FrameId frame(TargetId t) const { return (*this)[t].frame; }
  /// Every task ever added, indexed by id (removed ones have alive = false).
  [[nodiscard]] const std::vector<FrameTask>& all() const { return tasks_; }
  /// Changes whenever the set of active tasks may have changed (add, remove, enable, a weight
  /// becoming or ceasing to be zero): solvers that partition by task (pair-wise) rebuild then.
  [[nodiscard]] std::uint64_t structureRevision() const { return structure_revision_; }
  /// Changes whenever a weight or gain changes.
  [[nodiscard]] std::uint64_t weightRevision() const { return weight_revision_; }
  // Both revisions count every kind of task: adding, removing and enabling any task, and a
  // weight becoming or ceasing to be zero (or, for a coupler, infinite) change the structure.

  // --- marker tasks --------------------------------------------------------------------------------
  /// A marker on model frame `frame` with weight ≥ 0. Throws InvalidArgument for an unknown frame
  /// (listing the frames), a negative or non-finite weight, or a solver that reads no markers.
  MarkerTaskId addMarker(std::string_view frame, double weight = 1.0);
  void remove(MarkerTaskId m);
  void setEnabled(MarkerTaskId m, bool enabled);
  void setWeight(MarkerTaskId m, double weight);
  /// The measured world position (m) of this frame; a non-finite component marks the marker
  /// missing (not an error). Does not allocate.
  void setMeasurement(MarkerTaskId m, const Vector3d& p) { markerAt(m).measured = p; }
  /// Marks the marker missing in this frame.
  void setMissing(MarkerTaskId m) { markerAt(m).measured.setConstant(std::numeric_limits<double>::quiet_NaN()); }
  /// One measurement per marker task ever added, in id order (a removed task's is ignored).
  /// Throws InvalidArgument on a wrong size; does not allocate otherwise.
  void setMeasurements(std::span<const Vector3d> p);
  /// Throws InvalidArgument for an invalid or removed id.
  [[nodiscard]] const MarkerTask& operator[](MarkerTaskId m) const;
  /// Every marker task ever added, indexed by id (removed ones have alive = false).
  [[nodiscard]] const std::vector<MarkerTask>& markers() const { return markers_; }

  // --- coordinate tasks ----------------------------------------------------------------------------
  /// A task pulling joint `joint` towards the value set per frame (off until one is set). Throws
  /// InvalidArgument for an unknown joint (listing the joints) or a negative / non-finite weight.
  CoordinateTaskId addCoordinate(std::string_view joint, double weight = 1.0);
  void remove(CoordinateTaskId c);
  void setEnabled(CoordinateTaskId c, bool enabled);
  void setWeight(CoordinateTaskId c, double weight);
  /// This frame's value (rad or m); non-finite switches the task off for the frame. Does not
  /// allocate.
  void setValue(CoordinateTaskId c, double value) { coordinateAt(c).value = value; }
  /// One value per coordinate task ever added, in id order, or none: every task off for the frame.
  /// Throws InvalidArgument on another size; does not allocate otherwise.
  void setCoordinateValues(std::span<const double> values);
  [[nodiscard]] const CoordinateTask& operator[](CoordinateTaskId c) const;
  [[nodiscard]] const std::vector<CoordinateTask>& coordinates() const { return coordinates_; }

  // --- coupler tasks -------------------------------------------------------------------------------
  /// s_dependent = f(s_independent) with weight +infinity (exact, the default), w > 0 (penalty) or
  /// 0 (off). `name` (OpenSim's constraint name) appears in messages. Throws InvalidArgument for an
  /// unknown joint (listing the joints), equal joints, or a NaN or negative weight.
  CouplerTaskId addCoupler(std::string name, std::string_view dependent, std::string_view independent, ScalarFunction f,
                           double weight = std::numeric_limits<double>::infinity());
  void remove(CouplerTaskId k);
  void setEnabled(CouplerTaskId k, bool enabled);
  void setWeight(CouplerTaskId k, double weight);
  [[nodiscard]] const CouplerTask& operator[](CouplerTaskId k) const;
  [[nodiscard]] const std::vector<CouplerTask>& couplers() const { return couplers_; }

  // --- posture tasks -------------------------------------------------------------------------------
  /// Every joint pulled towards the pose (and/or velocity, DYN) set per frame (off until set),
  /// with per-joint weights (numJoints, each finite and ≥ 0) or one weight for every joint, and
  /// the gain K of DYN's pull towards the pose (1/s or κ, finite and ≥ 0; see PostureTask).
  PostureTaskId addPosture(const VectorXd& weights, double gain = 10.0);
  PostureTaskId addPosture(double weight = 1.0, double gain = 10.0);
  void remove(PostureTaskId p);
  void setEnabled(PostureTaskId p, bool enabled);
  void setWeights(PostureTaskId p, const VectorXd& weights);
  /// Throws InvalidArgument for a negative or non-finite gain.
  void setGain(PostureTaskId p, double gain);
  /// This frame's pose (numJoints values, rad or m; a non-finite one leaves its joint out of the
  /// pull). Throws InvalidArgument on a wrong size; does not allocate otherwise.
  void setValues(PostureTaskId p, const VectorXd& values);
  /// The joint velocity reference v̂ (numJoints values, rad/s or m/s; read by DYN only) until set
  /// again or cleared; the values are left as they are. Throws InvalidArgument on a wrong size or
  /// a non-finite value (the task keeps its previous velocities); does not allocate otherwise.
  void setVelocities(PostureTaskId p, const VectorXd& velocities);
  /// No velocity reference any more (v̂ = 0, velocity_given = false).
  void clearVelocities(PostureTaskId p);
  [[nodiscard]] const PostureTask& operator[](PostureTaskId p) const;
  [[nodiscard]] const std::vector<PostureTask>& postures() const { return postures_; }

 private:
  // The setters run every frame: checks inline, messages built out of line only on failure.
  FrameTask& at(TargetId t) {
    if (!t.valid() || t.value >= static_cast<int>(tasks_.size()) || !tasks_[static_cast<std::size_t>(t.value)].alive)
      refuseId(t);
    return tasks_[static_cast<std::size_t>(t.value)];
  }
  void setPosition(TargetId t, const Vector3d& p, const Vector3d& velocity, bool given) {
    FrameTask& x = at(t);
    if (!p.allFinite() || !velocity.allFinite() || !x.hasPosition()) refusePosition(x, p, velocity);
    x.p = p;
    x.velocity = velocity;
    x.has_position = true;
    x.velocity_given = given;
  }
  void setOrientation(TargetId t, const Matrix3d& R, const Vector3d& omega, bool given) {
    FrameTask& x = at(t);
    if (!omega.allFinite() || !isRotation(R) || !x.hasOrientation()) refuseOrientation(x, R, omega);
    x.R = R;
    x.angular_velocity = omega;
    x.has_orientation = true;
    x.angular_velocity_given = given;
  }
  [[noreturn]] void refuseId(TargetId t) const;
  [[noreturn]] void refusePosition(const FrameTask& x, const Vector3d& p, const Vector3d& velocity) const;
  [[noreturn]] void refuseOrientation(const FrameTask& x, const Matrix3d& R, const Vector3d& omega) const;
  TargetId add(std::string_view frame, TargetType type, TaskGain position, TaskGain orientation);
  std::shared_ptr<const Model> model_;
  std::string owner_;
  Rule rule_;
  std::vector<FrameTask> tasks_;
  std::uint64_t structure_revision_ = 0, weight_revision_ = 0;

  // The other kinds (same conventions as the frame tasks above).
  template <class T, class Tag>
  [[nodiscard]] static bool live(const std::vector<T>& v, Id<Tag> id) {
    return id.valid() && id.value < static_cast<int>(v.size()) && v[static_cast<std::size_t>(id.value)].alive;
  }
  template <class T, class Tag>
  T& kindAt(std::vector<T>& v, Id<Tag> id, const char* kind) {
    if (!live(v, id)) refuseKindId(kind, id.value);
    return v[static_cast<std::size_t>(id.value)];
  }
  MarkerTask& markerAt(MarkerTaskId m) { return kindAt(markers_, m, "marker task"); }
  CoordinateTask& coordinateAt(CoordinateTaskId c) { return kindAt(coordinates_, c, "coordinate task"); }
  CouplerTask& couplerAt(CouplerTaskId k) { return kindAt(couplers_, k, "coupler"); }
  PostureTask& postureAt(PostureTaskId p) { return kindAt(postures_, p, "posture task"); }
  [[noreturn]] void refuseKindId(const char* kind, int id) const;
  void checkKind(bool accepted, const char* kind) const;
  void retire(bool& alive);                                     ///< removes a task: alive = false
  void reweigh(double& weight, double value, bool structural);  ///< sets a weight, bumping the revisions
  void changedEnabled(bool& flag, bool enabled);
  TaskKinds kinds_;
  std::vector<MarkerTask> markers_;
  std::vector<CoordinateTask> coordinates_;
  std::vector<CouplerTask> couplers_;
  std::vector<PostureTask> postures_;
};

}  // namespace kinetrack::ik
