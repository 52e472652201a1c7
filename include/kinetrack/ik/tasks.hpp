#pragma once
// Tasks: what an IK solver is asked to reach. One TaskSet per solver instance holds every task
// (frame position, orientation and pose targets today; marker and posture tasks to come), with
// names resolved to ids once, weights, gains, the current target values and their velocities.
// Every solver (DynamicalIk, InstantaneousIk, PairwiseIk, and the methods built on them) reads
// the same TaskSet, so adding, removing, enabling, re-weighting and setting a target is one API
// (solver.tasks().…) whatever the method — mink's task / limit / solve split (STYLE.md).
//
// Conventions (docs/conventions.md): target positions p_WT (m) and orientations R_WT in the
// world frame; velocities world-frame (ṗ in m/s, ω in rad/s). Weights are the W of DYN Eq. 10
// (per component), the w = K_r² of the per-frame objective (SPEC §3). Gains K (1/s; or the
// per-step κ = K·Δt under DynamicalIkOptions::gain_mode = PerStep) are read by DYN only: the
// per-frame solvers reach each frame's targets by iterating to convergence.
#include <Eigen/LU>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/target.hpp"
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

/// The tasks of one solver. Ids index tasks() and are never reused. Adding a task allocates;
/// setting values, gains, weights and enabling do not.
class TaskSet {
 public:
  /// A rule a solver imposes on its tasks (e.g. pair-wise: position targets only on the root
  /// link); called on every add with the new task, throws InvalidArgument to refuse it.
  using Rule = std::function<void(const Model&, const FrameTask&, std::string_view frame)>;

  /// Tasks on frames of `model` (shared, immutable). `owner` names the solver in error messages.
  explicit TaskSet(std::shared_ptr<const Model> model, std::string owner = "IK", Rule rule = {});

  [[nodiscard]] const Model& model() const { return *model_; }

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
};

}  // namespace kinetrack::ik
