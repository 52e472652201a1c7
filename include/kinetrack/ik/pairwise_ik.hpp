#pragma once
// Pair-wise instantaneous IK — the second per-frame optimisation baseline of DYN §5.1 (Fig. 6;
// SPEC §3 "Pair-wise").
//
// The model is split into subsystems, each spanning one pair of adjacent orientation targets: the
// joints on the kinematic path from a target frame (the *parent*, whose orientation is taken as
// measured) to the next target frame below it (the *child*, whose orientation is to be reached),
// e.g. Pelvis–L5, upper arm–forearm, thigh–shank. Every subsystem is a small fixed-base model
// (root = the parent target's link, its joints, the child's target frames) solved each frame by
// its own InstantaneousIk (projected Levenberg–Marquardt with the QP for the limits),
// warm-started from the previous frame, independently of the others and in parallel on a
// persistent thread pool. The whole configuration is then assembled: the base pose from the root
// segment's measured pose (the orientation target on the root link and the position target), each
// subsystem's joints from its solution, every other joint unchanged.
//
// Partition (rebuilt at the first solve after the set of active targets changes):
//  - active targets: orientation targets that are enabled with a weight > 0;
//  - a link carrying an active target is a *target link*; the root link always counts as one;
//  - for each target link L ≠ root, the joints from L up to the nearest target link above it form
//    L's path; paths that share a joint (a branch with no target at the branch point) are merged
//    into one subsystem with several child links; all active targets on L join its subsystem;
//  - a subsystem's parent orientation R_WA (A = the link its paths start from) is the measured
//    orientation of the first active target on A (lowest id; its frame placement removed), or,
//    while that target has never been set, A's orientation at the state before the solve. On
//    the root link of a floating base R_WA is the base orientation of the assembled
//    configuration, which comes from that target (held at the previous value while there is
//    none); on a fixed base it is the constant base orientation;
//  - joints on no path (below the last target of a chain, e.g. toes without a target) keep their
//    values.
// With every segment of a model targeted (the paper's set-up) every subsystem is exactly one pair.
//
// Linear rows (A s ≤ b, DYN Eq. 11; e.g. the iCub shoulder couplings): a row whose joints all lie
// in one subsystem is enforced by that subsystem. A row spanning several subsystems (or a
// subsystem and joints on no path) cannot be enforced pair-wise; it is left out and reported
// (unenforcedRows(), PairwiseSolveResult::unenforced_row_violation). With
// merge_coupled_subsystems the subsystems such a row couples are merged into one when the result
// still hangs from a single parent link (then the row is enforced, at the price of a larger
// subsystem); rows that cannot be merged that way stay unenforced.
//
// Accuracy: each subsystem reaches its child targets relative to its parent's *measured*
// orientation to options.solver.orientation_tolerance. In the assembled configuration a child's
// world orientation carries the residuals of every subsystem above it, so world errors of
// reachable targets are at most (depth × tolerance) and in practice far smaller (the Gauss–Newton
// steps converge quadratically); unreachable pairs (too few DoF, limits) pass their error on
// down the chain, which is the method's known weakness against whole-body optimisation.
#include <memory>
#include <string_view>
#include <vector>

#include "kinetrack/ik/instantaneous_ik.hpp"  // InstantaneousIkOptions, SolveResult, ik::TaskSet

namespace kinetrack {

struct PairwiseIkOptions {
  /// Threads that solve the subsystems, the calling thread included. 0 (default) = one per
  /// hardware thread (std::thread::hardware_concurrency()); 1 = every subsystem inline on the
  /// calling thread, no pool; n > 1 = n − 1 worker threads kept alive for the solver's lifetime.
  int threads = 0;
  /// After finishing a frame, a worker keeps polling for the next one this long (µs) before it
  /// blocks on a condition variable: waking a blocked thread costs tens of µs, more than a frame
  /// of work. 0 blocks at once (no busy CPU between frames).
  double spin_microseconds = 200.0;
  /// Each subsystem's solver: orientation_tolerance (rad, per pair, see the accuracy note above),
  /// max_iterations, damping, orientation residual, QP options. backend must be Native (throws
  /// InvalidArgument otherwise); position_tolerance is unused (subsystems hold orientation
  /// targets only).
  InstantaneousIkOptions solver;
  /// Merge subsystems coupled by a linear row so that the row is enforced (see above). Off
  /// reproduces the paper's one-pair subsystems.
  bool merge_coupled_subsystems = false;
};

/// Outcome of one pair-wise solve (ik::Result: status = the worst subsystem status, iterations =
/// the largest iteration count of a subsystem (LM QP solves), MNTE, limit violation, and
/// row_violation = the largest violation of the rows a subsystem enforces and of the rows that
/// involve no solved joint). Numerical outcomes are reported here, never thrown.
struct PairwiseSolveResult : ik::Result {
  int subsystems = 0;        ///< subsystems solved
  int not_converged = 0;     ///< subsystems whose status is not Converged
  int total_iterations = 0;  ///< iterations summed over the subsystems
  /// Largest angle (rad) between a child target and its frame, the parent frame placed at its
  /// measured orientation: what options.solver.orientation_tolerance bounds.
  double max_pair_orientation_error = 0.0;
  /// At the assembled configuration, world frame, over every active target with a value:
  double max_orientation_error = 0.0;     ///< rad
  double max_position_error = 0.0;        ///< m (root position targets)
  double unenforced_row_violation = 0.0;  ///< largest violation of the rows in unenforcedRows()
  double wall_time = 0.0;                 ///< s, the whole solve() (partition excluded)
};

/// One subsystem of the partition (for inspection, tests and reports).
struct PairwiseSubsystem {
  LinkId parent_link;               ///< A: the link its paths start from (root link or a target link)
  TargetId parent_target;           ///< the target giving A's orientation (invalid: the base)
  std::vector<LinkId> child_links;  ///< target links reached (one for a pair)
  std::vector<TargetId> targets;    ///< the active targets it reaches
  std::vector<JointId> joints;      ///< its joints, model order
  std::vector<int> rows;            ///< model rows it enforces (indices into linearConstraints())
};

/// Pair-wise instantaneous IK for one model. API parallel to InstantaneousIk. Built once; targets
/// may be added, removed, enabled and re-weighted between frames (a change of the active set
/// re-partitions, which allocates, at the next solve); solve() otherwise does not allocate with
/// threads = 1 (nor on the calling thread with more).
class PairwiseIk {
 public:
  /// Throws InvalidArgument for invalid options (threads < 0, negative spin time, invalid solver
  /// options, a backend other than Native).
  explicit PairwiseIk(const Model& model, PairwiseIkOptions options = {});
  explicit PairwiseIk(std::shared_ptr<const Model> model, PairwiseIkOptions options = {});
  ~PairwiseIk();
  PairwiseIk(PairwiseIk&&) noexcept;
  PairwiseIk& operator=(PairwiseIk&&) noexcept;

  [[nodiscard]] const Model& model() const;
  [[nodiscard]] const std::shared_ptr<const Model>& sharedModel() const;
  [[nodiscard]] const PairwiseIkOptions& options() const;
  /// Changing options between solves is allowed (a new thread count restarts the pool; new
  /// solver options re-partition). Throws InvalidArgument like the constructor.
  void setOptions(const PairwiseIkOptions& options);
  /// Threads actually used (options().threads resolved).
  [[nodiscard]] int threads() const;

  // --- targets ---------------------------------------------------------------------------------
  /// The targets (ik/tasks.hpp): orientation targets with weight w (the K_r² of SPEC §3; relative
  /// weight of targets within one subsystem) and position targets on frames of the root link
  /// (the first active one places the base: p_B = p_t − R_B·p_BF). Adding a pose target or a
  /// position target on another link throws InvalidArgument (pair-wise subsystems hold
  /// orientations only). Gains and velocities are not used. A change of the active set (add,
  /// remove, enable, a weight to or from 0) re-partitions at the next solve.
  [[nodiscard]] ik::TaskSet& tasks();
  [[nodiscard]] const ik::TaskSet& tasks() const;

  // --- state -----------------------------------------------------------------------------------
  /// Sets q, the warm start of the next solve (and the values of joints on no path). Throws
  /// InvalidArgument on a wrong size or a non-finite value. Resets the subsystems' warm-start
  /// memory.
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const;
  /// Kinematics (every frame) at the current state.
  [[nodiscard]] const Data& data() const;

  /// Solves the current frame: base from the root targets, every subsystem from its previous
  /// solution (in parallel), assembly; the state becomes the assembled configuration.
  PairwiseSolveResult solve();

  /// The current partition (re-partitions first if the active targets changed).
  const std::vector<PairwiseSubsystem>& subsystems();
  /// Model rows no subsystem enforces under the current partition (indices into
  /// model().linearConstraints()).
  const std::vector<int>& unenforcedRows();
  /// Per-subsystem outcome of the last solve, in subsystems() order.
  [[nodiscard]] const std::vector<SolveResult>& subsystemResults() const;
  /// The sub-model of subsystem i (fixed base at its parent link; joints and frames keep their
  /// names). Throws InvalidArgument for an index out of range.
  [[nodiscard]] const Model& subsystemModel(int i) const;

  /// MNTE of the orientation targets at the current state and targets.
  [[nodiscard]] double mnte() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack
