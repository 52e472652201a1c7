// `kinetrack retarget`: human motion (BVH, MVNX) onto a humanoid robot (DYN §4.3, Fig. 3 and 9):
// orientation targets from the human segments on robot links through a robot map and calibrated
// rotation offsets, a position target on the base, the robot's joint limits, velocity limits and
// (for the iCub) the coupled shoulder rows of COUPLING.md. One row per input frame.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/command_options.hpp"
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
                         "retarget human motion (BVH, MVNX) onto a humanoid robot URDF (maps built in for the Unitree "
                         "G1/H1/H1-2 and the iCub, found from the tree for others) or an OpenSim model (.osim, e.g. "
                         "--map gait2354)");
  app::addRetargetOptions(*cmd, cfg->job, cfg->quiet, [&cfg](CLI::App& c) {
    c.add_option("--plot", cfg->plot, "PNG of joint angles and velocities against the limits (Fig. 3 layout)");
    c.add_option("--plot-script", cfg->plot_script, "path of scripts/plot_retarget.py (default: searched)");
  });
  cmd->callback([&action, cfg] { action = [cfg] { return runRetargetCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
