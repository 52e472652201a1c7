#pragma once
// Tracking a recorded motion clip frame by frame: a thin adaptor that turns clip frames into
// StreamTracker frames (targets bound to model frames through an alignment, gaps for missing
// data). The clip tracker owns a copy of its model and clip (docs/conventions.md, ownership).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/track/stream_tracker.hpp"

namespace kinetrack::track {

/// One target: clip segment `segment` drives model frame `frame`. Orientation target
/// R = W·R_clip·offset, position target p = s·W·p_clip + t (ClipAlignment W, s, t).
struct TargetBinding {
  int segment = 0;                         ///< index into MotionClip::segment_names
  std::string frame;                       ///< model frame name
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

/// The stream targets of clip bindings (frame, kinds, weight), in binding order.
std::vector<StreamTarget> streamTargets(const std::vector<TargetBinding>& bindings);
/// Throws InvalidArgument for a segment index out of range of `clip` or a binding without a
/// target kind.
void checkBindings(const io::MotionClip& clip, const std::vector<TargetBinding>& bindings);
/// Target values of every binding at clip frame f (model world): R = W·R_clip·offset,
/// p = s·W·p_clip + t. Returns false (and leaves R, p) when a bound segment has no valid data at
/// f (a gap). R and p have one entry per binding.
bool clipFrameTargets(const io::MotionClip& clip, const std::vector<TargetBinding>& bindings,
                      const ClipAlignment& alignment, int f, std::span<Matrix3d> R, std::span<Vector3d> p);
/// The clip's mean frame interval (s): the time from the initial state to the first frame
/// (TrackerOptions::first_frame_interval); 0.01 s for a one-frame clip.
double meanFrameInterval(const io::MotionClip& clip);

/// Tracks a clip frame by frame with any Method. Frames must be given in increasing order; the
/// first tracked frame is reached from the initial state (setState). No allocation per frame.
class ClipTracker {
 public:
  /// Throws InvalidArgument for an unknown frame name (listing the valid ones), a segment index
  /// out of range, a binding with neither orientation nor position, options out of range, or a
  /// target the method (options.method) cannot hold.
  ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment = {}, const TrackerOptions& options = {});
  /// With a frame solver built by the caller (on `model`, without targets; ClipTracker adds
  /// them). The first frame, reached from an arbitrary initial state, gets at least
  /// `first_frame_iterations` iterations (per-frame optimisers). Throws InvalidArgument for a null
  /// solver, one built on another model, or a target the method cannot hold.
  ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment, std::unique_ptr<FrameSolver> solver, int first_frame_iterations = 500);
  /// Shorthand for makeFrameSolver(std::move(solver)).
  ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment, InstantaneousIk solver, int first_frame_iterations = 500);

  void setState(const Configuration& q) { stream_.setState(q); }
  [[nodiscard]] const Configuration& state() const { return stream_.state(); }
  /// The frame solver (every method, DYN included).
  [[nodiscard]] const FrameSolver* frameSolver() const { return &stream_.solver(); }
  /// The whole-body optimiser when the method is one (else null).
  [[nodiscard]] const InstantaneousIk* instantaneous() const { return stream_.solver().instantaneous(); }
  [[nodiscard]] const std::vector<TargetBinding>& bindings() const { return bindings_; }
  [[nodiscard]] const StreamTracker& stream() const { return stream_; }

  /// Tracks frame f (f > previous frame). A frame where a bound sample is invalid is a gap.
  FrameOutcome track(int f);

  /// Target orientation (model world) of binding b at frame f.
  [[nodiscard]] Matrix3d targetRotation(std::size_t b, int f) const;
  [[nodiscard]] Vector3d targetPosition(std::size_t b, int f) const;

 private:
  ClipTracker(std::shared_ptr<const io::MotionClip> clip, std::vector<TargetBinding> bindings,
              const ClipAlignment& alignment, StreamTracker stream);
  std::shared_ptr<const io::MotionClip> clip_;
  std::vector<TargetBinding> bindings_;
  ClipAlignment align_;
  StreamTracker stream_;
  std::vector<Matrix3d> R_;
  std::vector<Vector3d> p_;
  int last_frame_ = -1;
};

}  // namespace kinetrack::track
