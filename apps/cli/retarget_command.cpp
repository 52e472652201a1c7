// `kinetrack retarget`: human motion (BVH, MVNX) onto a humanoid robot (DYN §4.3, Fig. 3 and 9):
// orientation targets from the human segments on robot links through a robot map and calibrated
// rotation offsets, a position target on the base, the robot's joint limits, velocity limits and
// (for the iCub) the coupled shoulder rows of COUPLING.md. One row per input frame.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/io/opensim_model.hpp"
#include "kinetrack/io/segment_map.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "plotting.hpp"
#include "track_job.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct RetargetConfig {
  std::string robot, input, map, segment_map, calibration, plot, plot_script, solver = "dynamical";
  double shoulder_velocity = 2.0, torso_velocity = 1.0, max_step_deg = 5.0;
  int threads = 0;
  TrackOutput output;
};

/// Joint limits of the robot for the plot: name, lower, upper, velocity (rad, rad/s).
void writeLimits(const Model& m, const std::string& path) {
  std::ofstream out(path);
  out << "joint,lower,upper,velocity\n";
  for (int j = 0; j < m.numJoints(); ++j)
    out << m.jointName(JointId(j)) << ',' << m.lowerPositionLimits()[j] << ',' << m.upperPositionLimits()[j] << ','
        << m.upperVelocityLimits()[j] << '\n';
  if (!out) throw UsageError("cannot write '" + path + "'");
}

int runRetarget(const RetargetConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (!cfg.plot.empty() && !cfg.plot_script.empty() && !fs::is_regular_file(cfg.plot_script))
    throw UsageError("--plot-script: no such file '" + cfg.plot_script + "'");
  ModelSpec spec;
  spec.model = cfg.robot;
  Model robot = loadModelAndWarn(spec).model;
  if (isIcub(robot)) robot = icubForRetargeting(robot, cfg.shoulder_velocity, cfg.torso_velocity);
  const track::Capture capture = track::loadCapture(cfg.input);
  const track::SegmentPairs pairs = track::resolveRobotPairs(robot, capture, cfg.segment_map, cfg.map);
  track::PlanOptions po;
  po.calibration = cfg.calibration;
  // OpenSim models live in a Y-up world (up = −gravity); kinetrack's models and clips in a Z-up one.
  if (fs::path(cfg.robot).extension() == ".osim") po.model_up = -io::readOpenSimModel(cfg.robot).gravity.normalized();
  const track::Retargeting plan = track::planTracking(robot, capture, pairs.pairs, po);
  track::TrackerOptions to;
  to.max_step_rotation = cfg.max_step_deg * M_PI / 180.0;
  to.dynamical.use_model_velocity_limits = true;  // the robot's (real) velocity limits are hard bounds
  setSolver(to, cfg.solver, cfg.threads);  // the per-frame baselines know position limits and rows, not velocities
  const TrackJobResult r =
      runTrackJob(robot, capture, plan, to, cfg.output, cfg.input, nullptr, pairs.skipped, pairs.unmapped, start);
  if (!cfg.plot.empty()) {
    const std::string limits = cfg.plot + ".limits.csv";
    writeLimits(robot, limits);
    runPlot(findScript(cfg.plot_script, "plot_retarget.py"), "plot_retarget.py",
            {cfg.output.out, limits, cfg.plot, "--title",
             fmt::format("{} retargeted to {}", fs::path(cfg.input).filename().string(), robot.name())},
            cfg.plot);
    std::error_code ec;
    fs::remove(limits, ec);
  }
  return r.status;
}

}  // namespace

void addRetargetCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<RetargetConfig>();
  CLI::App* cmd =
      app.add_subcommand("retarget",
                         "retarget human motion (BVH, MVNX) onto a humanoid robot URDF (iCub built in) or an OpenSim "
                         "model (.osim, e.g. --map gait2354)");
  cmd->add_option("--robot", cfg->robot,
                  "robot URDF (the iCub gets its coupled shoulder rows and real velocity limits)")
      ->required();
  cmd->add_option("--input", cfg->input, "capture file: .bvh or .mvnx")->required();
  cmd->add_option("--out", cfg->output.out,
                  "robot joint trajectory CSV: time, base position, base quaternion, joints, gap")
      ->required();
  cmd->add_option(
      "--map", cfg->map,
      "robot map: human segment -> robot frame (default: the built-in icub map for the iCub; or a JSON file)");
  cmd->add_option("--segment-map", cfg->segment_map,
                  "capture skeleton map: auto (default), a built-in map name, or a JSON file");
  cmd->add_option("--calibration", cfg->calibration,
                  "calibration pose: first (BVH default), frame:N, rest, npose (MVNX default), ...");
  cmd->add_option("--solver", cfg->solver, "dynamical (default), wholebody, wholebody-ipopt, pairwise")
      ->capture_default_str();
  cmd->add_option("--threads", cfg->threads, "threads of --solver pairwise (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_option("--shoulder-velocity", cfg->shoulder_velocity, "iCub shoulder velocity limit (rad/s)")
      ->capture_default_str();
  cmd->add_option("--torso-velocity", cfg->torso_velocity, "iCub torso velocity limit (rad/s)")->capture_default_str();
  cmd->add_option("--max-step-deg", cfg->max_step_deg, "largest target rotation per solver step, degrees")
      ->capture_default_str();
  cmd->add_option("--summary-json", cfg->output.summary_json, "write the run's summary as JSON");
  cmd->add_option("--bvh-out", cfg->output.bvh_out, "write the robot's motion as BVH");
  cmd->add_option("--mot-out", cfg->output.mot_out, "write the robot's joint trajectories as an OpenSim MOT file");
  cmd->add_option("--plot", cfg->plot, "PNG of joint angles and velocities against the limits (Fig. 3 layout)");
  cmd->add_option("--plot-script", cfg->plot_script, "path of scripts/plot_retarget.py (default: searched)");
  cmd->add_option("--transient", cfg->output.transient, "seconds excluded from the accuracy statistics")
      ->capture_default_str();
  cmd->add_flag("--quiet", cfg->output.quiet, "no progress bar");
  cmd->callback([&action, cfg] { action = [cfg] { return runRetarget(*cfg); }; });
}

}  // namespace kinetrack::cli
