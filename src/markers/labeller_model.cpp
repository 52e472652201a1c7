// Building a LabellerModel: marker frames, their links (the rigid segments) and the pairs of
// markers on one link, from any model with marker frames, an OpenSim model or a marker set.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/markers/labeller.hpp"

namespace kinetrack::markers {

int LabellerModel::find(const std::string& name) const {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

LabellerModel makeLabellerModel(std::shared_ptr<const Model> model, const std::vector<std::string>& names,
                                const Configuration& reference, const Vector3d& up, std::vector<double> weights,
                                VectorXd lower, VectorXd upper) {
  if (!model) throw InvalidArgument("makeLabellerModel: null model");
  const Model& m = *model;
  if (names.size() < 3)
    throw InvalidArgument("makeLabellerModel: a marker set needs at least 3 markers, got " +
                          std::to_string(names.size()));
  if (!weights.empty() && weights.size() != names.size())
    throw InvalidArgument("makeLabellerModel: " + std::to_string(weights.size()) + " weights for " +
                          std::to_string(names.size()) + " markers");
  if (!(up.norm() > 0.0) || !up.allFinite()) throw InvalidArgument("makeLabellerModel: 'up' must be a non-zero vector");
  LabellerModel lm;
  lm.model = model;
  lm.names = names;
  lm.up = up.normalized();
  lm.weights = weights.empty() ? std::vector<double>(names.size(), 1.0) : std::move(weights);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto f = m.findFrame(names[i]);
    if (!f) {
      std::string valid;
      for (const std::string& n : m.frameNames()) valid += (valid.empty() ? "" : ", ") + n;
      throw InvalidArgument("makeLabellerModel: marker '" + names[i] + "' is not a frame of model '" + m.name() +
                            "' (frames: " + valid + ")");
    }
    for (std::size_t j = 0; j < i; ++j)
      if (names[j] == names[i]) throw InvalidArgument("makeLabellerModel: marker '" + names[i] + "' given twice");
    if (!(lm.weights[i] > 0.0) || !std::isfinite(lm.weights[i]))
      throw InvalidArgument("makeLabellerModel: weight of marker '" + names[i] + "' must be finite and > 0");
    lm.frames.push_back(*f);
    lm.link.push_back(m.frameLink(*f).value);
  }
  for (int i = 0; i < lm.numMarkers(); ++i)
    for (int j = i + 1; j < lm.numMarkers(); ++j)
      if (lm.link[static_cast<std::size_t>(i)] == lm.link[static_cast<std::size_t>(j)]) lm.pairs.push_back({i, j});
  const int n = m.numJoints();
  if (lower.size() == 0 && upper.size() == 0) {
    lower = m.lowerPositionLimits();
    upper = m.upperPositionLimits();
  }
  if (lower.size() != n || upper.size() != n)
    throw InvalidArgument("makeLabellerModel: bounds must have " + std::to_string(n) + " entries");
  lm.lower = std::move(lower);
  lm.upper = std::move(upper);
  lm.reference = reference.joints.size() == n ? reference : Configuration(m);
  if (reference.joints.size() != 0 && reference.joints.size() != n)
    throw InvalidArgument("makeLabellerModel: reference pose has " + std::to_string(reference.joints.size()) +
                          " joints, the model " + std::to_string(n));
  return lm;
}

LabellerModel labellerModel(const io::OpenSimModel& osim, const std::vector<std::string>& names) {
  std::vector<std::string> chosen;
  if (names.empty()) {
    for (const io::OpenSimMarker& mk : osim.markers) chosen.push_back(mk.name);
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
      chosen.push_back(n);
    }
  }
  const int nj = osim.model->numJoints();
  VectorXd lower = VectorXd::Constant(nj, -std::numeric_limits<double>::infinity());
  VectorXd upper = VectorXd::Constant(nj, std::numeric_limits<double>::infinity());
  for (const io::OpenSimCoordinate& c : osim.coordinates) {
    if (c.locked) {
      lower[c.joint.value] = upper[c.joint.value] = c.default_value;
    } else if (c.clamped) {
      lower[c.joint.value] = c.range_min;
      upper[c.joint.value] = c.range_max;
    }
  }
  const Vector3d up = osim.gravity.norm() > 0.0 ? Vector3d(-osim.gravity.normalized()) : Vector3d::UnitY();
  LabellerModel lm = makeLabellerModel(osim.model, chosen, osim.defaultConfiguration(), up, {}, lower, upper);
  for (const io::OpenSimCoupler& k : osim.couplers)
    if (k.enforced) lm.couplers.push_back({k.name, k.dependent, k.independent, k.function});
  return lm;
}

LabellerModel labellerModel(std::shared_ptr<const Model> model, const io::MarkerSet& set,
                            const Configuration& reference) {
  if (!model) throw InvalidArgument("labellerModel: null model");
  auto with = std::make_shared<const Model>(io::withMarkers(*model, set));
  std::vector<double> weights;
  for (const io::MarkerSetMarker& mk : set.markers) weights.push_back(mk.weight > 0.0 ? mk.weight : 1.0);
  return makeLabellerModel(with, set.names(), reference, Vector3d::UnitZ(), weights);
}

}  // namespace kinetrack::markers
