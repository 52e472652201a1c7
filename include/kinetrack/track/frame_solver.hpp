#pragma once
// A per-frame optimiser driven by ClipTracker (SPEC §3 baselines): the whole-body
// InstantaneousIk (native or Ipopt) or the PairwiseIk, behind one interface so that the tracker,
// the pipeline and the CLI treat every method alike.
#include <memory>
#include <string>

#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"

namespace kinetrack::track {

/// Outcome of one frame's solve, common to every per-frame method.
struct FrameSolveResult {
  SolveStatus status = SolveStatus::Converged;
  int iterations = 0;            ///< whole-body: solver iterations; pair-wise: largest of a subsystem
  double mnte = 0.0;             ///< MNTE of the orientation targets at the solution
  double limit_violation = 0.0;  ///< rad or m
  /// Largest linear-row violation, rows the method cannot enforce included (pair-wise rows that
  /// span subsystems).
  double row_violation = 0.0;
};

class FrameSolver {
 public:
  virtual ~FrameSolver() = default;
  [[nodiscard]] virtual const Model& model() const = 0;
  /// A short name for reports ("wholebody", "wholebody-ipopt", "pairwise").
  [[nodiscard]] virtual std::string name() const = 0;
  /// Adds the targets of one binding (orientation and/or position on `frame`, weight w) and
  /// returns its slot for setTarget. Throws InvalidArgument for a target the method cannot hold
  /// (unknown frame; pair-wise: a position target off the root link).
  virtual int addTarget(const std::string& frame, bool orientation, bool position, double weight) = 0;
  /// Target values of a slot for the next solve (pointers may be null for a kind it lacks).
  virtual void setTarget(int slot, const Matrix3d* R, const Vector3d* p) = 0;
  virtual void setState(const Configuration& q) = 0;
  [[nodiscard]] virtual const Configuration& state() const = 0;
  /// Kinematics at state(): the placements of the target frames are current after solve().
  [[nodiscard]] virtual const Data& data() const = 0;
  /// Solves the current frame warm-started from the state. `min_iterations` > 0 lets a solve
  /// from far away (the first frame) run at least that many iterations before giving up.
  virtual FrameSolveResult solve(int min_iterations) = 0;
  /// The wrapped whole-body solver, or null.
  [[nodiscard]] virtual const InstantaneousIk* instantaneous() const { return nullptr; }
  /// The wrapped pair-wise solver, or null.
  [[nodiscard]] virtual const PairwiseIk* pairwise() const { return nullptr; }
};

/// Wraps a whole-body solver (targets are added by the tracker; the solver should have none).
std::unique_ptr<FrameSolver> makeFrameSolver(InstantaneousIk solver);
/// Wraps a pair-wise solver (likewise without targets).
std::unique_ptr<FrameSolver> makeFrameSolver(PairwiseIk solver);

}  // namespace kinetrack::track
