#include "kinetrack/app/label_job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "kinetrack/app/scale_job.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/io/model/vsk.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/opensim_ik.hpp"
#include "kinetrack/track/opensim_marker_placer.hpp"

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

// Markers placed by the MarkerPlacer, as the document's new marker set.
std::vector<io::OpenSimMarker> placedMarkers(const track::MarkerPlacement& placement) {
  std::vector<io::OpenSimMarker> moved;
  for (const track::PlacedMarker& p : placement.markers) {
    if (!p.in_trial || p.after == p.before) continue;
    io::OpenSimMarker m;
    m.name = p.name;
    m.body = p.body;
    m.location = p.after;
    moved.push_back(std::move(m));
  }
  return moved;
}

}  // namespace

OpenSimLabellingCalibration calibrateOpenSimForLabelling(const std::string& osim_text, const std::string& osim_path,
                                                         const io::MarkerTrajectories& static_trial) {
  OpenSimLabellingCalibration c;
  c.method = "uniform scale + marker placement";
  const io::OpenSimModel generic = io::parseOpenSimModel(osim_text, osim_path);
  // The model's markers at its default pose against the static trial's mean positions.
  const subject::MarkerModel mm = subject::markerModel(generic);
  const Model& model = *mm.model;
  Data data(model);
  forwardKinematics(model, data, mm.reference);
  const std::vector<Vector3d> mean = subject::meanMarkerPositions(static_trial, -INFINITY, INFINITY, &c.frames);
  std::vector<Vector3d> model_pos, trial_pos;
  for (const subject::MarkerModel::Marker& mk : mm.markers) {
    const auto it = std::find(static_trial.names.begin(), static_trial.names.end(), mk.name);
    if (it == static_trial.names.end()) continue;
    const Vector3d& x = mean[static_cast<std::size_t>(it - static_trial.names.begin())];
    if (!x.allFinite()) continue;
    model_pos.push_back(frameOrigin(model, data, *model.findFrame(mk.frame)));
    trial_pos.push_back(x);
  }
  if (model_pos.size() < 3)
    throw InvalidArgument(fmt::format("static trial {} has {} of the markers of {} (need at least 3)",
                                      static_trial.source, model_pos.size(), osim_path));
  // Heights above the lowest of the shared markers (a foot marker of a standing model), along
  // the model's up: their ratios do not depend on the arms' or the legs' pose, as pair distances
  // across joints do, nor on where a cluster's markers were put on the generic model.
  const Vector3d up = mm.up.normalized();
  std::size_t low = 0;
  for (std::size_t i = 1; i < model_pos.size(); ++i)
    if (model_pos[i].dot(up) < model_pos[low].dot(up)) low = i;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < model_pos.size(); ++i) {
    const double hm = (model_pos[i] - model_pos[low]).dot(up), ht = (trial_pos[i] - trial_pos[low]).dot(up);
    if (hm >= 0.5 && ht > 0.0) ratios.push_back(ht / hm);
  }
  c.scale_markers = static_cast<int>(ratios.size());
  if (!ratios.empty()) {
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
    c.scale = ratios[ratios.size() / 2];
  }
  io::OpenSimModelDocument doc(osim_text, osim_path);
  // A model within 2 % of the subject's size is taken as scaled already (gait2354's
  // subject01_simbody.osim against its static trial: 0.995): the model read above is placed.
  const bool rescale = std::abs(c.scale - 1.0) >= 0.02;
  if (rescale) {
    std::vector<std::pair<std::string, Vector3d>> factors;
    for (const std::string& b : generic.bodies) factors.emplace_back(b, Vector3d::Constant(c.scale));
    (void)doc.scale(factors, 0.0, true);
  } else {
    c.method = "marker placement (the model fits the subject's size)";
  }
  const io::OpenSimModel scaled = rescale ? io::parseOpenSimModel(doc.text(), osim_path) : generic;
  // The static pose by iteratively reweighted IK: a generic marker set puts cluster markers
  // anywhere on their segment (Rajagopal's thigh and shank clusters sit 5–19 cm from where the
  // subject wears them), and weighted like the anatomical markers they pull the pose off (the
  // whole static fit 65 mm RMS). Each round weighs a marker by 1 / (1 + (e / 3 cm)²) of its last
  // error e, so that the pose follows the markers the model places well; then every marker is
  // placed at that pose.
  track::MarkerPlacerOptions po;
  po.move_fixed = true;
  track::MarkerPlacement placement = track::placeOpenSimMarkers(scaled, nullptr, static_trial, po);
  io::IkSetup robust;
  for (int round = 0; round < 4; ++round) {
    robust.marker_tasks.clear();
    for (const track::PlacedMarker& p : placement.markers)
      if (p.in_trial && std::isfinite(p.error)) {
        const double r = p.error / 0.03;
        robust.marker_tasks.push_back({.name = p.name, .apply = true, .weight = std::max(1e-3, 1.0 / (1.0 + r * r))});
      }
    placement = track::placeOpenSimMarkers(scaled, &robust, static_trial, po);
  }
  c.rms_before = placement.rms_error;
  doc.setMarkers(placedMarkers(placement));
  for (const track::PlacedMarker& p : placement.markers) c.markers_placed += p.in_trial;
  c.osim = doc.text();
  return c;
}

LabellingSubject loadLabellingSubject(const LabellingSubjectOptions& spec, const std::vector<std::string>& names,
                                      const Reporter& reporter) {
  LabellingSubject s;
  if (hasSuffix(spec.model, ".osim")) {
    if (!spec.markerset.empty() && !hasSuffix(spec.markerset, ".xml"))
      throw InvalidArgument("--markerset " + spec.markerset +
                            ": an .osim model takes an OpenSim MarkerSet file (.xml), which replaces its markers "
                            "of the same names and adds the others");
    s.y_up = true;
    // The model's text, with the markers of an OpenSim MarkerSet file when one is given.
    std::string osim_text;
    if (!spec.markerset.empty()) {
      io::OpenSimModelDocument doc = io::OpenSimModelDocument::read(spec.model);
      doc.setMarkers(io::readOpenSimMarkerSet(spec.markerset));
      osim_text = doc.text();
    }
    std::optional<io::MarkerTrajectories> static_trial;
    if (!spec.static_trial.empty())
      static_trial = io::readMarkerTrial(spec.static_trial, true, io::parseMarkerAxes(spec.marker_axes));
    if (!spec.scale_setup.empty()) {
      // OpenSim's Scale tool: its measurements, then its marker placement on the static trial.
      ScaleOptions so;
      so.setup = spec.scale_setup;
      so.model = spec.model;
      so.markers = spec.static_trial;
      so.marker_axes = spec.marker_axes;
      so.marker_set = spec.markerset;
      so.setup_outputs = false;
      ScaleResult sr = runScale(so);
      OpenSimLabellingCalibration c;
      c.method = "Scale tool (" + spec.scale_setup + ")";
      if (sr.placement) {
        c.frames = sr.placement->frames;
        c.rms_before = sr.placement->rms_error;
        for (const track::PlacedMarker& p : sr.placement->markers) c.markers_placed += p.in_trial && !p.fixed;
      }
      c.osim = std::move(sr.osim);
      s.calibration = std::move(c);
    } else if (static_trial) {
      s.calibration = calibrateOpenSimForLabelling(
          osim_text.empty() ? io::OpenSimModelDocument::read(spec.model).text() : osim_text, spec.model, *static_trial);
    }
    s.osim = s.calibration       ? io::parseOpenSimModel(s.calibration->osim, spec.model)
             : osim_text.empty() ? io::readOpenSimModel(spec.model)
                                 : io::parseOpenSimModel(osim_text, spec.model);
    std::vector<std::string> all;
    for (const io::OpenSimMarker& mk : s.osim->markers) all.push_back(mk.name);
    if (all.size() < 3) throw InvalidArgument("model " + spec.model + " has fewer than 3 markers: nothing to label");
    subject::MarkerModel mm = subject::markerModel(*s.osim, restrict(all, names));
    if (static_trial)  // the start pose of the initialisation: the static trial's
      mm.reference = subject::staticPose(mm, *static_trial);
    markers::LabellerModel lm = markers::labellerModel(std::move(mm));
    s.description = fmt::format("{} ({} coordinates), {} markers", s.osim->model->name(), s.osim->coordinates.size(),
                                lm.numMarkers());
    if (s.calibration && !spec.quiet)
      reporter.say(
          fmt::format("  {:<28} {}: scale {:.3f} (median of {} marker heights), {} markers placed, static RMS {:.1f} "
                      "mm, {} frames\n",
                      "static calibration", s.calibration->method, s.calibration->scale, s.calibration->scale_markers,
                      s.calibration->markers_placed, s.calibration->rms_before * 1e3, s.calibration->frames));
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
      "ik_rms_mm,microseconds,ik_microseconds,swaps_corrected,unsure,min_confidence\n";
  for (const markers::LabelledFrame& f : r.frames)
    s += fmt::format("{},{:.6f},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.1f},{:.1f},{},{},{:.4f}\n", f.frame_number,
                     f.time, f.points, f.invalid_points, f.assigned, f.gaps, f.ghosts, f.rigid_rejections, f.relabelled,
                     markers::toString(f.state), ik::toString(f.ik_status), f.ik_iterations, f.ik_rms * 1e3,
                     f.microseconds, f.ik_microseconds, f.swaps_corrected, f.unsure, f.min_confidence);
  return s;
}

std::string labelConfidenceCsv(const markers::LabelTrialResult& r) {
  const std::size_t nm = r.names.size();
  if (r.confidence.size() != r.frames.size() * nm)
    throw InvalidArgument(fmt::format("labelConfidenceCsv: {} confidences for {} frames × {} markers",
                                      r.confidence.size(), r.frames.size(), nm));
  std::string s = "frame,time";
  for (const std::string& n : r.names) s += "," + n;
  s += "\n";
  for (std::size_t f = 0; f < r.frames.size(); ++f) {
    s += fmt::format("{},{:.6f}", r.frames[f].frame_number, r.frames[f].time);
    for (std::size_t i = 0; i < nm; ++i) {
      const float c = r.confidence[f * nm + i];  // a gap (a dropped unsure label too) is empty
      s += std::isfinite(c) && r.point(static_cast<int>(f), static_cast<int>(i)) >= 0 ? fmt::format(",{:.4f}", c)
                                                                                      : std::string(",");
    }
    s += "\n";
  }
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
  result.trial = markers::labelTrial(subject.model, cloud, cfg.labeller, opt);
  const markers::LabelTrialResult& r = result.trial;

  // Outputs: the labelled TRC in the file's axes and units, the report, the angles.
  result.labelled = r.trajectories(file_cloud);
  const std::string units = hasSuffix(cfg.input, ".csv") ? cfg.units : "mm";
  if (!cfg.out.empty())
    io::writeTrc(result.labelled, cfg.out, {.units = units, .frame_numbers = file_cloud.frame_numbers});
  if (!cfg.report.empty()) writeTextFile(cfg.report, labelReportCsv(r));
  if (!cfg.confidence.empty()) writeTextFile(cfg.confidence, labelConfidenceCsv(r));
  if (!cfg.ik_out.empty()) io::writeMot(jointTable(subject, r), cfg.ik_out);
  if (!cfg.model_out.empty()) {
    if (!subject.calibration)
      throw InvalidArgument("--model-out: only an .osim model calibrated on a --static trial is written");
    io::writeFileAtomically(cfg.model_out, subject.calibration->osim);
  }

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
    s.swaps_corrected += f.swaps_corrected;
    s.unsure_labels += f.unsure;
    s.min_confidence = std::min(s.min_confidence, f.min_confidence);
  }
  s.unsure_frames = r.unsureFrames();
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
  t += fmt::format("  {:<28} {} ({} labels below confidence {:.2f}{}; lowest confidence {:.3f})\n", "unsure frames",
                   s.unsure_frames, s.unsure_labels, cfg.labeller.unsure_threshold,
                   cfg.labeller.drop_unsure ? ", left out of the output" : "", s.min_confidence);
  t += fmt::format("  {:<28} {}\n", "swaps corrected", s.swaps_corrected);
  t += fmt::format("  {:<28} {:.2f} / {:.2f} mm (median / p95 over frames)\n", "IK marker RMS", s.ik_rms_median_m * 1e3,
                   s.ik_rms_p95_m * 1e3);
  t += fmt::format("  {:<28} {:.1f} / {:.1f} µs (median / p95, tracked frames: labelling + IK)\n", "time per frame",
                   s.frame_us_median, s.frame_us_p95);
  t += fmt::format("  {:<28} {:.1f} / {:.1f} µs (median / p95, without the IK)\n", "labelling alone",
                   s.labelling_us_median, s.labelling_us_p95);
  t += fmt::format("  {:<28} {:.3f} s\n", "wall time", s.wall_seconds);
  t += fmt::format("wrote {} ({} rows){}{}{}\n", cfg.out, s.frames, cfg.report.empty() ? "" : ", " + cfg.report,
                   cfg.ik_out.empty() ? "" : ", " + cfg.ik_out, cfg.confidence.empty() ? "" : ", " + cfg.confidence);
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
  j["unsure_frames"] = s.unsure_frames;
  j["unsure_labels"] = s.unsure_labels;
  j["swaps_corrected"] = s.swaps_corrected;
  j["min_confidence"] = s.min_confidence;
  j["unsure_threshold"] = cfg.labeller.unsure_threshold;
  j["drop_unsure"] = cfg.labeller.drop_unsure;
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
