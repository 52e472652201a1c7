#include "kinetrack/track/opensim_marker_placer.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/subject/opensim_scale.hpp"
#include "kinetrack/track/opensim_ik.hpp"

namespace kinetrack::track {

namespace {

// The trial reduced to one frame: each marker's mean over the frames of the range where it is
// present (NaN when never).
io::MarkerTrajectories averaged(const io::MarkerTrajectories& trial, const MarkerPlacerOptions& o, int& frames) {
  const auto [first, last] = subject::frameRange(trial.times, o.time_start, o.time_end);
  frames = last - first + 1;
  io::MarkerTrajectories out;
  out.source = trial.source;
  out.names = trial.names;
  out.up = trial.up;
  out.data_rate = trial.data_rate;
  double t = 0.0;
  for (int f = first; f <= last; ++f) t += trial.times[static_cast<std::size_t>(f)];
  out.times = {t / frames};
  out.positions.assign(trial.names.size(), Vector3d::Constant(std::nan("")));
  for (int m = 0; m < trial.numMarkers(); ++m) {
    Vector3d sum = Vector3d::Zero();
    int n = 0;
    for (int f = first; f <= last; ++f)
      if (trial.isValid(f, m)) sum += trial.position(f, m), ++n;
    if (n == 0) continue;
    const Vector3d mean = sum / n;
    out.positions[static_cast<std::size_t>(m)] = mean;
    if (o.max_marker_movement < 0.0) continue;
    for (int f = first; f <= last; ++f)
      if (trial.isValid(f, m) && (trial.position(f, m) - mean).norm() > o.max_marker_movement)
        throw InvalidArgument("marker '" + trial.names[static_cast<std::size_t>(m)] + "' moves " +
                              std::to_string((trial.position(f, m) - mean).norm() * 1e3) +
                              " mm from its mean in the static trial " + trial.source + " (max_marker_movement " +
                              std::to_string(o.max_marker_movement * 1e3) + " mm)");
  }
  return out;
}

}  // namespace

MarkerPlacement placeOpenSimMarkers(const io::OpenSimModel& model, const io::IkSetup* setup,
                                    const io::MarkerTrajectories& trial, const MarkerPlacerOptions& options) {
  MarkerPlacement r;
  const io::MarkerTrajectories mean = averaged(trial, options, r.frames);
  r.time = mean.times.front();
  OpenSimIkBinding binding = bindOpenSimIk(model, setup, mean);
  r.warnings = std::move(binding.warnings);
  // OpenSim solves from the default pose. A subject facing 90° away from the model's heading can
  // drag limbs into their coordinate limits on the way (Rajagopal's static run trial: 51 mm RMS
  // from the default pose, 21 mm from the second start), so a second start is tried: the root
  // body (OpenSim lists it first: the pelvis) fitted alone by its own markers. The solution with
  // the smaller marker error is kept.
  r.solve = solveMarkerTrial(binding.spec, mean, {});
  if (!model.bodies.empty()) {
    MarkerIkSpec root = binding.spec;
    int kept = 0;
    for (auto& mk : root.markers) {
      const auto it = std::find_if(model.markers.begin(), model.markers.end(),
                                   [&](const io::OpenSimMarker& m) { return m.name == mk.name; });
      if (it == model.markers.end() || it->body != model.bodies.front()) mk.weight = 0.0;
      const auto col = std::find(mean.names.begin(), mean.names.end(), mk.name);
      if (mk.weight > 0.0 && col != mean.names.end() &&
          mean.positions[static_cast<std::size_t>(col - mean.names.begin())].allFinite())
        ++kept;
    }
    root.coordinate_tasks.clear();
    if (kept >= 3) {
      MarkerIkSpec second = binding.spec;
      second.reference = solveMarkerTrial(root, mean, {}).configurations.front();
      MarkerTrialResult other = solveMarkerTrial(second, mean, {});
      if (other.frames.front().total_squared_error < r.solve.frames.front().total_squared_error)
        r.solve = std::move(other);
    }
  }
  r.pose = r.solve.configurations.front();
  r.coordinates = openSimCoordinates(model, r.solve);
  const MarkerFrame& frame = r.solve.frames.front();
  r.rms_error = frame.rms_error;
  r.max_error = frame.max_error;
  if (frame.worst_marker >= 0) r.worst_marker = r.solve.marker_names[static_cast<std::size_t>(frame.worst_marker)];

  const Model& m = *model.model;
  Data data(m);
  framesForwardKinematics(m, data, r.pose);
  std::vector<bool> weighted(model.markers.size(), false);
  for (const auto& mk : binding.spec.markers)
    for (std::size_t i = 0; i < model.markers.size(); ++i)
      if (model.markers[i].name == mk.name && mk.weight > 0.0) weighted[i] = true;
  for (std::size_t i = 0; i < model.markers.size(); ++i) {
    const io::OpenSimMarker& mk = model.markers[i];
    PlacedMarker p;
    p.name = mk.name;
    p.body = mk.body;
    p.fixed = mk.fixed;
    p.before = p.after = mk.location;
    const auto it = std::find(mean.names.begin(), mean.names.end(), mk.name);
    const Vector3d measured = it == mean.names.end()
                                  ? Vector3d::Constant(std::nan(""))
                                  : mean.positions[static_cast<std::size_t>(it - mean.names.begin())];
    p.in_trial = measured.allFinite();
    if (p.in_trial && weighted[i]) p.error = (data.frame[mk.frame.value].p - measured).norm();
    if (p.in_trial && (!mk.fixed || options.move_fixed)) {
      Transform X_WB;  // ground: identity
      if (const auto body = m.findFrame(mk.body); body && mk.body != "ground") X_WB = data.frame[body->value];
      p.after = X_WB.R.transpose() * (measured - X_WB.p);
      p.moved = (p.after - p.before).norm();
    }
    r.markers.push_back(std::move(p));
  }
  return r;
}

}  // namespace kinetrack::track
