#include "kinetrack/app/label_job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/vsk.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/opensim_ik.hpp"

namespace kinetrack::app {

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
  if (out.size() < 3) {
    std::vector<std::string> unknown;
    for (const std::string& n : names)
      if (std::find(all.begin(), all.end(), n) == all.end()) unknown.push_back(n);
    throw InvalidArgument(
        fmt::format("only {} of the given marker names are markers of the model (need at least 3; not markers: {})",
                    out.size(), fmt::join(unknown, ", ")));
  }
  return out;
}

}  // namespace

LabellingSubject loadLabellingSubject(const LabellingSubjectOptions& spec, const std::vector<std::string>& names,
                                      const Reporter& reporter) {
  LabellingSubject s;
  if (hasSuffix(spec.model, ".osim")) {
    if (!spec.markerset.empty())
      throw InvalidArgument("--markerset is for built-in models; an .osim model brings its own markers");
    s.osim = io::readOpenSimModel(spec.model);
    s.y_up = true;
    std::vector<std::string> all;
    for (const io::OpenSimMarker& mk : s.osim->markers) all.push_back(mk.name);
    if (all.size() < 3) throw InvalidArgument("model " + spec.model + " has fewer than 3 markers: nothing to label");
    subject::MarkerModel mm = subject::markerModel(*s.osim, restrict(all, names));
    if (!spec.static_trial.empty())  // the start pose of the initialisation: the static trial's
      mm.reference =
          subject::staticPose(mm, io::readMarkerTrial(spec.static_trial, true, io::parseMarkerAxes(spec.marker_axes)));
    markers::LabellerModel lm = markers::labellerModel(std::move(mm));
    s.description = fmt::format("{} ({} coordinates), {} markers", s.osim->model->name(), s.osim->coordinates.size(),
                                lm.numMarkers());
    s.model = std::make_shared<const markers::LabellerModel>(std::move(lm));
    return s;
  }
  if (spec.markerset.empty()) {
    std::string builtins;
    for (const auto& n : io::builtinMarkerSetNames()) builtins += (builtins.empty() ? "" : ", ") + n;
    throw InvalidArgument("--markerset is required with model '" + spec.model + "' (built-in: " + builtins +
                          ", or a marker-set JSON file)");
  }
  io::ModelSpec ms{spec.model, spec.height, false, std::nullopt};
  if (!spec.vsk.empty() && !ms.height) ms.height = io::readVsk(spec.vsk).height();
  io::LoadedModel loaded = loadModel(ms, reporter);
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
  std::optional<io::MarkerTrajectories> static_trial;
  if (!spec.static_trial.empty())
    static_trial = io::readMarkerTrial(spec.static_trial, false, io::parseMarkerAxes(spec.marker_axes));
  subject::MarkerSetProblem problem = subject::markerSetProblem(model, set, static_trial ? &*static_trial : nullptr);
  if (problem.calibration && !spec.quiet)
    reporter.say(fmt::format("  {:<28} {} frames of {}: marker RMS {:.1f} → {:.1f} mm\n", "static calibration",
                             problem.calibration->frames_used, spec.static_trial, problem.calibration->rms_before * 1e3,
                             problem.calibration->rms_after * 1e3));
  s.description =
      fmt::format("{} ({} DoF), marker set {} ({} markers)", model->name(), model->nv(), set.name, set.markers.size());
  s.model = std::make_shared<const markers::LabellerModel>(markers::labellerModel(std::move(problem.model)));
  return s;
}

io::MotTable jointTable(const LabellingSubject& subject, const markers::LabelTrialResult& result) {
  std::vector<double> times;
  for (const markers::LabelledFrame& f : result.frames) times.push_back(f.time);
  if (subject.osim) {
    track::MarkerTrialResult r;
    r.configurations = result.poses;
    for (double t : times) r.frames.emplace_back().time = t;
    return track::openSimCoordinates(*subject.osim, r);
  }
  return motTable(*subject.model->model, times, result.poses);
}

namespace {

// The input as a point cloud in its file's axes (m), and the marker names it tells about (a
// labelled file with --strip-labels: its labels restrict the set to the markers worn).
io::PointCloud readInput(const LabelOptions& cfg, std::vector<std::string>& worn) {
  const std::string& path = cfg.input;
  if (hasSuffix(path, ".csv")) {
    if (cfg.strip_labels) throw InvalidArgument("--strip-labels is for labelled .trc/.c3d inputs; a CSV has no labels");
    const double scale = cfg.units == "mm" ? 1e-3 : 1.0;
    return io::readPointCsv(path, scale);
  }
  if (hasSuffix(path, ".trc") && !cfg.strip_labels)
    throw InvalidArgument("'" + path + "' is a labelled TRC: pass --strip-labels to label its points afresh");
  if (!hasSuffix(path, ".trc") && !hasSuffix(path, ".c3d"))
    throw InvalidArgument("--input: '" + path + "': expected points.csv, trial.c3d or trial.trc");
  // A C3D's labels are ignored (every point, unlabelled ones too); with --strip-labels they only
  // say which markers are worn.
  io::MarkerTrajectories t;
  if (cfg.strip_labels) {
    t = hasSuffix(path, ".c3d") ? io::readC3dMarkers(path) : io::readTrc(path, {.y_up = false});
    worn = t.names;
  } else {
    io::C3dOptions o;
    o.keep_unlabeled = true;
    t = io::readC3dMarkers(path, o);
  }
  return io::stripLabels(t);
}

}  // namespace

std::string labelReportCsv(const markers::LabelTrialResult& r) {
  std::string s =
      "frame,time,points,invalid_points,assigned,gaps,ghosts,rigid_rejections,relabelled,state,ik_status,ik_iterations,"
      "ik_rms_mm,"
      "microseconds,ik_microseconds\n";
  for (const markers::LabelledFrame& f : r.frames)
    s += fmt::format("{},{:.6f},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.1f},{:.1f}\n", f.frame_number, f.time, f.points,
                     f.invalid_points, f.assigned, f.gaps, f.ghosts, f.rigid_rejections, f.relabelled,
                     markers::toString(f.state), ik::toString(f.ik_status), f.ik_iterations, f.ik_rms * 1e3,
                     f.microseconds, f.ik_microseconds);
  return s;
}

LabelResult runLabel(const LabelOptions& cfg, const Reporter& reporter) {
  const auto wall0 = std::chrono::steady_clock::now();
  reporter.say(fmt::format("[1/3] reading {} and {}\n", cfg.subject.model, cfg.input));
  std::vector<std::string> worn;
  const io::PointCloud file_cloud = readInput(cfg, worn);
  std::vector<std::string> names = cfg.marker_names;
  if (names.empty()) names = worn;
  LabelResult result;
  result.subject = loadLabellingSubject(cfg.subject, names, reporter);
  const LabellingSubject& subject = result.subject;
  const markers::LabellerModel& lm = *subject.model;
  // Points in the model's world for the labeller; the output keeps the file's points.
  const Matrix3d C = fileToModelAxes(cfg.input, cfg.subject.marker_axes, subject.y_up);
  io::PointCloud cloud = file_cloud;
  for (Vector3d& p : cloud.points) p = C * p;
  LabelSummary& s = result.summary;
  for (int d : cloud.dropped) s.points_dropped_nan += d;
  s.points = static_cast<long>(cloud.points.size());
  reporter.say(fmt::format("  {:<28} {}\n", "model", subject.description) +
               fmt::format("  {:<28} {} frames, {} points ({:.1f} per frame), {} with a NaN coordinate dropped\n",
                           "input", cloud.numFrames(), s.points,
                           cloud.numFrames() ? static_cast<double>(s.points) / cloud.numFrames() : 0.0,
                           s.points_dropped_nan));
  if (cloud.numFrames() == 0) throw InvalidArgument("'" + cfg.input + "' has no frame");

  reporter.say(fmt::format("[2/3] labelling {} markers\n", lm.numMarkers()));
  markers::LabelTrialOptions opt;
  opt.progress = [&](int done, int total) { reporter.report(done, total); };
  result.trial = markers::labelTrial(subject.model, cloud, {}, opt);
  const markers::LabelTrialResult& r = result.trial;

  // Outputs: the labelled TRC in the file's axes and units, the report, the angles.
  result.labelled = r.trajectories(file_cloud);
  const std::string units = hasSuffix(cfg.input, ".csv") ? cfg.units : "mm";
  if (!cfg.out.empty())
    io::writeTrc(result.labelled, cfg.out, {.units = units, .frame_numbers = file_cloud.frame_numbers});
  if (!cfg.report.empty()) writeTextFile(cfg.report, labelReportCsv(r));
  if (!cfg.ik_out.empty()) io::writeMot(jointTable(subject, r), cfg.ik_out);

  std::vector<double> assigned, ghosts, rms, us, label_us;
  for (const markers::LabelledFrame& f : r.frames) {
    assigned.push_back(f.assigned);
    ghosts.push_back(f.ghosts);
    if (std::isfinite(f.ik_rms)) rms.push_back(f.ik_rms);
    if (f.state == markers::TrackState::Tracking) {
      us.push_back(f.microseconds);
      label_us.push_back(f.microseconds - f.ik_microseconds);
    }
    s.gaps += f.gaps;
    s.rigid_rejections += f.rigid_rejections;
    s.relabelled += f.relabelled;
  }
  const metrics::Summary sa = metrics::summarize(assigned), sg = metrics::summarize(ghosts),
                         sr = metrics::summarize(rms), su = metrics::summarize(us), sl = metrics::summarize(label_us);
  s.frames = static_cast<int>(r.frames.size());
  s.markers = lm.numMarkers();
  s.labelled_median = sa.median;
  s.labelled_min = assigned.empty() ? 0.0 : *std::min_element(assigned.begin(), assigned.end());
  s.labelled_max = sa.max;
  s.ghosts_median = sg.median;
  s.ghosts_max = sg.max;
  s.initialisations = r.initialisations();
  s.lost_frames = r.lostFrames();
  s.ik_rms_median_m = sr.median;
  s.ik_rms_p95_m = sr.p95;
  s.frame_us_median = su.median;
  s.frame_us_p95 = su.p95;
  s.labelling_us_median = sl.median;
  s.labelling_us_p95 = sl.p95;
  s.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!cfg.summary_json.empty()) writeTextFile(cfg.summary_json, summaryJson(result, cfg));
  return result;
}

std::string summaryText(const LabelResult& r, const LabelOptions& cfg) {
  const LabelSummary& s = r.summary;
  std::string t = fmt::format("[3/3] labelled {} frames of {}\n", s.frames, cfg.input);
  t += fmt::format("  {:<28} {:.0f} / {:.0f} / {:.0f} of {} markers (median / min / max per frame)\n", "labelled",
                   s.labelled_median, s.labelled_min, s.labelled_max, s.markers);
  t += fmt::format("  {:<28} {} marker-frames\n", "gaps", s.gaps);
  t += fmt::format("  {:<28} {:.0f} / {:.0f} per frame (median / max)\n", "ghosts (unlabelled points)", s.ghosts_median,
                   s.ghosts_max);
  t += fmt::format("  {:<28} {} (initialisations {}, frames lost {})\n", "track",
                   s.lost_frames == 0 ? "kept" : "lost at times", s.initialisations, s.lost_frames);
  t += fmt::format("  {:<28} {}\n", "rigid-segment rejections", s.rigid_rejections);
  t += fmt::format("  {:<28} {:.2f} / {:.2f} mm (median / p95 over frames)\n", "IK marker RMS", s.ik_rms_median_m * 1e3,
                   s.ik_rms_p95_m * 1e3);
  t += fmt::format("  {:<28} {:.1f} / {:.1f} µs (median / p95, tracked frames: labelling + IK)\n", "time per frame",
                   s.frame_us_median, s.frame_us_p95);
  t += fmt::format("  {:<28} {:.1f} / {:.1f} µs (median / p95, without the IK)\n", "labelling alone",
                   s.labelling_us_median, s.labelling_us_p95);
  t += fmt::format("  {:<28} {:.3f} s\n", "wall time", s.wall_seconds);
  t += fmt::format("wrote {} ({} rows){}{}\n", cfg.out, s.frames, cfg.report.empty() ? "" : ", " + cfg.report,
                   cfg.ik_out.empty() ? "" : ", " + cfg.ik_out);
  return t;
}

std::string summaryJson(const LabelResult& r, const LabelOptions& cfg) {
  const LabelSummary& s = r.summary;
  nlohmann::json j;
  j["model"] = cfg.subject.model;
  j["input"] = cfg.input;
  j["frames"] = s.frames;
  j["markers"] = s.markers;
  j["marker_names"] = r.subject.model->names();
  j["labelled_median"] = s.labelled_median;
  j["labelled_min"] = s.labelled_min;
  j["gaps"] = s.gaps;
  j["ghosts_median"] = s.ghosts_median;
  j["initialisations"] = s.initialisations;
  j["lost_frames"] = s.lost_frames;
  j["rigid_rejections"] = s.rigid_rejections;
  j["relabelled"] = s.relabelled;
  j["ik_rms_median_m"] = s.ik_rms_median_m;
  j["ik_rms_p95_m"] = s.ik_rms_p95_m;
  j["frame_us_median"] = s.frame_us_median;
  j["frame_us_p95"] = s.frame_us_p95;
  j["labelling_us_median"] = s.labelling_us_median;
  j["points_dropped_nan"] = s.points_dropped_nan;
  j["wall_seconds"] = s.wall_seconds;
  return j.dump(2) + "\n";
}

}  // namespace kinetrack::app
