// `kinetrack gait`: a gait lab's day in one command (scale → marker IK → inverse dynamics →
// muscles → EMG), OpenSim's files in one directory and a table of the stages.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "app/command_options.hpp"
#include "cli_common.hpp"
#include "kinetrack/app/gait_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

void addGaitCommand(CLI::App& app, Action& action) {
  struct Config {
    app::GaitOptions job;
    std::vector<std::string> reserves;
    std::string report;  // PNG drawn by scripts/plot_gait.py from the output directory
    bool quiet = false;
  };
  auto cfg = std::make_shared<Config>();
  CLI::App* cmd = app.add_subcommand(
      "gait", "a lab's trial end to end: scale, marker IK, inverse dynamics with the plates, muscle forces, EMG");
  app::addGaitOptions(*cmd, cfg->job, cfg->reserves, cfg->quiet, [&cfg](CLI::App& c) {
    c.add_option("--report", cfg->report,
                 "one-page PNG: joint angles, moments, activations with the EMG and its on/off, residuals, stage "
                 "times");
  });
  cmd->callback([&action, cfg] {
    action = [cfg] {
      for (const std::string& reserve : cfg->reserves) cfg->job.reserves.push_back(app::parseReserve(reserve));
      const app::GaitResult r = app::runGait(cfg->job, cliReporter(!cfg->quiet));
      out("{}", r.text);
      if (!cfg->report.empty())
        runPlot(findScript("", "plot_gait.py"), "plot_gait.py", {cfg->job.out, cfg->report}, cfg->report);
      return kExitOk;
    };
  });
}

}  // namespace kinetrack::cli
