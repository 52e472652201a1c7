// `kinetrack retarget`: human motion (BVH, MVNX) onto a humanoid robot (DYN §4.3, Fig. 3 and 9):
// orientation targets from the human segments on robot links through a robot map and calibrated
// rotation offsets, a position target on the base, the robot's joint limits, velocity limits and
// (for the iCub) the coupled shoulder rows of COUPLING.md. One row per input frame.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct RetargetConfig {
  app::RetargetOptions job;
  std::string plot, plot_script;
  bool quiet = false;
};

int runRetargetCommand(const RetargetConfig& cfg) {
  if (!cfg.plot.empty() && !cfg.plot_script.empty() && !fs::is_regular_file(cfg.plot_script))
    throw UsageError("--plot-script: no such file '" + cfg.plot_script + "'");
  const app::TrackResult r = app::runRetarget(cfg.job, cliReporter(!cfg.quiet));
  out("{}{}", app::summaryText(r), app::wroteLine(r, cfg.job.files));
  if (!cfg.plot.empty()) {
    const std::string limits = cfg.plot + ".limits.csv";
    app::writeJointLimitsCsv(*r.model, limits);
    runPlot(findScript(cfg.plot_script, "plot_retarget.py"), "plot_retarget.py",
            {cfg.job.files.joints, limits, cfg.plot, "--title",
             fmt::format("{} retargeted to {}", fs::path(cfg.job.input).filename().string(), r.model->name())},
            cfg.plot);
    std::error_code ec;
    fs::remove(limits, ec);
  }
  return r.exitStatus();
}

}  // namespace

void addRetargetCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<RetargetConfig>();
  CLI::App* cmd =
      app.add_subcommand("retarget",
                         "retarget human motion (BVH, MVNX) onto a humanoid robot URDF (iCub built in) or an OpenSim "
                         "model (.osim, e.g. --map gait2354)");
  cmd->add_option("--robot", cfg->job.robot,
                  "robot URDF (the iCub gets its coupled shoulder rows and real velocity limits)")
      ->required();
  cmd->add_option("--input", cfg->job.input, "capture file: .bvh or .mvnx")->required();
  cmd->add_option("--out", cfg->job.files.joints,
                  "robot joint trajectory CSV: time, base position, base quaternion, joints, gap")
      ->required();
  cmd->add_option(
      "--map", cfg->job.map,
      "robot map: human segment -> robot frame (default: the built-in icub map for the iCub; or a JSON file)");
  cmd->add_option("--segment-map", cfg->job.segment_map,
                  "capture skeleton map: auto (default), a built-in map name, or a JSON file");
  cmd->add_option("--calibration", cfg->job.calibration,
                  "calibration pose: first (BVH default), frame:N, rest, npose (MVNX default), ...");
  cmd->add_option("--solver", cfg->job.solver, "dynamical (default), wholebody, wholebody-ipopt, pairwise")
      ->capture_default_str();
  cmd->add_option("--threads", cfg->job.threads, "threads of --solver pairwise (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_option("--shoulder-velocity", cfg->job.shoulder_velocity, "iCub shoulder velocity limit (rad/s)")
      ->capture_default_str();
  cmd->add_option("--torso-velocity", cfg->job.torso_velocity, "iCub torso velocity limit (rad/s)")
      ->capture_default_str();
  cmd->add_option("--max-step-deg", cfg->job.max_step_deg, "largest target rotation per solver step, degrees")
      ->capture_default_str();
  cmd->add_option("--summary-json", cfg->job.files.summary_json, "write the run's summary as JSON");
  cmd->add_option("--bvh-out", cfg->job.files.bvh, "write the robot's motion as BVH");
  cmd->add_option("--mot-out", cfg->job.files.mot, "write the robot's joint trajectories as an OpenSim MOT file");
  cmd->add_option("--plot", cfg->plot, "PNG of joint angles and velocities against the limits (Fig. 3 layout)");
  cmd->add_option("--plot-script", cfg->plot_script, "path of scripts/plot_retarget.py (default: searched)");
  cmd->add_option("--transient", cfg->job.transient, "seconds excluded from the accuracy statistics")
      ->capture_default_str();
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([&action, cfg] { action = [cfg] { return runRetargetCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
