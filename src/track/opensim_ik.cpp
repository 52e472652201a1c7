#include "kinetrack/track/opensim_ik.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::track {

namespace {

constexpr double kDeg = 180.0 / M_PI;

bool trialHas(const io::MarkerTrajectories& trial, const std::string& name) {
  return std::find(trial.names.begin(), trial.names.end(), name) != trial.names.end();
}

// Linear interpolation of column c of a table at time t (held at the ends).
double interpolate(const io::MotTable& t, int c, double time) {
  const auto& ts = t.times;
  if (time <= ts.front()) return t.values(0, c);
  if (time >= ts.back()) return t.values(static_cast<Eigen::Index>(ts.size()) - 1, c);
  const auto it = std::upper_bound(ts.begin(), ts.end(), time);
  const auto k = static_cast<Eigen::Index>(it - ts.begin());
  const double a = (time - ts[static_cast<std::size_t>(k - 1)]) /
                   (ts[static_cast<std::size_t>(k)] - ts[static_cast<std::size_t>(k - 1)]);
  return (1.0 - a) * t.values(k - 1, c) + a * t.values(k, c);
}

}  // namespace

OpenSimIkBinding bindOpenSimIk(const io::OpenSimModel& model, const io::IkSetup* setup,
                               const io::MarkerTrajectories& trial) {
  OpenSimIkBinding b;
  // The subject's marker model (bounds, couplers exact, the default pose); its markers are those
  // the IK fits: without a setup every model marker in the trial, weight 1; with one, the setup's
  // applied, weighted marker tasks that the trial has, in the setup's order.
  b.spec = markerIkSpec(subject::markerModel(model));
  MarkerIkSpec& s = b.spec;
  s.markers.clear();
  s.align_base = false;  // OpenSim models have a fixed base; the pelvis coordinates move the body
  auto hasMarker = [&](const std::string& name) {
    return std::any_of(model.markers.begin(), model.markers.end(),
                       [&](const io::OpenSimMarker& mk) { return mk.name == name; });
  };
  if (!setup) {
    for (const io::OpenSimMarker& mk : model.markers)
      if (trialHas(trial, mk.name)) s.markers.push_back({mk.name, mk.name, 1.0});
  } else {
    s.options.accuracy = setup->accuracy;
    for (MarkerIkSpec::Coupler& k : s.couplers) k.weight = setup->constraint_weight;
    for (const io::IkMarkerTaskSpec& t : setup->marker_tasks) {
      if (!hasMarker(t.name)) {
        std::string known;
        for (const auto& mk : model.markers) known += (known.empty() ? "" : ", ") + mk.name;
        throw ParseError(
            setup->source, t.line,
            "IKMarkerTask '" + t.name + "': the model " + model.source + " has no such marker; its markers: " + known);
      }
      if (!t.apply || t.weight <= 0.0) continue;
      if (!trialHas(trial, t.name)) {
        b.warnings.push_back("marker '" + t.name + "' of " + setup->source + " is not in " + trial.source +
                             ": it never counts");
        continue;
      }
      s.markers.push_back({t.name, t.name, t.weight});
    }
    io::MotTable coordinate_file;  // read, with the trial's times, at the first from_file task
    bool have_file = false;
    std::vector<double> times;
    for (const io::IkCoordinateTaskSpec& t : setup->coordinate_tasks) {
      const io::OpenSimCoordinate* c = model.findCoordinate(t.name);
      if (!c)
        throw ParseError(setup->source, t.line, "IKCoordinateTask '" + t.name + "': the model has no such coordinate");
      if (!t.apply || t.weight <= 0.0) continue;
      MarkerIkSpec::CoordinateTask task{t.name, t.weight, {}};
      switch (t.value_type) {
        case io::IkCoordinateTaskSpec::ValueType::DefaultValue: task.values = {c->default_value}; break;
        case io::IkCoordinateTaskSpec::ValueType::ManualValue: task.values = {t.value}; break;
        case io::IkCoordinateTaskSpec::ValueType::FromFile: {
          if (setup->coordinate_file.empty())
            throw ParseError(
                setup->source, t.line,
                "IKCoordinateTask '" + t.name + "': value_type from_file but the setup names no coordinate_file");
          if (!have_file) {
            coordinate_file = io::readMot(setup->resolve(setup->coordinate_file));
            times = io::trialTimes(trial);
            have_file = true;
          }
          const auto col = std::find(coordinate_file.columns.begin(), coordinate_file.columns.end(), t.name);
          if (col == coordinate_file.columns.end())
            throw ParseError(setup->resolve(setup->coordinate_file), 0,
                             "no column '" + t.name + "' for IKCoordinateTask");
          const int ci = static_cast<int>(col - coordinate_file.columns.begin());
          const double scale = coordinate_file.in_degrees && c->rotational ? 1.0 / kDeg : 1.0;
          for (double time : times) task.values.push_back(scale * interpolate(coordinate_file, ci, time));
          break;
        }
      }
      s.coordinate_tasks.push_back(std::move(task));
    }
  }
  if (s.markers.empty())
    throw InvalidArgument("marker IK: no weighted marker of " + model.source + " is in " + trial.source);
  return b;
}

io::MotTable openSimCoordinates(const io::OpenSimModel& model, const MarkerTrialResult& result) {
  std::vector<double> times;
  for (const MarkerFrame& f : result.frames) times.push_back(f.time);
  return openSimCoordinates(model, times, result.configurations);
}

io::MotTable openSimCoordinates(const io::OpenSimModel& model, const std::vector<double>& times,
                                const std::vector<Configuration>& configurations) {
  if (times.size() != configurations.size())
    throw InvalidArgument("openSimCoordinates: " + std::to_string(times.size()) + " times for " +
                          std::to_string(configurations.size()) + " poses");
  io::MotTable t;
  t.name = "Coordinates";
  t.in_degrees = true;
  const auto rows = static_cast<Eigen::Index>(times.size());
  t.values.resize(rows, static_cast<Eigen::Index>(model.coordinates.size()));
  for (const io::OpenSimCoordinate& c : model.coordinates) t.columns.push_back(c.name);
  t.times = times;
  for (Eigen::Index k = 0; k < rows; ++k) {
    const Configuration& q = configurations[static_cast<std::size_t>(k)];
    for (std::size_t c = 0; c < model.coordinates.size(); ++c) {
      const io::OpenSimCoordinate& co = model.coordinates[c];
      t.values(k, static_cast<Eigen::Index>(c)) = q.joints[co.joint.value] * (co.rotational ? kDeg : 1.0);
    }
  }
  return t;
}

io::MotTable markerErrorTable(const MarkerTrialResult& result) {
  io::MotTable t;
  t.name = "Model Marker Errors from IK";
  t.in_degrees = false;
  t.columns = {"total_squared_error", "marker_error_RMS", "marker_error_max"};
  const auto rows = static_cast<Eigen::Index>(result.frames.size());
  t.values.resize(rows, 3);
  for (Eigen::Index k = 0; k < rows; ++k) {
    const MarkerFrame& f = result.frames[static_cast<std::size_t>(k)];
    t.times.push_back(f.time);
    // A held frame (no marker to fit) is an explicit gap: NaN errors.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    t.values(k, 0) = f.gap ? nan : f.total_squared_error;
    t.values(k, 1) = f.gap ? nan : f.rms_error;
    t.values(k, 2) = f.gap ? nan : f.max_error;
  }
  return t;
}

}  // namespace kinetrack::track
