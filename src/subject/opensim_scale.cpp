#include "kinetrack/subject/opensim_scale.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"

namespace kinetrack::subject {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Checks a body name of the setup against the model: false (and a warning, or a ParseError at
// the setup's line) when the model lacks it.
bool checkBody(const io::OpenSimModel& model, const io::ScaleSetup& setup, const std::string& body, int line,
               const std::string& owner, const ScaleFactorOptions& options, std::vector<std::string>& warnings) {
  if (std::find(model.bodies.begin(), model.bodies.end(), body) != model.bodies.end()) return true;
  const std::string message =
      owner + ": body '" + body + "' is not a body of the model (bodies: " + joined(model.bodies) + ")";
  if (options.unknown_body_is_error) throw ParseError(setup.source, line, message);
  warnings.push_back(ParseError(setup.source, line, message + ": ignored").what());
  return false;
}

struct Measurer {
  const io::OpenSimModel& model;
  const io::ScaleSetup& setup;
  const io::MarkerTrajectories& trial;
  std::pair<int, int> range;
  Data data;

  Measurer(const io::OpenSimModel& m, const io::ScaleSetup& s, const io::MarkerTrajectories& t)
      : model(m),
        setup(s),
        trial(t),
        range(frameRange(t.times, s.scaler_time_start, s.scaler_time_end)),
        data(*m.model) {
    framesForwardKinematics(*model.model, data, model.defaultConfiguration());
  }

  Vector3d modelMarker(const std::string& name, const std::string& owner, int line) const {
    for (const io::OpenSimMarker& mk : model.markers)
      if (mk.name == name) return data.frame[mk.frame.value].p;
    throw ParseError(setup.source, line,
                     owner + ": marker '" + name + "' is not a marker of the model " + model.source +
                         " (nor of the marker set given to it)");
  }

  int trialMarker(const std::string& name, const std::string& owner, int line) const {
    const auto it = std::find(trial.names.begin(), trial.names.end(), name);
    if (it == trial.names.end())
      throw ParseError(setup.source, line,
                       owner + ": marker '" + name + "' is not in the static trial " + trial.source);
    return static_cast<int>(it - trial.names.begin());
  }

  MarkerPairDistance pair(const io::ScaleMarkerPair& p, const std::string& owner) const {
    MarkerPairDistance d;
    d.first = p.first;
    d.second = p.second;
    d.model_distance = (modelMarker(p.first, owner, p.line) - modelMarker(p.second, owner, p.line)).norm();
    const int a = trialMarker(p.first, owner, p.line), b = trialMarker(p.second, owner, p.line);
    double sum = 0.0;
    for (int f = range.first; f <= range.second; ++f) {
      if (!trial.isValid(f, a) || !trial.isValid(f, b)) continue;
      sum += (trial.position(f, a) - trial.position(f, b)).norm();
      ++d.frames;
    }
    if (d.frames == 0)
      throw ParseError(setup.source, p.line,
                       owner + ": markers '" + p.first + "' and '" + p.second + "' are never both present in " +
                           trial.source + " within the time range");
    if (!(d.model_distance > 0.0))
      throw ParseError(setup.source, p.line,
                       owner + ": markers '" + p.first + "' and '" + p.second + "' coincide on the model");
    d.trial_distance = sum / d.frames;
    return d;
  }
};

}  // namespace

const Vector3d* OpenSimScaleFactors::find(std::string_view body) const {
  for (const BodyScaleFactors& b : bodies)
    if (b.body == body) return &b.factors;
  return nullptr;
}

std::pair<int, int> frameRange(const std::vector<double>& times, double start, double end) {
  if (times.empty()) throw InvalidArgument("frameRange: the trial has no frames");
  constexpr double tol = 1e-9;
  int first = -1, last = -1;
  for (int i = 0; i < static_cast<int>(times.size()); ++i) {
    const double t = times[static_cast<std::size_t>(i)];
    if (t < start - tol || t > end + tol) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (first >= 0) return {first, last};
  // No frame inside: the one nearest to the range.
  int best = 0;
  double best_gap = std::numeric_limits<double>::infinity();
  for (int i = 0; i < static_cast<int>(times.size()); ++i) {
    const double t = times[static_cast<std::size_t>(i)];
    const double gap = t < start ? start - t : t - end;
    if (gap < best_gap) best_gap = gap, best = i;
  }
  return {best, best};
}

OpenSimScaleFactors computeOpenSimScaleFactors(const io::OpenSimModel& generic, const io::ScaleSetup& setup,
                                               const io::MarkerTrajectories* trial, const ScaleFactorOptions& options) {
  OpenSimScaleFactors out;
  for (const std::string& b : generic.bodies) out.bodies.push_back({b, Vector3d::Ones()});
  auto factorsOf = [&](const std::string& body) -> Vector3d* {
    for (BodyScaleFactors& b : out.bodies)
      if (b.body == body) return &b.factors;
    return nullptr;  // warned about below
  };
  // Every body the setup names is checked, even in a step that is not run.
  for (const io::ScaleMeasurement& m : setup.measurements)
    for (const io::ScaleBodyAxes& b : m.bodies)
      checkBody(generic, setup, b.body, b.line, "Measurement '" + m.name + "'", options, out.warnings);
  for (const io::ManualScale& s : setup.manual_scales)
    checkBody(generic, setup, s.body, s.line, "Scale", options, out.warnings);
  for (const io::ScaleMeasurement& m : setup.measurements)
    out.measurements.push_back({m.name, std::numeric_limits<double>::quiet_NaN(), {}});
  if (!setup.scaler_apply) return out;

  for (const std::string& step : setup.scaling_order) {
    if (step == "measurements") {
      const bool any = std::any_of(setup.measurements.begin(), setup.measurements.end(),
                                   [](const io::ScaleMeasurement& m) { return m.apply; });
      if (!any) continue;
      if (trial == nullptr)
        throw InvalidArgument("the scale setup " + setup.source +
                              " measures marker pairs but no static trial was given");
      const Measurer measurer(generic, setup, *trial);
      out.frames = measurer.range.second - measurer.range.first + 1;
      for (std::size_t i = 0; i < setup.measurements.size(); ++i) {
        const io::ScaleMeasurement& m = setup.measurements[i];
        if (!m.apply) continue;
        const std::string owner = "Measurement '" + m.name + "'";
        if (m.pairs.empty()) throw ParseError(setup.source, m.line, owner + ": no marker pairs");
        MeasurementFactor& r = out.measurements[i];
        double sum = 0.0;
        r.pairs.clear();
        for (const io::ScaleMarkerPair& p : m.pairs) {
          r.pairs.push_back(measurer.pair(p, owner));
          sum += r.pairs.back().trial_distance / r.pairs.back().model_distance;
        }
        r.factor = sum / static_cast<double>(m.pairs.size());
        for (const io::ScaleBodyAxes& b : m.bodies) {
          Vector3d* f = factorsOf(b.body);
          for (int k = 0; k < 3 && f; ++k)
            if (b.axes[static_cast<std::size_t>(k)]) (*f)[k] = r.factor;
        }
      }
    } else if (step == "manualScale") {
      for (const io::ManualScale& s : setup.manual_scales)
        if (Vector3d* f = factorsOf(s.body); f && s.apply) *f = s.factors;
    }
  }
  return out;
}

}  // namespace kinetrack::subject
