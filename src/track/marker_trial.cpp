#include "kinetrack/track/marker_trial.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>

#include "../subject/rigid_fit.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"

namespace kinetrack::track {

namespace {

std::string namesOf(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

int MarkerTrialResult::gaps() const {
  int n = 0;
  for (const auto& f : frames) n += f.gap ? 1 : 0;
  return n;
}

int MarkerTrialResult::framesWithMissingMarkers() const {
  int n = 0;
  for (const auto& f : frames) n += f.markers_missing > 0 ? 1 : 0;
  return n;
}

MarkerIkSpec markerIkSpec(subject::MarkerModel model) {
  MarkerIkSpec spec;
  static_cast<subject::MarkerModel&>(spec) = std::move(model);
  return spec;
}

MarkerStreamTracker::MarkerStreamTracker(const MarkerIkSpec& spec) : ik_(subject::makeMarkerIk(spec, spec.options)) {
  const Model& model = *spec.model;
  for (const auto& mk : spec.markers) {
    frames_.push_back(mk.frame);
    weights_.push_back(mk.weight);
  }
  for (const auto& t : spec.coordinate_tasks) ik_.tasks().addCoordinate(t.joint, t.weight);
  q0_ = spec.reference.joints.size() == model.numJoints() ? spec.reference : Configuration(model);
  aligned_ = !spec.align_base || model.baseType() != BaseType::Floating;
  ik_.setState(q0_);
}

bool MarkerStreamTracker::align(std::span<const Vector3d> markers) {
  if (aligned_) return true;
  if (markers.size() != frames_.size())
    throw InvalidArgument("marker IK: " + std::to_string(markers.size()) + " measurements for " +
                          std::to_string(frames_.size()) + " markers");
  // Rigid fit of the model markers at the start pose to the measured ones.
  const Model& model = ik_.model();
  Data d(model);
  forwardKinematics(model, d, q0_);
  std::vector<Vector3d> a, b;
  for (std::size_t i = 0; i < markers.size(); ++i)
    if (markers[i].allFinite() && weights_[i] > 0.0) {
      a.push_back(frameOrigin(model, d, model.frameId(frames_[i])));
      b.push_back(markers[i]);
    }
  Matrix3d R;
  Vector3d p;
  if (!subject::detail::rigidFit(a, b, R, p)) return false;
  Configuration q = q0_;
  q.base_rotation = R * q.base_rotation;
  q.base_position = R * q.base_position + p;
  ik_.setState(q);
  aligned_ = true;
  return true;
}

MarkerFrame MarkerStreamTracker::track(double time, std::span<const Vector3d> markers,
                                       std::span<const double> coordinates) {
  align(markers);
  MarkerFrame f;
  f.time = time;
  for (std::size_t i = 0; i < markers.size() && i < weights_.size(); ++i)
    if (weights_[i] > 0.0 && !markers[i].allFinite()) ++f.markers_missing;
  const auto t0 = std::chrono::steady_clock::now();
  const ik::MarkerIkResult r = ik_.solve(markers, coordinates);
  f.solve_microseconds = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  f.status = r.status;
  f.iterations = r.iterations;
  f.markers_used = r.markers_used;
  f.gap = r.markers_used == 0;
  f.limit_violation = r.limit_violation;
  f.total_squared_error = r.total_squared_error;
  f.rms_error = r.rms_error;
  f.max_error = r.max_error;
  f.worst_marker = r.worst_marker;
  return f;
}

MarkerTrialResult solveMarkerTrial(const MarkerIkSpec& spec, const io::MarkerTrajectories& trial,
                                   const MarkerTrialOptions& options) {
  if (!spec.model) throw InvalidArgument("marker IK: no model");
  const int nframes_all = trial.numFrames();
  const std::vector<double> times = io::trialTimes(trial);

  // Columns of the trial for each spec marker.
  std::vector<int> column;
  for (const auto& mk : spec.markers) {
    int c = -1;
    for (int i = 0; i < trial.numMarkers(); ++i)
      if (trial.names[static_cast<std::size_t>(i)] == mk.name) c = i;
    if (c < 0)
      throw InvalidArgument("marker IK: marker '" + mk.name + "' is not in " + trial.source +
                            "; its markers: " + namesOf(trial.names));
    column.push_back(c);
  }
  for (const auto& t : spec.coordinate_tasks)
    if (t.values.size() != 1 && static_cast<int>(t.values.size()) != nframes_all)
      throw InvalidArgument("marker IK: coordinate task '" + t.joint + "' has " + std::to_string(t.values.size()) +
                            " values for a trial of " + std::to_string(nframes_all) + " frames");

  MarkerStreamTracker tracker(spec);

  // Frames in range (half a sample of slack for rounded time columns).
  const double slack = trial.data_rate > 0.0 ? 0.25 / trial.data_rate : 1e-9;
  std::vector<int> in_range;
  for (int k = 0; k < nframes_all; ++k)
    if (times[static_cast<std::size_t>(k)] >= options.time_start - slack &&
        times[static_cast<std::size_t>(k)] <= options.time_end + slack)
      in_range.push_back(k);
  if (in_range.empty())
    throw InvalidArgument("marker IK: no frame of " + trial.source + " lies in the time range [" +
                          std::to_string(options.time_start) + ", " + std::to_string(options.time_end) + "] s");

  std::vector<Vector3d> obs(spec.markers.size());
  auto gather = [&](int k) {
    for (std::size_t i = 0; i < spec.markers.size(); ++i) obs[i] = trial.position(k, column[i]);
  };
  // The base is placed on the first frame in range with three markers, before any solve.
  for (int k : in_range) {
    gather(k);
    if (tracker.align(obs)) break;
  }

  MarkerTrialResult out;
  for (const auto& mk : spec.markers) out.marker_names.push_back(mk.name);
  out.frames.reserve(in_range.size());
  out.configurations.reserve(in_range.size());
  std::vector<double> values(spec.coordinate_tasks.size());
  const int total = static_cast<int>(in_range.size());
  for (int idx = 0; idx < total; ++idx) {
    const int k = in_range[static_cast<std::size_t>(idx)];
    gather(k);
    for (std::size_t t = 0; t < values.size(); ++t) {
      const auto& v = spec.coordinate_tasks[t].values;
      values[t] = v.size() == 1 ? v[0] : v[static_cast<std::size_t>(k)];
    }
    const MarkerFrame f = tracker.track(times[static_cast<std::size_t>(k)], obs, values);
    out.solve_seconds += f.solve_microseconds * 1e-6;
    out.frames.push_back(f);
    out.configurations.push_back(tracker.state());
    if (options.progress) options.progress(idx + 1, total);
  }
  return out;
}

}  // namespace kinetrack::track
