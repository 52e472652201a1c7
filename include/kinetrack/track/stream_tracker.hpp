#pragma once
// The stream tracker: targets in, one frame at a time, a configuration out — the core that the
// clip tracker, `kinetrack track|retarget`, a live server, the Python module and the labeller
// drive. It owns a FrameSolver (any Method), keeps the previous frame's targets for the chord
// velocities, holds the state through gaps, and reports each frame's outcome. It knows nothing
// of files or clips: feed it (time, target values) as they arrive.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/ik/status.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/track/frame_solver.hpp"

namespace kinetrack::track {

/// One target of a stream: orientation and/or position of a model frame, with a weight.
struct StreamTarget {
  std::string frame;  ///< model frame name
  bool orientation = true;
  bool position = false;
  double weight = 1.0;
};

/// What happened at one frame: ik::Result (status, iterations = DYN steps or optimiser
/// iterations, MNTE after the frame, limit and row violations; gap: the frame had no valid data,
/// state held, row marked, the other fields 0) plus the tracker's fields.
struct FrameOutcome : ik::Result {
  double rmse = 0.0;        ///< angular-velocity RMSE over the frame (Eq. 16, chord velocities)
  bool non_finite = false;  ///< the solver failed (status Failed; DYN held the state)
};

/// Tracks a stream of frames. Frames must come in increasing time; the first valid frame is
/// reached from the initial state (setState). No allocation per frame.
class StreamTracker {
 public:
  /// The solver of options.method on `model` with one slot per target. Throws InvalidArgument
  /// for no targets, an unknown frame (listing the valid ones), a target with neither kind, a
  /// target the method cannot hold, or options out of range.
  StreamTracker(std::shared_ptr<const Model> model, std::vector<StreamTarget> targets,
                const TrackerOptions& options = {});
  /// With a solver built by the caller (no targets yet; this adds them).
  StreamTracker(std::unique_ptr<FrameSolver> solver, std::vector<StreamTarget> targets,
                const TrackerOptions& options = {});

  void setState(const Configuration& q) { solver_->setState(q); }
  [[nodiscard]] const Configuration& state() const { return solver_->state(); }
  [[nodiscard]] const FrameSolver& solver() const { return *solver_; }
  [[nodiscard]] const std::vector<StreamTarget>& targets() const { return targets_; }
  [[nodiscard]] int numTargets() const { return static_cast<int>(targets_.size()); }

  /// One frame at `time` (s, greater than the previous frame's): target orientations R_WT and
  /// positions (m) in the model's world, one per target in targets() order (entries of a kind a
  /// target lacks are ignored). `valid` false marks a gap: the state is held and the outcome's
  /// gap flag set. Throws InvalidArgument for a time out of order or non-finite, wrong sizes, or
  /// a target value the solver refuses (non-finite, not a rotation); a refused frame leaves the
  /// state and the previous frame as they were (only its time counts for the order).
  /// `active` (empty, or one flag per target): 0 leaves a target out of this frame
  /// (FrameTargets::active; its values are ignored, it counts in no RMSE); a target that comes back
  /// starts from this frame's value with zero chord.
  FrameOutcome track(double time, std::span<const Matrix3d> R, std::span<const Vector3d> p, bool valid = true,
                     std::span<const std::uint8_t> active = {});

 private:
  double chordRmse(double dt, bool have_previous);
  std::unique_ptr<FrameSolver> solver_;
  std::vector<StreamTarget> targets_;
  std::vector<FrameId> frames_;
  int first_frame_iterations_ = 500;
  double first_frame_interval_ = 0.01;
  FrameTargets in_;
  bool have_frame_ = false, have_valid_ = false;
  double last_time_ = 0.0, last_valid_time_ = 0.0;
  std::vector<Matrix3d> prev_model_R_;     ///< model frame orientations after the last valid frame
  std::vector<std::uint8_t> prev_active_;  ///< FrameTargets::active of the last valid frame
};

/// Figures of a tracking run (summary.json of `kinetrack track`).
struct TrackSummary {
  int frames = 0, gaps = 0, frames_after_transient = 0;
  double transient_s = 2.0;
  double mnte_median = 0, mnte_p95 = 0, mnte_max = 0;
  double rmse_median = 0;
  bool has_truth = false;
  double joint_rms_deg = 0;  ///< vs ground truth (from-clip), after the transient
  double limit_violation_max_rad = 0;
  double row_violation_max = 0;                              ///< linear rows (e.g. the iCub's coupled shoulder)
  double step_us_p50 = 0, step_us_p99 = 0, step_us_max = 0;  ///< wall time per frame, µs
  double substeps_mean = 0;                                  ///< iterations per frame (DYN: steps)
  int non_finite = 0;
  /// Frames (gaps excluded) by ik::Status: converged, stationary (a constrained minimum short of
  /// the tolerance: targets out of reach), iteration limit, infeasible, failed. DYN frames
  /// count as converged when every step's QP was solved.
  int converged = 0, stationary = 0, iteration_limit = 0, infeasible = 0, failed = 0;
  [[nodiscard]] int solvedFrames() const { return converged + stationary + iteration_limit + infeasible + failed; }
};

/// Per-frame records collected by the caller; summarize() turns them into a TrackSummary.
struct TrackRecord {
  std::vector<double> times, mnte, rmse, limit, rows, step_us, joint_err2;  ///< joint_err2: Σ err², per frame
  std::vector<int> substeps, joint_count;
  std::vector<std::uint8_t> gap, non_finite;
  std::vector<std::int8_t> status;  ///< ik::Status of the frame, −1 for gaps
  void reserve(std::size_t n);
  void add(double time, const FrameOutcome& o, double step_us, double err2 = 0.0, int count = 0);
};
TrackSummary summarize(const TrackRecord& record, double transient_s, bool has_truth);

/// Start (s, relative to times.front()) of the statistics window of a run: frames earlier than
/// this are the transient. A run shorter than twice `transient_s` keeps its second half.
double transientCut(const std::vector<double>& times, double transient_s);

}  // namespace kinetrack::track
