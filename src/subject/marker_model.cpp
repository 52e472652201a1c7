// The marker model of a subject, from an OpenSim model or from a kinetrack model with a marker
// set; the marker IK it states and the static pose it takes.
#include "kinetrack/subject/marker_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/subject/marker_calibration.hpp"

namespace kinetrack::subject {

int MarkerModel::find(const std::string& name) const {
  const auto it = std::find_if(markers.begin(), markers.end(), [&](const Marker& m) { return m.name == name; });
  return it == markers.end() ? -1 : static_cast<int>(it - markers.begin());
}

std::vector<std::string> MarkerModel::names() const {
  std::vector<std::string> out;
  out.reserve(markers.size());
  for (const Marker& m : markers) out.push_back(m.name);
  return out;
}

MarkerModel markerModel(const io::OpenSimModel& osim, const std::vector<std::string>& names) {
  MarkerModel mm;
  mm.model = osim.model;
  if (names.empty()) {
    for (const io::OpenSimMarker& mk : osim.markers) mm.markers.push_back({mk.name, mk.name, 1.0});
  } else {
    for (const std::string& n : names) {
      const bool found = std::any_of(osim.markers.begin(), osim.markers.end(),
                                     [&](const io::OpenSimMarker& mk) { return mk.name == n; });
      if (!found) {
        std::string valid;
        for (const io::OpenSimMarker& mk : osim.markers) valid += (valid.empty() ? "" : ", ") + mk.name;
        throw InvalidArgument("marker '" + n + "' is not a marker of the model " + osim.source +
                              " (its markers: " + valid + ")");
      }
      mm.markers.push_back({n, n, 1.0});
    }
  }
  const int nj = osim.model->numJoints();
  mm.lower = VectorXd::Constant(nj, -std::numeric_limits<double>::infinity());
  mm.upper = VectorXd::Constant(nj, std::numeric_limits<double>::infinity());
  for (const io::OpenSimCoordinate& c : osim.coordinates) {
    if (c.locked) {
      mm.lower[c.joint.value] = mm.upper[c.joint.value] = c.default_value;
    } else if (c.clamped) {
      mm.lower[c.joint.value] = c.range_min;
      mm.upper[c.joint.value] = c.range_max;
    }
  }
  for (const io::OpenSimCoupler& k : osim.couplers)
    if (k.enforced)
      mm.couplers.push_back({k.name, k.dependent, k.independent, k.function, std::numeric_limits<double>::infinity()});
  mm.reference = osim.defaultConfiguration();
  mm.up = osim.model->up();  // −gravity, as the reader set it (+Y without gravity)
  return mm;
}

MarkerModel markerModel(std::shared_ptr<const Model> model, const io::MarkerSet& set, const Configuration& reference) {
  if (!model) throw InvalidArgument("markerModel: no model");
  MarkerModel mm;
  auto with = std::make_shared<const Model>(io::withMarkers(*model, set));
  for (const io::MarkerSetMarker& m : set.markers) mm.markers.push_back({m.name, m.name, m.weight});
  const int n = with->numJoints();
  if (reference.joints.size() != 0 && reference.joints.size() != n)
    throw InvalidArgument("markerModel: reference pose has " + std::to_string(reference.joints.size()) +
                          " joints, the model " + std::to_string(n));
  mm.lower = with->lowerPositionLimits();
  mm.upper = with->upperPositionLimits();
  mm.reference = reference.joints.size() == n ? reference : Configuration(*with);
  mm.model = std::move(with);
  return mm;
}

ik::MarkerIk makeMarkerIk(const MarkerModel& model, const ik::MarkerIkOptions& options) {
  if (!model.model) throw InvalidArgument("marker IK: no model");
  const Model& m = *model.model;
  ik::MarkerIk ik(model.model, options);
  for (const MarkerModel::Marker& mk : model.markers) {
    if (!m.findFrame(mk.frame))
      throw InvalidArgument("marker IK: marker '" + mk.name + "': model '" + m.name() + "' has no frame '" + mk.frame +
                            "'");
    ik.tasks().addMarker(mk.frame, mk.weight);
  }
  for (const MarkerModel::Coupler& c : model.couplers)
    ik.tasks().addCoupler(c.name, c.dependent, c.independent, c.function, c.weight);
  if (model.lower.size() > 0 || model.upper.size() > 0) ik.bounds().set(model.lower, model.upper);
  ik.setState(model.reference.joints.size() == m.numJoints() ? model.reference : Configuration(m));
  return ik;
}

Configuration staticPose(const MarkerModel& model, const io::MarkerTrajectories& static_trial) {
  const std::vector<Vector3d> mean = meanMarkerPositions(static_trial, -INFINITY, INFINITY);
  ik::MarkerIk ik = makeMarkerIk(model);
  std::vector<Vector3d> target(model.markers.size(), Vector3d::Constant(NAN));
  int found = 0;
  for (std::size_t i = 0; i < model.markers.size(); ++i) {
    const auto it = std::find(static_trial.names.begin(), static_trial.names.end(), model.markers[i].name);
    if (it != static_trial.names.end())
      target[i] = mean[static_cast<std::size_t>(it - static_trial.names.begin())], ++found;
  }
  if (found < 3)
    throw InvalidArgument("static trial " + static_trial.source + " has fewer than 3 of the model's markers");
  (void)ik.solve(target);
  return ik.state();
}

}  // namespace kinetrack::subject
