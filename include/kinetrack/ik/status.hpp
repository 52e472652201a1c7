#pragma once
// How an IK solve or step ended, and the result fields every solver reports (DynamicalIk::step,
// InstantaneousIk::solve, PairwiseIk::solve, track::FrameSolver::solve, ik::PinDragIk::update) and
// every per-frame driver's result derives from (track::FrameOutcome, fabrik::Result,
// hand::DigitResult and HandFrameResult, DynamicsFilterFrame, prior::SparseFrameResult and
// GpmFrameResult). Numerical outcomes are reported here, never thrown (STYLE: the third error tier).
#include <cstdint>

namespace kinetrack::ik {

/// Outcome of one solve, ordered from best to worst (a combination reports the worst).
enum class Status : std::uint8_t {
  Converged,       ///< per-frame solvers: every target within the tolerances, limits and rows hold;
                   ///< DYN: the step's QP was solved
  Stationary,      ///< a constrained minimum that misses the tolerances (targets out of reach)
  IterationLimit,  ///< the iteration cap was reached first (the state is the best iterate found)
  Infeasible,      ///< the bounds and rows admit no step (DYN's QP; the nearest point was taken)
  Failed,          ///< no step possible: non-finite data, damping overflow, a non-convex QP
};

/// "converged", "stationary", "iteration-limit", "infeasible", "failed".
const char* toString(Status s);

/// The fields every solver's result carries (each solver's result type derives from this).
struct Result {
  Status status = Status::Converged;
  /// Per-frame solvers: iterations (QP solves; pair-wise: the largest of a subsystem); DYN: QP
  /// steps taken (1 per DynamicalIk::step, sub-steps per tracked frame).
  int iterations = 0;
  /// MNTE (DYN Eq. 15) of the enabled orientation targets at the returned state (0 when none).
  double mnte = 0.0;
  double limit_violation = 0.0;  ///< largest position-limit violation at the returned state (rad or m)
  /// Largest violation at the returned state of the linear rows the method enforces (pair-wise
  /// reports rows spanning subsystems apart; track::FrameSolver includes them).
  double row_violation = 0.0;
  /// No valid data this frame (a gap: missing or non-finite input): the state was held, nothing
  /// was solved, and the other fields describe the held state (or are 0). Set by the per-frame
  /// drivers, never by a solve.
  bool gap = false;
};

/// The worse of two statuses.
constexpr Status worst(Status a, Status b) { return a < b ? b : a; }

}  // namespace kinetrack::ik
