#include "labelling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/io/marker_set.hpp"
#include "kinetrack/io/vsk.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/opensim_ik.hpp"

namespace kinetrack::cli {

bool hasSuffix(const std::string& path, const std::string& suffix) {
  if (path.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), path.rbegin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(b)) == a; });
}

Matrix3d fileToModelAxes(const std::string& path, const std::string& axes, bool model_y_up) {
  bool file_y_up = model_y_up;  // CSV: the model's axes
  if (axes == "y-up")
    file_y_up = true;
  else if (axes == "z-up")
    file_y_up = false;
  else if (hasSuffix(path, ".trc"))
    file_y_up = true;
  else if (hasSuffix(path, ".c3d"))
    file_y_up = false;
  Matrix3d C = Matrix3d::Identity();
  if (file_y_up && !model_y_up) C << 0, 0, 1, 1, 0, 0, 0, 1, 0;  // (x, y, z) → (z, x, y)
  if (!file_y_up && model_y_up) C << 0, 1, 0, 0, 0, 1, 1, 0, 0;  // (x, y, z) → (y, z, x)
  return C;
}

namespace {

std::vector<std::string> restrict(const std::vector<std::string>& all, const std::vector<std::string>& names) {
  if (names.empty()) return all;
  std::vector<std::string> out;
  for (const std::string& n : all)
    if (std::find(names.begin(), names.end(), n) != names.end()) out.push_back(n);
  if (out.size() < 3)
    throw UsageError(
        fmt::format("only {} of the given marker names are markers of the model (need at least 3)", out.size()));
  return out;
}

}  // namespace

LabellingSubject loadLabellingSubject(const LabellingSubjectSpec& spec, const std::vector<std::string>& names) {
  LabellingSubject s;
  if (hasSuffix(spec.model, ".osim")) {
    if (!spec.markerset.empty())
      throw UsageError("--markerset is for built-in models; an .osim model brings its own markers");
    s.osim = io::readOpenSimModel(spec.model);
    s.y_up = true;
    std::vector<std::string> all;
    for (const io::OpenSimMarker& mk : s.osim->markers) all.push_back(mk.name);
    if (all.size() < 3) throw UsageError("model " + spec.model + " has fewer than 3 markers: nothing to label");
    markers::LabellerModel lm = markers::labellerModel(*s.osim, restrict(all, names));
    if (!spec.static_trial.empty()) {
      // The start pose of the initialisation: OpenSim's IK of the static trial's mean markers.
      const io::MarkerTrajectories st =
          track::readMarkerTrial(spec.static_trial, true, track::parseMarkerAxes(spec.marker_axes));
      const std::vector<Vector3d> mean = track::meanMarkerPositions(st, -INFINITY, INFINITY);
      ik::MarkerIk ik = markers::makeMarkerIk(lm);
      std::vector<Vector3d> target(lm.names.size(), Vector3d::Constant(NAN));
      int found = 0;
      for (std::size_t i = 0; i < lm.names.size(); ++i) {
        const auto it = std::find(st.names.begin(), st.names.end(), lm.names[i]);
        if (it != st.names.end()) target[i] = mean[static_cast<std::size_t>(it - st.names.begin())], ++found;
      }
      if (found < 3) throw UsageError("static trial " + spec.static_trial + " has fewer than 3 of the model's markers");
      (void)ik.solve(target);
      lm.reference = ik.state();
    }
    s.description = fmt::format("{} ({} coordinates), {} markers", s.osim->model->name(), s.osim->coordinates.size(),
                                lm.numMarkers());
    s.model = std::make_shared<const markers::LabellerModel>(std::move(lm));
    return s;
  }
  if (spec.markerset.empty()) {
    std::string builtins;
    for (const auto& n : io::builtinMarkerSetNames()) builtins += (builtins.empty() ? "" : ", ") + n;
    throw UsageError("--markerset is required with model '" + spec.model + "' (built-in: " + builtins +
                     ", or a marker-set JSON file)");
  }
  ModelSpec ms{spec.model, spec.height, false, std::nullopt};
  if (!spec.vsk.empty() && !ms.height) ms.height = io::readVsk(spec.vsk).height();
  LoadedModel loaded = loadModelAndWarn(ms);
  if (spec.joint_limits && spec.model == "human66") {
    // Bounded joints: a wrong labelling can no longer turn a foot or a forearm round to fit.
    HumanModelOptions o;
    o.dimensions = HumanDimensions::fromHeight(loaded.height.value_or(1.75));
    o.mass = loaded.mass.value_or(kDefaultBodyMass);
    o.clinical_limits = true;
    loaded.model = makeHuman66(o);
  }
  auto model = std::make_shared<const Model>(loaded.model);
  io::MarkerSet set =
      hasSuffix(spec.markerset, ".json") ? io::readMarkerSet(spec.markerset) : io::builtinMarkerSet(spec.markerset);
  if (set.reference_height > 0.0 && loaded.height) set = io::scaledMarkerSet(set, *loaded.height);
  if (!names.empty()) {
    const std::vector<std::string> keep = restrict(set.names(), names);
    std::erase_if(set.markers, [&](const io::MarkerSetMarker& mk) {
      return std::find(keep.begin(), keep.end(), mk.name) == keep.end();
    });
  }
  Configuration start;
  if (!spec.static_trial.empty()) {
    const io::MarkerTrajectories st =
        track::readMarkerTrial(spec.static_trial, false, track::parseMarkerAxes(spec.marker_axes));
    const track::MarkerCalibration cal = track::calibrateMarkers(model, set, st);
    set = cal.markers;
    if (!cal.poses.empty()) start = cal.poses.front();
    if (!spec.quiet)
      fmt::print("  {:<28} {} frames of {}: marker RMS {:.1f} → {:.1f} mm\n", "static calibration", cal.frames_used,
                 spec.static_trial, cal.rms_before * 1e3, cal.rms_after * 1e3);
  }
  s.description =
      fmt::format("{} ({} DoF), marker set {} ({} markers)", model->name(), model->nv(), set.name, set.markers.size());
  s.model = std::make_shared<const markers::LabellerModel>(markers::labellerModel(model, set, start));
  return s;
}

io::MotTable jointTable(const LabellingSubject& subject, const markers::LabelTrialResult& result) {
  std::vector<double> times;
  for (const markers::LabelledFrame& f : result.frames) times.push_back(f.time);
  if (subject.osim) {
    track::MarkerTrialResult r;
    r.configurations = result.poses;
    for (double t : times) r.frames.push_back(track::MarkerFrame{.time = t});
    return track::openSimCoordinates(*subject.osim, r);
  }
  return app::motTable(*subject.model->model, times, result.poses);
}

}  // namespace kinetrack::cli
