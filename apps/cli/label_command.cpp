// `kinetrack markers label`: real-time labelling of unlabelled optical markers (issue 16). Reads
// a cloud of unnamed points per frame (a long CSV `frame,time,x,y,z`, a C3D whose labels are
// ignored, or a labelled TRC/C3D with --strip-labels), labels every frame causally with
// markers::Labeller (model prediction, gating, optimal assignment, rigid-segment check, marker
// IK), and writes the labelled TRC (the model's marker names and order, one row per input frame,
// the input points unchanged), a per-frame report, the joint angles (--ik-out) and a summary.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/c3d.hpp"
#include "kinetrack/io/point_cloud.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "labelling.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct LabelConfig {
  LabellingSubjectSpec subject;
  std::string input, out, ik_out, report, summary_json, plot;
  std::string units = "mm";
  std::vector<std::string> marker_names;
  bool strip_labels = false;
  bool quiet = false;
};

// The input as a point cloud in its file's axes (m), and the marker names it tells about (a
// labelled file with --strip-labels: its labels restrict the set to the markers worn).
io::PointCloud readInput(const LabelConfig& cfg, std::vector<std::string>& worn) {
  const std::string& path = cfg.input;
  if (hasSuffix(path, ".csv")) {
    if (cfg.strip_labels) throw UsageError("--strip-labels is for labelled .trc/.c3d inputs; a CSV has no labels");
    const double scale = cfg.units == "mm" ? 1e-3 : 1.0;
    return io::readPointCsv(path, scale);
  }
  if (hasSuffix(path, ".trc") && !cfg.strip_labels)
    throw UsageError("'" + path + "' is a labelled TRC: pass --strip-labels to label its points afresh");
  if (!hasSuffix(path, ".trc") && !hasSuffix(path, ".c3d"))
    throw UsageError("--input: '" + path + "': expected points.csv, trial.c3d or trial.trc");
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

void writeReport(const std::string& path, const markers::LabelTrialResult& r) {
  std::string s =
      "frame,time,points,invalid_points,assigned,gaps,ghosts,rigid_rejections,relabelled,state,ik_status,ik_iterations,"
      "ik_rms_mm,"
      "microseconds,ik_microseconds\n";
  for (const markers::LabelledFrame& f : r.frames)
    s += fmt::format("{},{:.6f},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.1f},{:.1f}\n", f.frame_number, f.time, f.points,
                     f.invalid_points, f.assigned, f.gaps, f.ghosts, f.rigid_rejections, f.relabelled,
                     markers::toString(f.state), ik::toString(f.ik_status), f.ik_iterations, f.ik_rms * 1e3,
                     f.microseconds, f.ik_microseconds);
  io::writeFileAtomically(path, s);
}

int runLabel(const LabelConfig& cfg) {
  const auto wall0 = std::chrono::steady_clock::now();
  fmt::print("[1/3] reading {} and {}\n", cfg.subject.model, cfg.input);
  std::fflush(stdout);
  std::vector<std::string> worn;
  const io::PointCloud file_cloud = readInput(cfg, worn);
  std::vector<std::string> names = cfg.marker_names;
  if (names.empty()) names = worn;
  const LabellingSubject subject = loadLabellingSubject(cfg.subject, names);
  const markers::LabellerModel& lm = *subject.model;
  // Points in the model's world for the labeller; the output keeps the file's points.
  const Matrix3d C = fileToModelAxes(cfg.input, cfg.subject.marker_axes, subject.y_up);
  io::PointCloud cloud = file_cloud;
  for (Vector3d& p : cloud.points) p = C * p;
  long dropped = 0, points = 0;
  for (int d : cloud.dropped) dropped += d;
  points = static_cast<long>(cloud.points.size());
  fmt::print("  {:<28} {}\n", "model", subject.description);
  fmt::print("  {:<28} {} frames, {} points ({:.1f} per frame), {} with a NaN coordinate dropped\n", "input",
             cloud.numFrames(), points, cloud.numFrames() ? static_cast<double>(points) / cloud.numFrames() : 0.0,
             dropped);
  if (cloud.numFrames() == 0) throw UsageError("'" + cfg.input + "' has no frame");

  fmt::print("[2/3] labelling {} markers\n", lm.numMarkers());
  std::fflush(stdout);
  ProgressBar bar(cloud.numFrames(), !cfg.quiet);
  markers::LabelTrialOptions opt;
  opt.progress = [&](int done, int) { bar.update(done); };
  const markers::LabelTrialResult r = markers::labelTrial(subject.model, cloud, {}, opt);

  // Outputs: the labelled TRC in the file's axes and units, the report, the angles.
  io::MarkerTrajectories labelled = r.trajectories(file_cloud);
  const std::string units = hasSuffix(cfg.input, ".csv") ? cfg.units : "mm";
  io::writeTrc(labelled, cfg.out, {.units = units, .frame_numbers = file_cloud.frame_numbers});
  const std::string report = !cfg.report.empty() ? cfg.report : (cfg.plot.empty() ? "" : cfg.plot + ".report.csv");
  if (!report.empty()) writeReport(report, r);
  if (!cfg.ik_out.empty()) io::writeMot(jointTable(subject, r), cfg.ik_out);

  std::vector<double> assigned, ghosts, rms, us, label_us;
  long gaps = 0, rejections = 0, relabels = 0;
  for (const markers::LabelledFrame& f : r.frames) {
    assigned.push_back(f.assigned);
    ghosts.push_back(f.ghosts);
    if (std::isfinite(f.ik_rms)) rms.push_back(f.ik_rms);
    if (f.state == markers::TrackState::Tracking) {
      us.push_back(f.microseconds);
      label_us.push_back(f.microseconds - f.ik_microseconds);
    }
    gaps += f.gaps;
    rejections += f.rigid_rejections;
    relabels += f.relabelled;
  }
  const metrics::Summary sa = metrics::summarize(assigned), sg = metrics::summarize(ghosts),
                         sr = metrics::summarize(rms), su = metrics::summarize(us), sl = metrics::summarize(label_us);
  const int frames = static_cast<int>(r.frames.size());
  fmt::print("[3/3] labelled {} frames of {}\n", frames, cfg.input);
  const double fewest = assigned.empty() ? 0.0 : *std::min_element(assigned.begin(), assigned.end());
  fmt::print("  {:<28} {:.0f} / {:.0f} / {:.0f} of {} markers (median / min / max per frame)\n", "labelled", sa.median,
             fewest, sa.max, lm.numMarkers());
  fmt::print("  {:<28} {} marker-frames\n", "gaps", gaps);
  fmt::print("  {:<28} {:.0f} / {:.0f} per frame (median / max)\n", "ghosts (unlabelled points)", sg.median, sg.max);
  fmt::print("  {:<28} {} (initialisations {}, frames lost {})\n", "track",
             r.lostFrames() == 0 ? "kept" : "lost at times", r.initialisations(), r.lostFrames());
  fmt::print("  {:<28} {}\n", "rigid-segment rejections", rejections);
  fmt::print("  {:<28} {:.2f} / {:.2f} mm (median / p95 over frames)\n", "IK marker RMS", sr.median * 1e3,
             sr.p95 * 1e3);
  fmt::print("  {:<28} {:.1f} / {:.1f} µs (median / p95, tracked frames: labelling + IK)\n", "time per frame",
             su.median, su.p95);
  fmt::print("  {:<28} {:.1f} / {:.1f} µs (median / p95, without the IK)\n", "labelling alone", sl.median, sl.p95);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  fmt::print("  {:<28} {:.3f} s\n", "wall time", wall);
  fmt::print("wrote {} ({} rows){}{}\n", cfg.out, frames, report.empty() ? "" : ", " + report,
             cfg.ik_out.empty() ? "" : ", " + cfg.ik_out);
  if (!cfg.plot.empty())
    runPlot(findScript("", "plot_labelling.py"), "plot_labelling.py", {"report", report, cfg.plot}, cfg.plot);
  if (!cfg.summary_json.empty()) {
    nlohmann::json j;
    j["model"] = cfg.subject.model;
    j["input"] = cfg.input;
    j["frames"] = frames;
    j["markers"] = lm.numMarkers();
    j["marker_names"] = lm.names;
    j["labelled_median"] = sa.median;
    j["labelled_min"] = fewest;
    j["gaps"] = gaps;
    j["ghosts_median"] = sg.median;
    j["initialisations"] = r.initialisations();
    j["lost_frames"] = r.lostFrames();
    j["rigid_rejections"] = rejections;
    j["relabelled"] = relabels;
    j["ik_rms_median_m"] = sr.median;
    j["ik_rms_p95_m"] = sr.p95;
    j["frame_us_median"] = su.median;
    j["frame_us_p95"] = su.p95;
    j["labelling_us_median"] = sl.median;
    j["points_dropped_nan"] = dropped;
    j["wall_seconds"] = wall;
    io::writeFileAtomically(cfg.summary_json, j.dump(2) + "\n");
  }
  return kExitOk;
}

}  // namespace

void addMarkersLabelCommand(CLI::App& markers_group, Action& action) {
  auto cfg = std::make_shared<LabelConfig>();
  CLI::App* cmd = markers_group.add_subcommand(
      "label", "label unlabelled optical markers in real time (model prediction + assignment + marker IK)");
  cmd->add_option("--model", cfg->subject.model,
                  "OpenSim model (.osim, its markers), or a built-in model with --markerset")
      ->required();
  cmd->add_option("--input", cfg->input,
                  "points: long CSV frame,time,x,y,z (one point per row), a C3D (labels ignored), or a labelled "
                  ".trc/.c3d with --strip-labels")
      ->required();
  cmd->add_flag("--strip-labels", cfg->strip_labels,
                "input is a labelled TRC/C3D: drop its labels (they only restrict the set to the markers worn)");
  cmd->add_option("--static", cfg->subject.static_trial,
                  "labelled static trial (.trc/.c3d): the start pose (and, for built-in models, the marker offsets)");
  cmd->add_option("--markerset", cfg->subject.markerset, "built-in models: marker set (built-in name or JSON file)");
  cmd->add_option("--markers", cfg->marker_names, "only these markers of the set (comma-separated)")->delimiter(',');
  cmd->add_option("--vsk", cfg->subject.vsk, "built-in models: Vicon subject file (Height)");
  cmd->add_option("--height", cfg->subject.height, "built-in models: body height (m)");
  cmd->add_flag("!--no-joint-limits", cfg->subject.joint_limits,
                "human66: keep its continuous joints (default: clinical limits in the calibration and the IK)");
  cmd->add_option("--units", cfg->units, "units of a CSV input: mm or m")
      ->check(CLI::IsMember({"mm", "m"}))
      ->capture_default_str();
  cmd->add_option("--marker-axes", cfg->subject.marker_axes,
                  "axes of the input files: auto (TRC y-up, C3D z-up, CSV the model's), y-up, z-up")
      ->check(CLI::IsMember({"auto", "y-up", "z-up"}));
  cmd->add_option("--out", cfg->out, "labelled TRC (model's marker order; missing = empty)")->required();
  cmd->add_option("--ik-out", cfg->ik_out, "joint angles of the same frames (.mot)");
  cmd->add_option("--report", cfg->report, "per-frame report CSV (assigned, gaps, ghosts, state, IK)");
  cmd->add_option("--summary-json", cfg->summary_json, "write the run's summary as JSON");
  cmd->add_option("--plot", cfg->plot, "PNG of labelled markers, ghosts and IK RMS per frame");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] {
    cfg->subject.quiet = cfg->quiet;
    action = [cfg] { return runLabel(*cfg); };
  });
}

}  // namespace kinetrack::cli
