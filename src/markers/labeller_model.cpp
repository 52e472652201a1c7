// The labeller's model of a subject's marker model: marker frames, their links (the rigid
// segments) and the pairs of markers on one link.
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/markers/labeller.hpp"

namespace kinetrack::markers {

LabellerModel labellerModel(subject::MarkerModel model) {
  if (!model.model) throw InvalidArgument("labellerModel: null model");
  const Model& m = *model.model;
  const std::size_t nm = model.markers.size();
  if (nm < 3) throw InvalidArgument("labellerModel: a marker set needs at least 3 markers, got " + std::to_string(nm));
  if (!(model.up.norm() > 0.0) || !model.up.allFinite())
    throw InvalidArgument("labellerModel: 'up' must be a non-zero vector");
  LabellerModel lm;
  static_cast<subject::MarkerModel&>(lm) = std::move(model);
  lm.up.normalize();
  for (std::size_t i = 0; i < nm; ++i) {
    subject::MarkerModel::Marker& mk = lm.markers[i];
    const auto f = m.findFrame(mk.frame);
    if (!f) {
      std::string valid;
      for (const std::string& n : m.frameNames()) valid += (valid.empty() ? "" : ", ") + n;
      throw InvalidArgument("labellerModel: marker '" + mk.name + "' is not a frame of model '" + m.name() +
                            "' (frames: " + valid + ")");
    }
    for (std::size_t j = 0; j < i; ++j)
      if (lm.markers[j].name == mk.name) throw InvalidArgument("labellerModel: marker '" + mk.name + "' given twice");
    if (mk.weight == 0.0) mk.weight = 1.0;  // every marker is labelled, and weighted in the IK
    if (!(mk.weight > 0.0) || !std::isfinite(mk.weight))
      throw InvalidArgument("labellerModel: weight of marker '" + mk.name + "' must be finite and ≥ 0");
    lm.frame_ids.push_back(*f);
    lm.link.push_back(m.frameLink(*f).value);
  }
  for (int i = 0; i < lm.numMarkers(); ++i)
    for (int j = i + 1; j < lm.numMarkers(); ++j)
      if (lm.link[static_cast<std::size_t>(i)] == lm.link[static_cast<std::size_t>(j)]) lm.pairs.push_back({i, j});
  const int n = m.numJoints();
  if (lm.lower.size() == 0 && lm.upper.size() == 0) {
    lm.lower = m.lowerPositionLimits();
    lm.upper = m.upperPositionLimits();
  }
  if (lm.lower.size() != n || lm.upper.size() != n)
    throw InvalidArgument("labellerModel: bounds must have " + std::to_string(n) + " entries");
  if (lm.reference.joints.size() != 0 && lm.reference.joints.size() != n)
    throw InvalidArgument("labellerModel: reference pose has " + std::to_string(lm.reference.joints.size()) +
                          " joints, the model " + std::to_string(n));
  if (lm.reference.joints.size() != n) lm.reference = Configuration(m);
  return lm;
}

}  // namespace kinetrack::markers
