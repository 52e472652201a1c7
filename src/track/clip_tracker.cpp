#include "kinetrack/track/clip_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::track {
namespace {

constexpr double kInitialStep = 0.01;  // s
constexpr int kInitialPolish = 5;

DynamicalIkOptions solverOptions(const TrackerOptions& o) {
  if (!(o.gain > 0.0 && o.gain < 2.0)) throw InvalidArgument("TrackerOptions::gain must be in (0, 2), got " + std::to_string(o.gain));
  if (!(o.max_step_rotation > 0.0)) throw InvalidArgument("TrackerOptions::max_step_rotation must be > 0");
  if (o.max_substeps < 1) throw InvalidArgument("TrackerOptions::max_substeps must be ≥ 1");
  DynamicalIkOptions ik = o.ik;
  ik.gain_mode = GainMode::PerStep;
  return ik;
}

}  // namespace

ClipTracker::ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, const TrackerOptions& options)
    : model_(model), clip_(clip), bindings_(std::move(bindings)), align_(alignment), options_(options),
      ik_(model, solverOptions(options)) {
  if (bindings_.empty()) throw InvalidArgument("ClipTracker: no targets (empty segment map)");
  if (clip_.numFrames() == 0) throw InvalidArgument("ClipTracker: the clip has no frames");
  for (const TargetBinding& b : bindings_) {
    if (b.segment < 0 || b.segment >= clip_.numSegments())
      throw InvalidArgument("ClipTracker: segment index " + std::to_string(b.segment) + " out of range");
    if (!b.orientation && !b.position) throw InvalidArgument("ClipTracker: binding of '" + b.frame + "' has no target");
    const FrameId f = model_.frameId(b.frame);  // throws, listing the valid names
    frames_.push_back(f);
    if (b.orientation && b.position) {
      ids_.push_back(ik_.addPoseTarget(b.frame, options_.gain, options_.gain, b.weight));
    } else if (b.orientation) {
      ids_.push_back(ik_.addOrientationTarget(b.frame, options_.gain, b.weight));
    } else {
      ids_.push_back(ik_.addPositionTarget(b.frame, options_.gain, b.weight));
    }
  }
  prev_model_R_.resize(bindings_.size(), Matrix3d::Identity());
  for (int j = 0; j < model_.numJoints(); ++j) {
    const double lo = model_.lowerPositionLimits()[j], hi = model_.upperPositionLimits()[j];
    if (model_.jointType(JointId(j)) != JointType::Prismatic && std::isfinite(lo) && std::isfinite(hi) && hi - lo > 2.0 * M_PI + 1e-9)
      wrappable_.push_back(j);
  }
  scratch_ = Configuration(model_);
  prev_R_.resize(bindings_.size());
  prev_p_.resize(bindings_.size());
  cur_R_.resize(bindings_.size());
  cur_p_.resize(bindings_.size());
  step_w_.resize(bindings_.size());
  step_dp_.resize(bindings_.size());
}

ClipTracker::ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, std::unique_ptr<FrameSolver> solver, int first_frame_iterations)
    : ClipTracker(model, clip, std::move(bindings), alignment, TrackerOptions{}) {
  if (!solver) throw InvalidArgument("ClipTracker: null per-frame solver");
  if (solver->model().nv() != model.nv() || solver->model().numFrames() != model.numFrames())
    throw InvalidArgument("ClipTracker: the per-frame solver is built on another model");
  if (first_frame_iterations < 1) throw InvalidArgument("ClipTracker: first_frame_iterations must be ≥ 1");
  frame_solver_ = std::move(solver);
  first_frame_iterations_ = first_frame_iterations;
  for (const TargetBinding& b : bindings_) slots_.push_back(frame_solver_->addTarget(b.frame, b.orientation, b.position, b.weight));
  frame_solver_->setState(ik_.state());
}

ClipTracker::ClipTracker(const Model& model, const io::MotionClip& clip, std::vector<TargetBinding> bindings,
                         const ClipAlignment& alignment, InstantaneousIk solver, int first_frame_iterations)
    : ClipTracker(model, clip, std::move(bindings), alignment, makeFrameSolver(std::move(solver)), first_frame_iterations) {}

FrameOutcome ClipTracker::trackInstantaneous(int f, double dt) {
  FrameOutcome out;
  const std::size_t nb = bindings_.size();
  const bool first = last_valid_ < 0;
  std::swap(prev_R_, cur_R_);  // the previous valid frame's targets
  for (std::size_t b = 0; b < nb; ++b) {
    cur_R_[b] = targetRotation(b, f);
    cur_p_[b] = targetPosition(b, f);
    frame_solver_->setTarget(slots_[b], bindings_[b].orientation ? &cur_R_[b] : nullptr, bindings_[b].position ? &cur_p_[b] : nullptr);
    if (!first && bindings_[b].orientation) step_w_[b] = so3::log(cur_R_[b] * prev_R_[b].transpose());
  }
  // Converging from an arbitrary initial state is not a tracking step: more iterations.
  const FrameSolveResult r = frame_solver_->solve(first ? first_frame_iterations_ : 0);
  out.substeps = r.iterations;
  out.mnte = r.mnte;
  out.limit_violation = r.limit_violation;
  out.row_violation = r.row_violation;
  out.non_finite = r.status == SolveStatus::Failed;
  out.has_status = true;
  out.status = r.status;
  out.rmse = chordRmse(frame_solver_->data(), dt, !first);
  last_valid_ = f;
  return out;
}

double ClipTracker::chordRmse(const Data& data, double dt, bool have_previous) {
  // Eq. 16 with chord velocities over the frame: target ω = step_w_/Δt = log(R_t(f) R_t(prev)ᵀ)/Δt,
  // model ω = log(R(f) R(prev)ᵀ)/Δt; remembers R(f) for the next frame.
  double sum = 0.0;
  int count = 0;
  for (std::size_t b = 0; b < bindings_.size(); ++b) {
    if (!bindings_[b].orientation) continue;
    const Matrix3d& R = data.frame[frames_[b].value].R;
    if (have_previous) {
      const Vector3d w_model = so3::log(R * prev_model_R_[b].transpose()) / dt;
      sum += (w_model - step_w_[b] / dt).squaredNorm() / 3.0;
      ++count;
    }
    prev_model_R_[b] = R;
  }
  return count ? std::sqrt(sum / count) : 0.0;
}

Matrix3d ClipTracker::targetRotation(std::size_t b, int f) const {
  return align_.rotation * clip_.pose(f, bindings_[b].segment).R * bindings_[b].offset;
}

Vector3d ClipTracker::targetPosition(std::size_t b, int f) const {
  return align_.scale * (align_.rotation * clip_.pose(f, bindings_[b].segment).p) + align_.translation;
}

void ClipTracker::unwind() {
  // A revolute joint whose range spans more than 2π reaches the same pose at q ± 2π: when an
  // angle wanders within π of a limit (Euler-angle chains spin near gimbal lock), move it a
  // turn back so the limit never stops tracking. Continuous joints are left to wind freely.
  const Configuration& q = ik_.state();
  bool changed = false;
  for (const int j : wrappable_) {
    const double lo = model_.lowerPositionLimits()[j], hi = model_.upperPositionLimits()[j];
    const double v = q.joints[j];
    if (v > lo + M_PI && v < hi - M_PI) continue;
    const double w = v - 2.0 * M_PI * std::round(v / (2.0 * M_PI));
    if (w > lo && w < hi && std::abs(w) < std::abs(v)) {
      if (!changed) scratch_ = q;
      scratch_.joints[j] = w;
      changed = true;
    }
  }
  if (changed) ik_.setState(scratch_);
}

FrameOutcome ClipTracker::track(int f) {
  if (f <= last_frame_ || f >= clip_.numFrames())
    throw InvalidArgument("ClipTracker::track: frame " + std::to_string(f) + " out of order or range");
  last_frame_ = f;
  FrameOutcome out;
  for (const TargetBinding& b : bindings_)
    if (!clip_.isValid(f, b.segment)) {
      out.gap = true;
      return out;  // the state is held; the caller writes it and marks the row
    }
  if (frame_solver_)
    return trackInstantaneous(f, last_valid_ < 0 ? 0.0
                                                 : clip_.times[static_cast<std::size_t>(f)] - clip_.times[static_cast<std::size_t>(last_valid_)]);
  const std::size_t nb = bindings_.size();
  const Data& data = ik_.data();
  double dt_total;
  if (last_valid_ < 0) {
    // First frame: interpolate from where the model is now (mnte() refreshes the placements of
    // the target frames).
    static_cast<void>(ik_.mnte());
    for (std::size_t b = 0; b < nb; ++b) {
      const Transform& X = data.frame[frames_[b].value];
      prev_R_[b] = X.R;
      prev_p_[b] = X.p;
    }
    dt_total = clip_.numFrames() > 1 ? (clip_.times.back() - clip_.times.front()) / (clip_.numFrames() - 1) : 0.01;
  } else {
    // The previous frame's targets were computed then (cur_*), reuse them.
    std::swap(prev_R_, cur_R_);
    std::swap(prev_p_, cur_p_);
    dt_total = clip_.times[static_cast<std::size_t>(f)] - clip_.times[static_cast<std::size_t>(last_valid_)];
  }
  double max_angle = 0.0;
  for (std::size_t b = 0; b < nb; ++b) {
    cur_R_[b] = targetRotation(b, f);
    cur_p_[b] = targetPosition(b, f);
    step_w_[b] = bindings_[b].orientation ? so3::log(cur_R_[b] * prev_R_[b].transpose()) : Vector3d::Zero();
    step_dp_[b] = bindings_[b].position ? Vector3d(cur_p_[b] - prev_p_[b]) : Vector3d::Zero();
    max_angle = std::max(max_angle, step_w_[b].norm());
  }
  const bool first = last_valid_ < 0;
  auto absorb = [&out](const StepResult& r) {
    out.limit_violation = std::max(out.limit_violation, r.limit_violation);
    out.row_violation = std::max(out.row_violation, r.row_violation);
    out.non_finite = out.non_finite || r.non_finite;
  };
  const int n = std::clamp(static_cast<int>(std::ceil(max_angle / options_.max_step_rotation)), 1, options_.max_substeps);
  // The first frame is reached from an arbitrary initial state: its steps get at least
  // kInitialStep each (not a motion to follow in real time, so the velocity bounds should not
  // throttle it), and a few more steps on the final targets polish the linearisation error.
  const double h = first ? std::max(dt_total / n, kInitialStep) : dt_total / n;
  for (int i = 1; i <= n; ++i) {
    const double tau = static_cast<double>(i) / n;
    for (std::size_t b = 0; b < nb; ++b) {
      // The last sub-step aims at the frame's own target (no interpolation round-off, no exp).
      if (bindings_[b].orientation)
        ik_.setTargetOrientation(ids_[b], i == n ? cur_R_[b] : Matrix3d(so3::exp(tau * step_w_[b]) * prev_R_[b]), step_w_[b] / dt_total);
      if (bindings_[b].position)
        ik_.setTargetPosition(ids_[b], i == n ? cur_p_[b] : Vector3d(prev_p_[b] + tau * step_dp_[b]), step_dp_[b] / dt_total);
    }
    absorb(ik_.step(h));
  }
  int steps = n;
  for (int i = 0; first && i < kInitialPolish; ++i, ++steps) absorb(ik_.step(h));
  unwind();
  out.substeps = steps;
  out.mnte = ik_.mnte();  // also refreshes the target frames' placements in data
  out.rmse = chordRmse(data, dt_total, last_valid_ >= 0);
  last_valid_ = f;
  return out;
}

void TrackRecord::reserve(std::size_t n) {
  for (auto* v : {&times, &mnte, &rmse, &limit, &rows, &step_us, &joint_err2}) v->reserve(n);
  substeps.reserve(n);
  joint_count.reserve(n);
  gap.reserve(n);
  non_finite.reserve(n);
  status.reserve(n);
}

void TrackRecord::add(double time, const FrameOutcome& o, double us, double err2, int count) {
  times.push_back(time);
  mnte.push_back(o.mnte);
  rmse.push_back(o.rmse);
  limit.push_back(o.limit_violation);
  rows.push_back(o.row_violation);
  step_us.push_back(us);
  joint_err2.push_back(err2);
  substeps.push_back(o.substeps);
  joint_count.push_back(count);
  gap.push_back(o.gap ? 1 : 0);
  non_finite.push_back(o.non_finite ? 1 : 0);
  status.push_back(o.has_status ? static_cast<std::int8_t>(o.status) : std::int8_t{-1});
}

TrackSummary summarize(const TrackRecord& r, double transient_s, bool has_truth) {
  TrackSummary s;
  s.frames = static_cast<int>(r.times.size());
  s.transient_s = transient_s;
  s.has_truth = has_truth;
  if (s.frames == 0) return s;
  const double t0 = r.times.front();
  // A clip shorter than twice the transient keeps its second half for the statistics.
  const double t_cut = std::min(transient_s, 0.5 * (r.times.back() - t0));
  std::vector<double> mnte, rmse, us;
  double err2 = 0.0, substeps = 0.0;
  long joints = 0;
  int stepped = 0;
  for (std::size_t i = 0; i < r.times.size(); ++i) {
    if (r.gap[i]) ++s.gaps;
    if (r.non_finite[i]) ++s.non_finite;
    switch (r.status.empty() ? -1 : r.status[i]) {
      case static_cast<int>(SolveStatus::Converged): ++s.converged; break;
      case static_cast<int>(SolveStatus::Stationary): ++s.stationary; break;
      case static_cast<int>(SolveStatus::IterationLimit): ++s.iteration_limit; break;
      case static_cast<int>(SolveStatus::Failed): ++s.failed; break;
      default: break;
    }
    s.limit_violation_max_rad = std::max(s.limit_violation_max_rad, r.limit[i]);
    s.row_violation_max = std::max(s.row_violation_max, r.rows[i]);
    if (!r.gap[i]) {
      us.push_back(r.step_us[i]);
      substeps += r.substeps[i];
      ++stepped;
    }
    if (r.gap[i] || r.times[i] - t0 < t_cut) continue;
    ++s.frames_after_transient;
    mnte.push_back(r.mnte[i]);
    rmse.push_back(r.rmse[i]);
    err2 += r.joint_err2[i];
    joints += r.joint_count[i];
  }
  const metrics::Summary m = metrics::summarize(mnte), e = metrics::summarize(rmse), t = metrics::summarize(us);
  s.mnte_median = m.median;
  s.mnte_p95 = m.p95;
  s.mnte_max = m.max;
  s.rmse_median = e.median;
  s.step_us_p50 = t.median;
  s.step_us_p99 = t.p99;
  s.step_us_max = t.max;
  s.substeps_mean = stepped ? substeps / stepped : 0.0;
  if (has_truth && joints > 0) s.joint_rms_deg = std::sqrt(err2 / static_cast<double>(joints)) * 180.0 / 3.14159265358979323846;
  return s;
}

}  // namespace kinetrack::track
