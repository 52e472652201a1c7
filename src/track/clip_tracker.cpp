#include "kinetrack/track/clip_tracker.hpp"

#include "kinetrack/core/errors.hpp"

namespace kinetrack::track {

std::vector<StreamTarget> streamTargets(const std::vector<TargetBinding>& bindings) {
  std::vector<StreamTarget> targets;
  targets.reserve(bindings.size());
  for (const TargetBinding& b : bindings) targets.push_back({b.frame, b.orientation, b.position, b.weight});
  return targets;
}

void checkBindings(const io::MotionClip& clip, const std::vector<TargetBinding>& bindings) {
  if (bindings.empty()) throw InvalidArgument("ClipTracker: no targets (empty segment map)");
  if (clip.numFrames() == 0) throw InvalidArgument("ClipTracker: the clip has no frames");
  for (const TargetBinding& b : bindings) {
    if (b.segment < 0 || b.segment >= clip.numSegments())
      throw InvalidArgument("ClipTracker: segment index " + std::to_string(b.segment) + " out of range");
    if (!b.orientation && !b.position) throw InvalidArgument("ClipTracker: binding of '" + b.frame + "' has no target");
  }
}

bool clipFrameTargets(const io::MotionClip& clip, const std::vector<TargetBinding>& bindings,
                      const ClipAlignment& alignment, int f, std::span<Matrix3d> R, std::span<Vector3d> p) {
  for (const TargetBinding& b : bindings)
    if (!clip.isValid(f, b.segment)) return false;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const Transform& pose = clip.pose(f, bindings[i].segment);
    R[i] = alignment.rotation * pose.R * bindings[i].offset;
    p[i] = alignment.scale * (alignment.rotation * pose.p) + alignment.translation;
  }
  return true;
}

double meanFrameInterval(const io::MotionClip& clip) {
  return clip.numFrames() > 1 ? (clip.times.back() - clip.times.front()) / (clip.numFrames() - 1) : 0.01;
}

namespace {

TrackerOptions withClipInterval(TrackerOptions o, const io::MotionClip& clip) {
  o.first_frame_interval = meanFrameInterval(clip);
  return o;
}

std::unique_ptr<FrameSolver> checkedSolver(std::unique_ptr<FrameSolver> solver, const Model& model) {
  if (!solver) throw InvalidArgument("ClipTracker: null per-frame solver");
  if (solver->model().nv() != model.nv() || solver->model().numFrames() != model.numFrames())
    throw InvalidArgument("ClipTracker: the per-frame solver is built on another model");
  return solver;
}

TrackerOptions firstFrame(int iterations) {
  TrackerOptions o;
  o.first_frame_iterations = iterations;
  return o;
}

}  // namespace

ClipTracker::ClipTracker(std::shared_ptr<const io::MotionClip> clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, StreamTracker stream)
    : clip_(std::move(clip)),
      bindings_(std::move(bindings)),
      align_(alignment),
      stream_(std::move(stream)),
      R_(bindings_.size(), Matrix3d::Identity()),
      p_(bindings_.size(), Vector3d::Zero()) {}

ClipTracker::ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, const TrackerOptions& options)
    : ClipTracker(
          std::make_shared<const io::MotionClip>(clip), bindings, alignment,
          (checkBindings(clip, bindings), StreamTracker(std::make_shared<const Model>(model), streamTargets(bindings),
                                                        withClipInterval(options, clip)))) {}

ClipTracker::ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, std::unique_ptr<FrameSolver> solver,
                         int first_frame_iterations)
    : ClipTracker(std::make_shared<const io::MotionClip>(clip), bindings, alignment,
                  (checkBindings(clip, bindings),
                   StreamTracker(checkedSolver(std::move(solver), model), streamTargets(bindings),
                                 withClipInterval(firstFrame(first_frame_iterations), clip)))) {}

ClipTracker::ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, InstantaneousIk solver, int first_frame_iterations)
    : ClipTracker(model, clip, std::move(bindings), alignment, makeFrameSolver(std::move(solver)),
                  first_frame_iterations) {}

Matrix3d ClipTracker::targetRotation(std::size_t b, int f) const {
  return align_.rotation * clip_->pose(f, bindings_[b].segment).R * bindings_[b].offset;
}

Vector3d ClipTracker::targetPosition(std::size_t b, int f) const {
  return align_.scale * (align_.rotation * clip_->pose(f, bindings_[b].segment).p) + align_.translation;
}

FrameOutcome ClipTracker::track(int f) {
  if (f <= last_frame_ || f >= clip_->numFrames())
    throw InvalidArgument("ClipTracker::track: frame " + std::to_string(f) + " out of order or range");
  last_frame_ = f;
  const bool valid = clipFrameTargets(*clip_, bindings_, align_, f, R_, p_);
  return stream_.track(clip_->times[static_cast<std::size_t>(f)], R_, p_, valid);
}

}  // namespace kinetrack::track
