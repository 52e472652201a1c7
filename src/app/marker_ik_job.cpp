#include "kinetrack/app/marker_ik_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/io/model/vsk.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/opensim_ik.hpp"

namespace kinetrack::app {
namespace {

// The solved configurations as kinetrack's joint CSV (a held frame is a gap).
void writeJointCsv(const Model& model, const track::MarkerTrialResult& trial, const std::string& path) {
  io::JointCsvWriter w(model, path);
  for (std::size_t k = 0; k < trial.frames.size(); ++k)
    w.write(trial.frames[k].time, trial.configurations[k], trial.frames[k].gap);
  w.commit();
}

// The trial in the model's world (io::readMarkerTrial with the marker axes).
io::MarkerTrajectories readTrial(const MarkerIkOptions& o, const std::string& path, bool model_y_up) {
  return io::readMarkerTrial(path, model_y_up, io::parseMarkerAxes(o.marker_axes));
}

// A built-in model (or URDF) with a marker set, optionally calibrated on a static trial; writes
// the joint trajectory CSV (or a .mot when out ends in .mot).
void solveBuiltin(const MarkerIkOptions& o, MarkerIkResult& r, track::MarkerTrialOptions opt, const Reporter& reporter,
                  const Model* given) {
  io::ModelSpec spec{o.model, o.height, false, o.mass};
  if (!o.vsk.empty()) {
    const io::VskSubject subject = io::readVsk(o.vsk);
    if (!spec.height) spec.height = subject.height();
    if (!spec.mass) spec.mass = subject.mass();
  }
  std::shared_ptr<const Model> model;
  std::optional<double> height = o.height;
  if (given != nullptr) {
    model = std::make_shared<const Model>(*given);
  } else {
    const io::LoadedModel loaded = loadModel(spec, reporter);
    model = std::make_shared<const Model>(loaded.model);
    height = loaded.height;
  }
  const io::MarkerSet set = loadMarkerSet(o.markerset, height, given != nullptr ? model->name() : o.model);
  reporter.say(fmt::format("[1/3] read {}{}\n", r.marker_path,
                           o.static_trial.empty() ? "" : ", calibrating on " + o.static_trial));
  std::optional<io::MarkerTrajectories> static_trial;
  if (!o.static_trial.empty()) static_trial = readTrial(o, o.static_trial, false);
  const io::MarkerTrajectories trial = readTrial(o, r.marker_path, false);
  subject::MarkerSetProblem problem =
      subject::markerSetProblem(model, set, static_trial ? &*static_trial : nullptr, &trial);
  if (problem.calibration) {
    const subject::MarkerCalibration& cal = *problem.calibration;
    r.calibration = MarkerIkResult::Calibration{cal.frames_used, cal.rms_before, cal.rms_after};
    const auto worst = std::max_element(cal.placements.begin(), cal.placements.end(),
                                        [](const auto& a, const auto& b) { return a.moved < b.moved; });
    reporter.say(fmt::format("  {:<28} {} frames: marker RMS {:.1f} → {:.1f} mm; largest move {} {:.0f} mm\n",
                             "static calibration", cal.frames_used, cal.rms_before * 1e3, cal.rms_after * 1e3,
                             worst != cal.placements.end() ? worst->name : "-",
                             worst != cal.placements.end() ? worst->moved * 1e3 : 0.0));
  }
  // Markers of the set the trial lacks never count (warned), rather than failing the run.
  for (const std::string& name : problem.absent)
    reporter.warn(fmt::format("marker '{}' of the marker set is not in {}: it never counts", name, r.marker_path));
  const track::MarkerIkSpec ik_spec = track::markerIkSpec(std::move(problem.model));
  reporter.say(
      fmt::format("[2/3] solving {} markers on {} ({} DoF)\n", ik_spec.markers.size(), model->name(), model->nv()));
  r.trial = track::solveMarkerTrial(ik_spec, trial, opt);
  r.model_name = model->name();
  r.model = ik_spec.model;
  r.summary.coordinates = model->nv();
  r.summary.markers = ik_spec.markers.size();
  std::vector<double> times;
  for (const auto& f : r.trial.frames) times.push_back(f.time);
  r.coordinates = motTable(*model, times, r.trial.configurations);
  if (!o.mot_copy.empty()) io::writeMot(r.coordinates, o.mot_copy);
  if (r.out_path.empty()) return;
  if (hasSuffix(r.out_path, ".mot")) {
    io::writeMot(r.coordinates, r.out_path);
  } else {
    writeJointCsv(*model, r.trial, r.out_path);
  }
}

}  // namespace

MarkerIkResult runMarkerIk(const MarkerIkOptions& o, const Reporter& reporter, const Model* loaded) {
  const auto wall0 = std::chrono::steady_clock::now();
  io::IkSetup setup;
  const bool has_setup = !o.setup.empty();
  if (has_setup) setup = io::readIkSetup(o.setup);
  MarkerIkResult r;
  r.model_path = !o.model.empty() ? o.model : setup.resolve(setup.model_file);
  r.marker_path = !o.markers.empty() ? o.markers : setup.resolve(setup.marker_file);
  r.out_path = !o.out.empty() || !o.setup_output ? o.out : setup.resolve(setup.output_motion_file);
  if (r.model_path.empty() && loaded == nullptr)
    throw InvalidArgument("--model is required (or a setup naming <model_file>)");
  if (r.marker_path.empty()) throw InvalidArgument("--markers is required (or a setup naming <marker_file>)");
  if (r.out_path.empty() && o.setup_output)
    throw InvalidArgument("--out is required (or a setup naming <output_motion_file>)");
  const bool osim_model = loaded == nullptr && hasSuffix(r.model_path, ".osim");
  if (!osim_model && has_setup)
    throw InvalidArgument("--setup needs an OpenSim model (.osim); got '" + r.model_path + "'");
  if (osim_model && (!o.markerset.empty() || !o.static_trial.empty()))
    throw InvalidArgument("--markerset and --static are for built-in models; an .osim model brings its own markers");

  track::MarkerTrialOptions opt;
  opt.time_start = std::isnan(o.time_start) ? (has_setup ? setup.time_start : -INFINITY) : o.time_start;
  opt.time_end = std::isnan(o.time_end) ? (has_setup ? setup.time_end : INFINITY) : o.time_end;
  opt.progress = [&](int done, int total) { reporter.report(done, total); };
  if (osim_model) {
    reporter.say(fmt::format("[1/3] reading {} and {}\n", r.model_path, r.marker_path));
    const io::OpenSimModel osim = io::readOpenSimModel(r.model_path);
    const io::MarkerTrajectories trial = readTrial(o, r.marker_path, true);
    track::OpenSimIkBinding binding = track::bindOpenSimIk(osim, has_setup ? &setup : nullptr, trial);
    for (const std::string& n : osim.notices) reporter.warn(fmt::format("{}: {}", r.model_path, n));
    for (const std::string& w : binding.warnings) reporter.warn(w);
    reporter.say(fmt::format("[2/3] solving {} markers, {} coordinates ({} coordinate tasks), accuracy {:g}\n",
                             binding.spec.markers.size(), osim.coordinates.size(), binding.spec.coordinate_tasks.size(),
                             binding.spec.options.accuracy));
    r.trial = track::solveMarkerTrial(binding.spec, trial, opt);
    r.model_name = osim.model->name();
    r.model = osim.model;
    r.summary.coordinates = static_cast<int>(osim.coordinates.size());
    r.summary.markers = binding.spec.markers.size();
    r.coordinates = track::openSimCoordinates(osim, r.trial);
    if (!o.mot_copy.empty()) io::writeMot(r.coordinates, o.mot_copy);
    if (hasSuffix(r.out_path, ".csv"))  // kinetrack's joint CSV (what `view` and `dynamics id` read)
      writeJointCsv(*osim.model, r.trial, r.out_path);
    else if (!r.out_path.empty())
      io::writeMot(r.coordinates, r.out_path);
  } else {
    solveBuiltin(o, r, opt, reporter, loaded);
  }
  const track::MarkerTrialResult& t = r.trial;
  if (!o.errors.empty()) io::writeMot(track::markerErrorTable(t), o.errors);

  MarkerIkSummary& s = r.summary;
  std::vector<double> rms, us, iters;
  double sum_sq = 0.0;
  long count = 0;
  int worst_frame = -1, worst_marker = -1;
  for (std::size_t k = 0; k < t.frames.size(); ++k) {
    const track::MarkerFrame& f = t.frames[k];
    rms.push_back(f.rms_error);
    us.push_back(f.solve_microseconds);
    iters.push_back(f.iterations);
    sum_sq += f.total_squared_error;
    count += f.markers_used;
    if (f.max_error > s.marker_max_m)
      s.marker_max_m = f.max_error, worst_frame = static_cast<int>(k), worst_marker = f.worst_marker;
    if (f.status == ik::Status::Failed) ++s.failed_frames;
  }
  s.marker_rms_m = count > 0 ? std::sqrt(sum_sq / static_cast<double>(count)) : 0.0;
  const metrics::Summary srms = metrics::summarize(rms), sus = metrics::summarize(us), sit = metrics::summarize(iters);
  s.frames = static_cast<int>(t.frames.size());
  s.worst_marker = worst_marker >= 0 ? t.marker_names[static_cast<std::size_t>(worst_marker)] : "-";
  s.worst_time = worst_frame >= 0 ? t.frames[static_cast<std::size_t>(worst_frame)].time : 0.0;
  s.frame_rms_median_m = srms.median;
  s.frame_rms_p95_m = srms.p95;
  s.frame_rms_max_m = srms.max;
  s.gaps = t.framesWithMissingMarkers();
  s.held_frames = t.gaps();
  s.solve_us_median = sus.median;
  s.solve_us_p95 = sus.p95;
  s.iterations_median = sit.median;
  s.frames_per_second = t.solve_seconds > 0.0 ? s.frames / t.solve_seconds : 0.0;
  s.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!o.summary_json.empty()) writeTextFile(o.summary_json, summaryJson(r, o));
  return r;
}

std::string summaryText(const MarkerIkResult& r) {
  const MarkerIkSummary& s = r.summary;
  const track::MarkerTrialResult& t = r.trial;
  std::string x =
      fmt::format("[3/3] marker IK of {} on {} ({} coordinates)\n", r.marker_path, r.model_name, s.coordinates);
  x +=
      fmt::format("  {:<28} {} ({:.3f} … {:.3f} s)\n", "frames", s.frames, t.frames.front().time, t.frames.back().time);
  x += fmt::format("  {:<28} {:.2f} / {:.2f} / {:.2f} mm (median / p95 / max over frames)\n", "marker RMS",
                   s.frame_rms_median_m * 1e3, s.frame_rms_p95_m * 1e3, s.frame_rms_max_m * 1e3);
  x += fmt::format("  {:<28} {:.2f} mm (every frame and weighted marker)\n", "marker RMS, whole trial",
                   s.marker_rms_m * 1e3);
  x += fmt::format("  {:<28} {:.2f} mm ({} at t = {:.3f} s)\n", "largest marker error", s.marker_max_m * 1e3,
                   s.worst_marker, s.worst_time);
  x += fmt::format("  {:<28} {} frames with a missing marker, {} held (no marker), {} failed\n", "gaps", s.gaps,
                   s.held_frames, s.failed_frames);
  x += fmt::format(
      "  {:<28} {:.1f} / {:.1f} µs (median / p95), {:.0f} frames/s, {:.0f} Gauss–Newton iterations (median)\n",
      "solve time per frame", s.solve_us_median, s.solve_us_p95, s.frames_per_second, s.iterations_median);
  x += fmt::format("  {:<28} {:.3f} s (reading, solving, writing)\n", "wall time", s.wall_seconds);
  return x;
}

std::string summaryJson(const MarkerIkResult& r, const MarkerIkOptions& o) {
  const MarkerIkSummary& s = r.summary;
  nlohmann::json j;
  j["model"] = r.model_path;
  j["markers_file"] = r.marker_path;
  j["setup"] = o.setup;
  j["frames"] = s.frames;
  j["marker_rms_m"] = s.marker_rms_m;
  j["marker_max_m"] = s.marker_max_m;
  j["worst_marker"] = s.worst_marker;
  j["frame_rms_median_m"] = s.frame_rms_median_m;
  j["frame_rms_p95_m"] = s.frame_rms_p95_m;
  j["gaps"] = s.gaps;
  j["held_frames"] = s.held_frames;
  j["failed_frames"] = s.failed_frames;
  j["markers"] = s.markers;
  j["coordinates"] = s.coordinates;
  j["solve_us_median"] = s.solve_us_median;
  j["solve_us_p95"] = s.solve_us_p95;
  j["iterations_median"] = s.iterations_median;
  j["frames_per_second"] = s.frames_per_second;
  j["wall_seconds"] = s.wall_seconds;
  return j.dump(2) + "\n";
}

std::string wroteLine(const MarkerIkResult& r, const MarkerIkOptions& o) {
  return fmt::format("wrote {} ({} rows){}\n", r.out_path, r.summary.frames,
                     o.errors.empty() ? "" : " and " + o.errors);
}

}  // namespace kinetrack::app
