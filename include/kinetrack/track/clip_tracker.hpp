#pragma once
// Tracking a recorded motion clip with DYN, frame by frame: targets bound to model frames,
// adaptive sub-stepping between frames, gaps for missing data, and the run's summary.
#include <string>
#include <vector>

#include <functional>
#include <optional>

#include <memory>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/io/motion_clip.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/track/frame_solver.hpp"

namespace kinetrack::track {

/// One target: clip segment `segment` drives model frame `frame`. Orientation target
/// R = W·R_clip·offset, position target p = s·W·p_clip + t (ClipAlignment W, s, t).
struct TargetBinding {
  int segment = 0;                       ///< index into MotionClip::segment_names
  std::string frame;                     ///< model frame name
  Matrix3d offset = Matrix3d::Identity();  ///< fixed rotation, segment frame → model frame
  bool orientation = true;
  bool position = false;
  double weight = 1.0;
};

/// Rigid map (and scale) from the clip's world to the model's world.
struct ClipAlignment {
  Matrix3d rotation = Matrix3d::Identity();  ///< W
  Vector3d translation = Vector3d::Zero();   ///< t (m)
  double scale = 1.0;                        ///< s, applied to positions only
};

struct TrackerOptions {
  /// Per-step gain κ = K·Δt of every target (0 < κ < 2; 1 = dead-beat, Remark 2): the gain
  /// stays the same fraction of the error per step whatever the frame rate and sub-stepping.
  double gain = 1.0;
  /// Adaptive sub-stepping: a frame is split into n steps, the targets interpolated on SO(3)
  /// (geodesic) and linearly in position between the previous and the current frame, so that
  /// no orientation target turns by more than this angle (rad) per step. DYN's step is a
  /// linearisation; bounding the motion per step bounds its error (30 Hz clips need it).
  double max_step_rotation = 5.0 * 3.14159265358979323846 / 180.0;
  int max_substeps = 64;  ///< 1 disables sub-stepping
  /// Solver options; gain_mode is forced to PerStep. The velocity bound of joints with position
  /// limits (DynamicalIkOptions::default_velocity_limit) is raised to 200 rad/s: Euler-angle
  /// chains near gimbal lock need coordinate rates far above any segment's angular velocity,
  /// and the discrete-time guard still keeps every step inside the limits.
  DynamicalIkOptions ik = trackingSolverOptions();
  /// When set, the clip is tracked by per-frame optimisation with the solver this returns
  /// (SPEC §3 baselines: makeFrameSolver of an InstantaneousIk — native or Ipopt — or of a
  /// PairwiseIk) instead of DYN; gain and sub-stepping options are then unused.
  std::function<std::unique_ptr<FrameSolver>(const Model&)> make_frame_solver;
  static DynamicalIkOptions trackingSolverOptions() {
    DynamicalIkOptions o;
    o.default_velocity_limit = 200.0;
    return o;
  }
};

/// What happened at one frame.
struct FrameOutcome {
  bool gap = false;       ///< a bound segment had no valid data: state held, row marked
  int substeps = 0;       ///< DYN steps taken, or optimiser iterations (0 for a gap)
  double mnte = 0.0;      ///< MNTE of the orientation targets after the frame's steps
  double rmse = 0.0;      ///< angular-velocity RMSE over the frame (Eq. 16, chord velocities)
  double limit_violation = 0.0;  ///< largest joint-limit violation (rad or m)
  double row_violation = 0.0;    ///< largest linear-constraint (coupling row) violation
  bool non_finite = false;  ///< the solver produced a non-finite step (state held)
  /// Per-frame optimisers (FrameSolver): how the frame's solve ended; DYN frames and gaps leave
  /// it unset (has_status false).
  bool has_status = false;
  SolveStatus status = SolveStatus::Converged;
};

/// Tracks a clip frame by frame. Frames must be given in increasing order; the first tracked
/// frame is reached with steps from the initial state (setState). No allocation per frame.
class ClipTracker {
 public:
  /// Throws InvalidArgument for an unknown frame name (listing the valid ones), a segment index
  /// out of range, a binding with neither orientation nor position, or options out of range.
  ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment = {}, const TrackerOptions& options = {});

  /// The same clip tracked by per-frame optimisation instead of DYN (SPEC §3 baselines): at
  /// every frame `solver` (built on `model` without targets; ClipTracker adds them) minimises
  /// the weighted residual to the frame's targets, warm-started from the previous frame; no
  /// sub-stepping (FrameOutcome::substeps = solver iterations). The first frame, reached from
  /// an arbitrary initial state, gets at least `first_frame_iterations` iterations. Throws
  /// InvalidArgument for a null solver, one built on another model, or a target the method
  /// cannot hold.
  ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment, std::unique_ptr<FrameSolver> solver, int first_frame_iterations = 500);
  /// Shorthand for makeFrameSolver(std::move(solver)).
  ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment, InstantaneousIk solver, int first_frame_iterations = 500);

  void setState(const Configuration& q) {
    ik_.setState(q);
    if (frame_solver_) frame_solver_->setState(q);
  }
  [[nodiscard]] const Configuration& state() const { return frame_solver_ ? frame_solver_->state() : ik_.state(); }
  [[nodiscard]] const DynamicalIk& solver() const { return ik_; }
  /// The per-frame optimiser when built with one (else null).
  [[nodiscard]] const FrameSolver* frameSolver() const { return frame_solver_.get(); }
  /// The whole-body optimiser when built with one.
  [[nodiscard]] const InstantaneousIk* instantaneous() const { return frame_solver_ ? frame_solver_->instantaneous() : nullptr; }
  [[nodiscard]] const std::vector<TargetBinding>& bindings() const { return bindings_; }

  /// Steps to frame f (f > previous frame). A frame where a bound sample is invalid is a gap.
  FrameOutcome track(int f);

  /// Target orientation (model world) of binding b at frame f.
  [[nodiscard]] Matrix3d targetRotation(std::size_t b, int f) const;
  [[nodiscard]] Vector3d targetPosition(std::size_t b, int f) const;

 private:
  const Model& model_;
  const io::MotionClip& clip_;
  std::vector<TargetBinding> bindings_;
  ClipAlignment align_;
  TrackerOptions options_;
  DynamicalIk ik_;
  std::vector<TargetId> ids_;
  std::vector<FrameId> frames_;
  int last_valid_ = -1;  ///< last frame whose targets were reached (−1: none yet)
  int last_frame_ = -1;
  std::vector<Matrix3d> prev_model_R_;  ///< model frame orientations after last_valid_
  std::vector<Matrix3d> prev_R_, cur_R_;  ///< targets at the previous valid and the current frame
  std::vector<Vector3d> prev_p_, cur_p_, step_w_, step_dp_;
  std::vector<int> wrappable_;  ///< revolute joints with a range wider than 2π
  Configuration scratch_;
  std::unique_ptr<FrameSolver> frame_solver_;
  std::vector<int> slots_;  ///< frame_solver_ slot of each binding
  int first_frame_iterations_ = 500;
  void unwind();
  FrameOutcome trackInstantaneous(int f, double dt);
  double chordRmse(const Data& data, double dt, bool have_previous);
};

/// Figures of a tracking run (issue 4 summary.json).
struct TrackSummary {
  int frames = 0, gaps = 0, frames_after_transient = 0;
  double transient_s = 2.0;
  double mnte_median = 0, mnte_p95 = 0, mnte_max = 0;
  double rmse_median = 0;
  bool has_truth = false;
  double joint_rms_deg = 0;             ///< vs ground truth (from-clip), after the transient
  double limit_violation_max_rad = 0;
  double row_violation_max = 0;         ///< linear rows (e.g. the iCub's coupled shoulder)
  double step_us_p50 = 0, step_us_p99 = 0, step_us_max = 0;  ///< wall time per frame, µs
  double substeps_mean = 0;
  int non_finite = 0;
  /// Per-frame optimisers: frames whose solve ended Converged / Stationary (a constrained
  /// minimum short of the tolerance: targets out of reach) / IterationLimit / Failed; all zero
  /// for DYN.
  int converged = 0, stationary = 0, iteration_limit = 0, failed = 0;
  [[nodiscard]] int perFrameSolves() const { return converged + stationary + iteration_limit + failed; }
};

/// Per-frame records collected by the caller; summarise() turns them into a TrackSummary.
struct TrackRecord {
  std::vector<double> times, mnte, rmse, limit, rows, step_us, joint_err2;  ///< joint_err2: Σ err², per frame
  std::vector<int> substeps, joint_count;
  std::vector<std::uint8_t> gap, non_finite;
  std::vector<std::int8_t> status;  ///< SolveStatus of per-frame optimisers, −1 when none
  void reserve(std::size_t n);
  void add(double time, const FrameOutcome& o, double step_us, double err2 = 0.0, int count = 0);
};
TrackSummary summarize(const TrackRecord& record, double transient_s, bool has_truth);

}  // namespace kinetrack::track
