#include "kinetrack/track/stream_tracker.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::track {

namespace {

std::vector<StreamTarget> checked(std::vector<StreamTarget> targets) {
  if (targets.empty()) throw InvalidArgument("StreamTracker: no targets (empty segment map)");
  return targets;
}

}  // namespace

StreamTracker::StreamTracker(std::shared_ptr<const Model> model, std::vector<StreamTarget> targets,
                             const TrackerOptions& options)
    : StreamTracker(options.solver.empty() ? makeFrameSolver(options.method, std::move(model), options)
                                           : makeFrameSolver(options.solver, std::move(model), options),
                    std::move(targets), options) {}

StreamTracker::StreamTracker(std::unique_ptr<FrameSolver> solver, std::vector<StreamTarget> targets,
                             const TrackerOptions& options)
    : solver_(std::move(solver)), targets_(checked(std::move(targets))) {
  if (!solver_) throw InvalidArgument("StreamTracker: null frame solver");
  options.validate();
  first_frame_iterations_ = options.first_frame_iterations;
  first_frame_interval_ = options.first_frame_interval;
  for (const StreamTarget& t : targets_) {
    if (!t.orientation && !t.position)
      throw InvalidArgument("StreamTracker: target on '" + t.frame + "' has neither orientation nor position");
    frames_.push_back(solver_->model().frameId(t.frame));  // throws, listing the valid names
    solver_->addTarget(t.frame, t.orientation, t.position, t.weight);
  }
  in_.resize(targets_.size());
  prev_model_R_.resize(targets_.size(), Matrix3d::Identity());
  prev_active_.resize(targets_.size(), 1);
}

FrameOutcome StreamTracker::track(double time, std::span<const Matrix3d> R, std::span<const Vector3d> p, bool valid,
                                  std::span<const std::uint8_t> active) {
  if (!std::isfinite(time) || (have_frame_ && !(time > last_time_)))
    throw InvalidArgument("StreamTracker::track: time " + std::to_string(time) +
                          " s is not after the previous frame's " + std::to_string(last_time_) + " s");
  const std::size_t nb = targets_.size();
  if (R.size() != nb || p.size() != nb)
    throw InvalidArgument("StreamTracker::track: expected " + std::to_string(nb) + " orientations and positions, got " +
                          std::to_string(R.size()) + " and " + std::to_string(p.size()));
  if (!active.empty() && active.size() != nb)
    throw InvalidArgument("StreamTracker::track: expected " + std::to_string(nb) + " active flags, got " +
                          std::to_string(active.size()));
  have_frame_ = true;
  last_time_ = time;
  FrameOutcome out;
  if (!valid) {
    out.gap = true;  // the state is held; the caller writes it and marks the row
    return out;
  }
  const bool first = !have_valid_;
  in_.first = first;
  in_.dt = first ? first_frame_interval_ : time - last_valid_time_;
  in_.min_iterations = first ? first_frame_iterations_ : 0;
  if (!first) {
    // The previous valid frame's targets and the chords to this frame.
    std::swap(in_.R_prev, in_.R);
    std::swap(in_.p_prev, in_.p);
  }
  for (std::size_t b = 0; b < nb; ++b) {
    const bool on = active.empty() || active[b] != 0;
    in_.active[b] = on ? 1 : 0;
    if (!on) {  // left out: finite placeholders, no chord
      in_.R[b] = Matrix3d::Identity();
      in_.p[b] = Vector3d::Zero();
      in_.rotation[b] = in_.translation[b] = Vector3d::Zero();
      continue;
    }
    in_.R[b] = R[b];
    in_.p[b] = p[b];
    if (first) continue;
    if (prev_active_[b] == 0) {  // back this frame: starts here
      in_.R_prev[b] = in_.R[b];
      in_.p_prev[b] = in_.p[b];
    }
    in_.rotation[b] = targets_[b].orientation ? so3::log(in_.R[b] * in_.R_prev[b].transpose()) : Vector3d::Zero();
    in_.translation[b] = targets_[b].position ? Vector3d(in_.p[b] - in_.p_prev[b]) : Vector3d::Zero();
  }
  try {
    static_cast<ik::Result&>(out) = solver_->solve(in_);
  } catch (...) {
    // A refused frame (e.g. a matrix that is not a rotation) leaves the stream as it was: the
    // solvers check values before they move the state, and the previous targets come back.
    if (!first) {
      std::swap(in_.R_prev, in_.R);
      std::swap(in_.p_prev, in_.p);
    }
    throw;
  }
  out.non_finite = out.status == ik::Status::Failed;
  out.rmse = chordRmse(first ? 0.0 : in_.dt, !first);
  std::copy(in_.active.begin(), in_.active.end(), prev_active_.begin());
  have_valid_ = true;
  last_valid_time_ = time;
  return out;
}

double StreamTracker::chordRmse(double dt, bool have_previous) {
  // Eq. 16 with chord velocities over the frame: target ω = log(R_t(f) R_t(prev)ᵀ)/Δt, model
  // ω = log(R(f) R(prev)ᵀ)/Δt; remembers R(f) for the next frame.
  const Data& data = solver_->data();
  double sum = 0.0;
  int count = 0;
  for (std::size_t b = 0; b < targets_.size(); ++b) {
    if (!targets_[b].orientation) continue;
    const Matrix3d& R = data.frame[static_cast<std::size_t>(frames_[b].value)].R;
    if (have_previous && in_.active[b] != 0 && prev_active_[b] != 0) {
      const Vector3d w_model = so3::log(R * prev_model_R_[b].transpose()) / dt;
      sum += (w_model - in_.rotation[b] / dt).squaredNorm() / 3.0;
      ++count;
    }
    prev_model_R_[b] = R;
  }
  return count ? std::sqrt(sum / count) : 0.0;
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
  substeps.push_back(o.iterations);
  joint_count.push_back(count);
  gap.push_back(o.gap ? 1 : 0);
  non_finite.push_back(o.non_finite ? 1 : 0);
  status.push_back(o.gap ? std::int8_t{-1} : static_cast<std::int8_t>(o.status));
}

double transientCut(const std::vector<double>& times, double transient_s) {
  if (times.empty()) return 0.0;
  // A clip shorter than twice the transient keeps its second half for the statistics.
  return std::min(transient_s, 0.5 * (times.back() - times.front()));
}

TrackSummary summarize(const TrackRecord& r, double transient_s, bool has_truth) {
  TrackSummary s;
  s.frames = static_cast<int>(r.times.size());
  s.transient_s = transient_s;
  s.has_truth = has_truth;
  if (s.frames == 0) return s;
  const double t0 = r.times.front();
  const double t_cut = transientCut(r.times, transient_s);
  std::vector<double> mnte, rmse, us;
  double err2 = 0.0, substeps = 0.0;
  long joints = 0;
  int stepped = 0;
  for (std::size_t i = 0; i < r.times.size(); ++i) {
    if (r.gap[i]) ++s.gaps;
    if (r.non_finite[i]) ++s.non_finite;
    switch (r.status.empty() ? -1 : r.status[i]) {
      case static_cast<int>(ik::Status::Converged): ++s.converged; break;
      case static_cast<int>(ik::Status::Stationary): ++s.stationary; break;
      case static_cast<int>(ik::Status::IterationLimit): ++s.iteration_limit; break;
      case static_cast<int>(ik::Status::Infeasible): ++s.infeasible; break;
      case static_cast<int>(ik::Status::Failed): ++s.failed; break;
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
  if (has_truth && joints > 0)
    s.joint_rms_deg = std::sqrt(err2 / static_cast<double>(joints)) * 180.0 / 3.14159265358979323846;
  return s;
}

}  // namespace kinetrack::track
