#include "kinetrack/markers/labelling_trial.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace kinetrack::markers {

int LabelTrialResult::initialisations() const {
  int n = 0;
  for (const LabelledFrame& f : frames) n += f.state == TrackState::Initialised;
  return n;
}

int LabelTrialResult::lostFrames() const {
  int n = 0;
  for (const LabelledFrame& f : frames) n += f.state == TrackState::Lost;
  return n;
}

int LabelTrialResult::unsureFrames() const {
  int n = 0;
  for (const LabelledFrame& f : frames) n += f.unsure > 0;
  return n;
}

long LabelTrialResult::swapsCorrected() const {
  long n = 0;
  for (const LabelledFrame& f : frames) n += f.swaps_corrected;
  return n;
}

io::MarkerTrajectories LabelTrialResult::trajectories(const io::PointCloud& cloud) const {
  io::MarkerTrajectories t;
  t.source = cloud.source;
  t.names = names;
  t.times = cloud.times;
  const std::size_t nm = names.size();
  t.positions.assign(frames.size() * nm, Vector3d::Constant(std::numeric_limits<double>::quiet_NaN()));
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const auto pts = cloud.frame(static_cast<int>(f));
    for (std::size_t i = 0; i < nm; ++i) {
      const int p = marker_point[f * nm + i];
      if (p >= 0) t.positions[f * nm + i] = pts[static_cast<std::size_t>(p)];
    }
  }
  return t;
}

LabelTrialResult labelTrial(std::shared_ptr<const LabellerModel> model, const io::PointCloud& cloud,
                            const LabellerOptions& options, const LabelTrialOptions& trial_options) {
  Labeller labeller(model, options);
  LabelTrialResult r;
  r.names = model->names();
  const int nf = cloud.numFrames();
  const std::size_t nm = r.names.size();
  r.frames.reserve(static_cast<std::size_t>(nf));
  r.marker_point.assign(static_cast<std::size_t>(nf) * nm, -1);
  r.confidence.assign(static_cast<std::size_t>(nf) * nm, std::numeric_limits<float>::quiet_NaN());
  r.poses.reserve(static_cast<std::size_t>(nf));
  for (int f = 0; f < nf; ++f) {
    const auto t0 = std::chrono::steady_clock::now();
    const FrameLabels& L = labeller.label(cloud.frame(f), cloud.times[static_cast<std::size_t>(f)]);
    const auto t1 = std::chrono::steady_clock::now();
    LabelledFrame row;
    row.frame_number = cloud.frame_numbers[static_cast<std::size_t>(f)];
    row.time = cloud.times[static_cast<std::size_t>(f)];
    row.points = L.points;
    row.invalid_points = L.invalid_points + cloud.dropped[static_cast<std::size_t>(f)];
    row.assigned = L.assigned;
    row.gaps = L.gaps;
    row.ghosts = L.ghosts;
    row.rigid_rejections = L.rigid_rejections;
    row.relabelled = L.relabelled;
    row.swaps_corrected = L.swaps_corrected;
    row.unsure = L.unsure;
    row.min_confidence = 1.0;
    for (std::size_t i = 0; i < nm; ++i) {
      r.confidence[static_cast<std::size_t>(f) * nm + i] = static_cast<float>(L.confidence[i]);
      if (L.marker_point[i] >= 0) row.min_confidence = std::min(row.min_confidence, L.confidence[i]);
    }
    row.state = L.state;
    row.ik_status = L.ik.status;
    row.ik_iterations = L.ik.iterations;
    row.ik_rms = L.state == TrackState::Lost ? std::numeric_limits<double>::quiet_NaN() : L.ik.rms_error;
    row.ik_microseconds = L.ik_microseconds;
    row.microseconds = std::chrono::duration<double, std::micro>(t1 - t0).count();
    r.frames.push_back(row);
    for (std::size_t i = 0; i < nm; ++i) r.marker_point[static_cast<std::size_t>(f) * nm + i] = L.marker_point[i];
    r.poses.push_back(labeller.pose());
    if (trial_options.progress) trial_options.progress(f + 1, nf);
  }
  return r;
}

}  // namespace kinetrack::markers
