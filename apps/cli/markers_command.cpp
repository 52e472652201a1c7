// `kinetrack markers ik`: marker-based IK of a trial (TRC or C3D) on an OpenSim model (.osim, with
// an optional Setup_IK.xml: marker and coordinate tasks, time range, accuracy) — the problem
// OpenSim's IK tool solves — writing the coordinates as an OpenSim .mot (same columns and order,
// degrees), OpenSim's marker-error table (.sto) and a summary (table and JSON).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/c3d.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/io/marker_set.hpp"
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/io/opensim_model.hpp"
#include "kinetrack/io/opensim_setup.hpp"
#include "kinetrack/io/vsk.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/track/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/opensim_ik.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

/// Registers `kinetrack markers label` (label_command.cpp) under `markers`.
void addMarkersLabelCommand(CLI::App& markers_group, Action& action);

namespace {

struct MarkersIkConfig {
  std::string model, markers, setup, out, errors, summary_json, plot, reference;
  // Built-in models: marker set, static calibration trial, subject file.
  std::string markerset, static_trial, vsk;
  std::optional<double> height, mass;
  std::string marker_axes = "auto";  // auto | y-up | z-up
  double time_start = std::nan(""), time_end = std::nan("");
  bool quiet = false;
};

bool endsWith(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// The trial in the model's world (track::readMarkerTrial with --marker-axes).
io::MarkerTrajectories readTrial(const MarkersIkConfig& cfg, const std::string& path, bool model_y_up) {
  return track::readMarkerTrial(path, model_y_up, track::parseMarkerAxes(cfg.marker_axes));
}

// What the summary needs from either kind of model.
struct SolvedTrial {
  track::MarkerTrialResult result;
  std::string model_name;
  int coordinates = 0;
  std::size_t markers = 0;
};

// A built-in model (or URDF) with a marker set, optionally calibrated on a static trial; writes
// the joint trajectory CSV (or a .mot with --out *.mot).
SolvedTrial solveBuiltin(const MarkersIkConfig& cfg, const std::string& marker_path, const std::string& out_path,
                         track::MarkerTrialOptions opt) {
  ModelSpec spec{cfg.model, cfg.height, false, cfg.mass};
  if (!cfg.vsk.empty()) {
    const io::VskSubject subject = io::readVsk(cfg.vsk);
    if (!spec.height) spec.height = subject.height();
    if (!spec.mass) spec.mass = subject.mass();
  }
  const LoadedModel loaded = loadModelAndWarn(spec);
  auto model = std::make_shared<const Model>(loaded.model);
  const io::MarkerSet set = loadMarkerSet(cfg.markerset, loaded.height, cfg.model);
  fmt::print("[1/3] read {}{}\n", marker_path, cfg.static_trial.empty() ? "" : ", calibrating on " + cfg.static_trial);
  std::fflush(stdout);
  std::optional<io::MarkerTrajectories> static_trial;
  if (!cfg.static_trial.empty()) static_trial = readTrial(cfg, cfg.static_trial, false);
  const io::MarkerTrajectories trial = readTrial(cfg, marker_path, false);
  const track::MarkerSetProblem problem =
      track::markerSetProblem(model, set, trial, static_trial ? &*static_trial : nullptr);
  if (problem.calibration) {
    const track::MarkerCalibration& cal = *problem.calibration;
    const auto worst = std::max_element(cal.placements.begin(), cal.placements.end(),
                                        [](const auto& a, const auto& b) { return a.moved < b.moved; });
    fmt::print("  {:<28} {} frames: marker RMS {:.1f} → {:.1f} mm; largest move {} {:.0f} mm\n", "static calibration",
               cal.frames_used, cal.rms_before * 1e3, cal.rms_after * 1e3,
               worst != cal.placements.end() ? worst->name : "-",
               worst != cal.placements.end() ? worst->moved * 1e3 : 0.0);
  }
  // Markers of the set the trial lacks never count (warned), rather than failing the run.
  for (const std::string& name : problem.absent)
    fmt::print(stderr, "kinetrack: warning: marker '{}' of the marker set is not in {}: it never counts\n", name,
               marker_path);
  const track::MarkerIkSpec& ik_spec = problem.spec;
  fmt::print("[2/3] solving {} markers on {} ({} DoF)\n", ik_spec.markers.size(), model->name(), model->nv());
  std::fflush(stdout);
  SolvedTrial s{track::solveMarkerTrial(ik_spec, trial, opt), model->name(), model->nv(), ik_spec.markers.size()};
  std::vector<double> times;
  for (const auto& f : s.result.frames) times.push_back(f.time);
  if (endsWith(out_path, ".mot")) {
    io::writeMot(app::motTable(*model, times, s.result.configurations), out_path);
  } else {
    // The plot reads a .mot: written beside the PNG.
    if (!cfg.plot.empty()) io::writeMot(app::motTable(*model, times, s.result.configurations), cfg.plot + ".mot");
    io::JointCsvWriter w(*model, out_path);
    for (std::size_t k = 0; k < times.size(); ++k)
      w.write(times[k], s.result.configurations[k], s.result.frames[k].held);
    w.commit();
  }
  return s;
}

int runMarkersIk(const MarkersIkConfig& cfg) {
  const auto wall0 = std::chrono::steady_clock::now();
  io::IkSetup setup;
  const bool has_setup = !cfg.setup.empty();
  if (has_setup) setup = io::readIkSetup(cfg.setup);
  const std::string model_path = !cfg.model.empty() ? cfg.model : setup.resolve(setup.model_file);
  const std::string marker_path = !cfg.markers.empty() ? cfg.markers : setup.resolve(setup.marker_file);
  const std::string out_path = !cfg.out.empty() ? cfg.out : setup.resolve(setup.output_motion_file);
  if (model_path.empty()) throw UsageError("--model is required (or a setup naming <model_file>)");
  if (marker_path.empty()) throw UsageError("--markers is required (or a setup naming <marker_file>)");
  if (out_path.empty()) throw UsageError("--out is required (or a setup naming <output_motion_file>)");
  const bool osim_model = endsWith(model_path, ".osim");
  if (!osim_model && has_setup) throw UsageError("--setup needs an OpenSim model (.osim); got '" + model_path + "'");
  if (osim_model && (!cfg.markerset.empty() || !cfg.static_trial.empty()))
    throw UsageError("--markerset and --static are for built-in models; an .osim model brings its own markers");

  track::MarkerTrialOptions opt;
  opt.time_start = std::isnan(cfg.time_start) ? (has_setup ? setup.time_start : -INFINITY) : cfg.time_start;
  opt.time_end = std::isnan(cfg.time_end) ? (has_setup ? setup.time_end : INFINITY) : cfg.time_end;
  std::optional<ProgressBar> bar;  // sized once the solver knows the frames in range
  opt.progress = [&](int done, int total) {
    if (!bar) bar.emplace(total, !cfg.quiet);
    bar->update(done);
  };
  SolvedTrial solved;
  if (osim_model) {
    fmt::print("[1/3] reading {} and {}\n", model_path, marker_path);
    std::fflush(stdout);
    const io::OpenSimModel osim = io::readOpenSimModel(model_path);
    const io::MarkerTrajectories trial = readTrial(cfg, marker_path, true);
    track::OpenSimIkBinding binding = track::bindOpenSimIk(osim, has_setup ? &setup : nullptr, trial);
    for (const std::string& n : osim.notices) fmt::print(stderr, "kinetrack: note: {}: {}\n", model_path, n);
    for (const std::string& w : binding.warnings) fmt::print(stderr, "kinetrack: warning: {}\n", w);
    fmt::print("[2/3] solving {} markers, {} coordinates ({} coordinate tasks), accuracy {:g}\n",
               binding.spec.markers.size(), osim.coordinates.size(), binding.spec.coordinate_tasks.size(),
               binding.spec.options.accuracy);
    std::fflush(stdout);
    solved = {track::solveMarkerTrial(binding.spec, trial, opt), osim.model->name(),
              static_cast<int>(osim.coordinates.size()), binding.spec.markers.size()};
    io::writeMot(track::openSimCoordinates(osim, solved.result), out_path);
  } else {
    solved = solveBuiltin(cfg, marker_path, out_path, opt);
  }
  const track::MarkerTrialResult& r = solved.result;
  // The plot reads the error table: written beside the PNG when --errors is not given.
  const std::string errors_path = !cfg.errors.empty() ? cfg.errors : (cfg.plot.empty() ? "" : cfg.plot + ".errors.sto");
  if (!errors_path.empty()) io::writeMot(track::markerErrorTable(r), errors_path);

  // Summary.
  std::vector<double> rms, us, iters;
  double sum_sq = 0.0, worst = 0.0;
  long count = 0;
  int worst_frame = -1, worst_marker = -1, failed = 0;
  for (std::size_t k = 0; k < r.frames.size(); ++k) {
    const track::MarkerFrame& f = r.frames[k];
    rms.push_back(f.rms_error);
    us.push_back(f.solve_microseconds);
    iters.push_back(f.iterations);
    sum_sq += f.total_squared_error;
    count += f.markers_used;
    if (f.max_error > worst) worst = f.max_error, worst_frame = static_cast<int>(k), worst_marker = f.worst_marker;
    if (f.status == ik::Status::Failed) ++failed;
  }
  const double total_rms = count > 0 ? std::sqrt(sum_sq / static_cast<double>(count)) : 0.0;
  const metrics::Summary srms = metrics::summarize(rms), sus = metrics::summarize(us), sit = metrics::summarize(iters);
  const int frames = static_cast<int>(r.frames.size());
  const std::string worst_name = worst_marker >= 0 ? r.marker_names[static_cast<std::size_t>(worst_marker)] : "-";
  const double fps = r.solve_seconds > 0.0 ? frames / r.solve_seconds : 0.0;
  fmt::print("[3/3] marker IK of {} on {} ({} coordinates)\n", marker_path, solved.model_name, solved.coordinates);
  fmt::print("  {:<28} {} ({:.3f} … {:.3f} s)\n", "frames", frames, r.frames.front().time, r.frames.back().time);
  fmt::print("  {:<28} {:.2f} / {:.2f} / {:.2f} mm (median / p95 / max over frames)\n", "marker RMS", srms.median * 1e3,
             srms.p95 * 1e3, srms.max * 1e3);
  fmt::print("  {:<28} {:.2f} mm (every frame and weighted marker)\n", "marker RMS, whole trial", total_rms * 1e3);
  fmt::print("  {:<28} {:.2f} mm ({} at t = {:.3f} s)\n", "largest marker error", worst * 1e3, worst_name,
             worst_frame >= 0 ? r.frames[static_cast<std::size_t>(worst_frame)].time : 0.0);
  fmt::print("  {:<28} {} frames with a missing marker, {} held (no marker), {} failed\n", "gaps",
             r.framesWithMissingMarkers(), r.held(), failed);
  fmt::print("  {:<28} {:.1f} / {:.1f} µs (median / p95), {:.0f} frames/s, {:.0f} Gauss–Newton iterations (median)\n",
             "solve time per frame", sus.median, sus.p95, fps, sit.median);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  fmt::print("  {:<28} {:.3f} s (reading, solving, writing)\n", "wall time", wall);
  fmt::print("wrote {} ({} rows){}\n", out_path, frames, cfg.errors.empty() ? "" : " and " + cfg.errors);

  if (!cfg.plot.empty()) {
    const std::string mot = osim_model || endsWith(out_path, ".mot") ? out_path : cfg.plot + ".mot";
    std::vector<std::string> args = {mot, errors_path, cfg.plot};
    if (!cfg.reference.empty()) args.insert(args.end(), {"--reference", cfg.reference});
    runPlot(findScript("", "plot_markers_ik.py"), "plot_markers_ik.py", args, cfg.plot);
  }
  if (!cfg.summary_json.empty()) {
    nlohmann::json j;
    j["model"] = model_path;
    j["markers_file"] = marker_path;
    j["setup"] = cfg.setup;
    j["frames"] = frames;
    j["marker_rms_m"] = total_rms;
    j["marker_max_m"] = worst;
    j["worst_marker"] = worst_name;
    j["frame_rms_median_m"] = srms.median;
    j["frame_rms_p95_m"] = srms.p95;
    j["gaps"] = r.framesWithMissingMarkers();
    j["held_frames"] = r.held();
    j["failed_frames"] = failed;
    j["markers"] = solved.markers;
    j["coordinates"] = solved.coordinates;
    j["solve_us_median"] = sus.median;
    j["solve_us_p95"] = sus.p95;
    j["iterations_median"] = sit.median;
    j["frames_per_second"] = fps;
    j["wall_seconds"] = wall;
    io::writeFileAtomically(cfg.summary_json, j.dump(2) + "\n");
  }
  return failed > 0 ? kExitFailure : kExitOk;
}

}  // namespace

void addMarkersCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand(
      "markers", "marker-based motion capture: inverse kinematics from markers, labelling of unlabelled markers");
  group->require_subcommand(1);
  addMarkersLabelCommand(*group, action);
  auto cfg = std::make_shared<MarkersIkConfig>();
  CLI::App* cmd = group->add_subcommand(
      "ik", "marker IK of a TRC/C3D trial on an OpenSim model, as OpenSim's IK tool (Setup_IK.xml tasks), to .mot");
  cmd->add_option(
      "--model", cfg->model,
      "OpenSim model (.osim; default: the setup's <model_file>), or a built-in model / URDF with --markerset");
  cmd->add_option("--markers", cfg->markers, "marker trial (.trc or .c3d); default: the setup's <marker_file>");
  cmd->add_option("--setup", cfg->setup,
                  "OpenSim IK setup (Setup_IK.xml): marker/coordinate tasks, time range, accuracy; files given on the "
                  "command line override the paths inside it");
  cmd->add_option("--out", cfg->out,
                  "output: .mot (OpenSim layout, degrees); for a built-in model the joint CSV of `kinetrack track` "
                  "unless the name ends in .mot");
  cmd->add_option("--markerset", cfg->markerset,
                  "built-in models: marker set (built-in name, e.g. human66_plugin_gait, or a JSON file)");
  cmd->add_option("--static", cfg->static_trial,
                  "built-in models: static trial (.c3d/.trc) to calibrate the marker offsets on first");
  cmd->add_option("--vsk", cfg->vsk, "built-in models: Vicon subject file (.vsk) giving Height and Bodymass");
  cmd->add_option("--height", cfg->height, "built-in models: body height (m; default the .vsk's, else 1.75)");
  cmd->add_option("--mass", cfg->mass, kMassHelp);
  cmd->add_option("--errors", cfg->errors, "marker-error table (.sto: total squared error, RMS, max per frame)");
  cmd->add_option("--summary-json", cfg->summary_json, "write the run's summary as JSON");
  cmd->add_option("--start", cfg->time_start, "first time (s); default: the setup's time range, else the trial's");
  cmd->add_option("--end", cfg->time_end, "last time (s)");
  cmd->add_option("--marker-axes", cfg->marker_axes, "axes of the marker file: auto (TRC y-up, C3D z-up), y-up, z-up")
      ->check(CLI::IsMember({"auto", "y-up", "z-up"}));
  cmd->add_option("--plot", cfg->plot, "PNG of the marker errors per frame and the main joint angles");
  cmd->add_option("--reference", cfg->reference, "a reference .mot (e.g. OpenSim's IK result) drawn in the plot");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] { action = [cfg] { return runMarkersIk(*cfg); }; });
}

}  // namespace kinetrack::cli
