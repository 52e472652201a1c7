#pragma once
// The learned prior inside DYN (docs/gpm.md, "The prior inside DYN"): before each DYN step the
// prior's gradient at the current state becomes the velocity reference of a posture task in the
// solver's TaskSet (ik::PostureTask: weights μ, no pose values, so v*_i = v_i):
//   v_i = −clamp(k ∇H_i, ±max_step) / Δt,   μ_i = weight,
// so the QP minimises Σ_t ‖J_tν − v*_t‖²_W + Σ_i μ_i (ν_i − v_i)². With μ small against the
// target weights the targets keep their solution (the posture term only decides the freedom they
// leave, like the gradient projection's null space), and the joint limits stay hard constraints
// of the QP, which the gradient projection can only clamp after the fact.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/prior/human_prior.hpp"

namespace kinetrack::prior {

struct PriorPostureOptions {
  double gain = 0.02;       ///< k, as SparseIkOptions::gain
  double max_step = 0.002;  ///< cap of k|∇H_i| per step (rad, 0.11°; docs/gpm.md sweep)
  double weight = 1e-3;     ///< μ, against target weights of about 1
};

/// Feeds a HumanPrior's gradient to a DynamicalIk through a posture task it adds to the solver's
/// TaskSet (weights μ, velocity reference set by update(); removed again by the destructor).
/// Holds references: the prior and the solver must outlive it. Never allocates in update().
class PriorPosture {
 public:
  /// Adds the posture task (weights options.weight, zero velocity until update()). Throws
  /// InvalidArgument when the prior does not match the solver's model (checkPriorMatchesModel)
  /// or for a negative / non-finite option (nothing is added then).
  PriorPosture(DynamicalIk& ik, const HumanPrior& prior, const PriorPostureOptions& options = {});
  /// Removes the posture task from the solver's TaskSet.
  ~PriorPosture();
  PriorPosture(const PriorPosture&) = delete;  // one owner per task
  PriorPosture& operator=(const PriorPosture&) = delete;

  /// Sets the task's velocity reference from the prior's gradient at the solver's current state
  /// (call before ik.step(dt)); returns the number of prior groups in an empty cell (no
  /// gradient). A non-finite state gives a zero reference.
  int update(double dt);
  /// Turns the term off (the task disabled) or back on.
  void enable(bool on);
  /// The posture task in ik.tasks() (read it, e.g. its velocities; do not remove it).
  [[nodiscard]] ik::PostureTaskId task() const { return task_; }

 private:
  DynamicalIk& ik_;
  const HumanPrior& prior_;
  PriorPostureOptions options_;
  FrameId head_, right_, left_;
  ik::PostureTaskId task_;
  VectorXd gradient_, velocity_;
};

/// DYN (per-step gain 1, the tracker's options) with pose targets on a few frames and, when a
/// prior is given, the prior as its posture term: the sparse-input tracker of `kinetrack track
/// --targets` (`--sparse-solver dyn`), the study's "DYN"/"DYN+GP" rows and the benchmark.
/// Never allocates in solve().
class SparseDynamicalIk {
 public:
  /// `targets`: model frames that get pose targets (weights 1). `prior` may be null; when given it
  /// must match the model and outlive the solver. Throws InvalidArgument.
  SparseDynamicalIk(std::shared_ptr<const Model> model, const std::vector<std::string>& targets,
                    const HumanPrior* prior, const PriorPostureOptions& posture = {});
  // Its PriorPosture refers to its own solver: neither copied nor moved.
  SparseDynamicalIk(const SparseDynamicalIk&) = delete;
  SparseDynamicalIk& operator=(const SparseDynamicalIk&) = delete;
  void setState(const Configuration& q) { ik_.setState(q); }
  [[nodiscard]] const Configuration& state() const { return ik_.state(); }
  [[nodiscard]] const DynamicalIk& solver() const { return ik_; }
  /// One DYN step of `dt` toward `targets` (world poses, one per target frame, in constructor
  /// order): position_error is the largest target position error after the step, fallbacks the
  /// prior groups in an empty cell. A target that is not finite or whose R is not a rotation
  /// (ik::isRotation) leaves the state unchanged (errors NaN); throws InvalidArgument for a wrong number of targets or
  /// dt not finite and > 0.
  SparseFrameResult solve(std::span<const Transform> targets, double dt);

 private:
  std::shared_ptr<const Model> model_;
  DynamicalIk ik_;
  std::vector<TargetId> ids_;
  std::vector<FrameId> frames_;
  std::unique_ptr<PriorPosture> posture_;
};

}  // namespace kinetrack::prior
