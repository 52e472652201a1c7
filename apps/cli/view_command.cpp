// `kinetrack view`: a tracked result (the joint CSV of `kinetrack track`) as a self-contained
// browser viewer directory: index.html, the bundled page and data.js with every link's position
// per frame (kinetrack's forward kinematics), the input capture and per-link target errors.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "app/command_options.hpp"
#include "cli_common.hpp"
#include "kinetrack/app/view_job.hpp"

namespace kinetrack::cli {
namespace {

struct ViewConfig {
  app::ViewOptions job;
  bool quiet = false;
};

int runView(const ViewConfig& cfg) {
  const app::ViewResult r = app::runView(cfg.job, cliReporter(!cfg.quiet, "step"));
  fmt::print("{}", app::summaryText(r, cfg.job));
  return kExitOk;
}

}  // namespace

void addViewCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<ViewConfig>();
  CLI::App* cmd = app.add_subcommand(
      "view",
      "write a browser viewer of a motion (index.html + data; open it, or serve it with kinetrack serve): meshes, "
      "muscles, markers, forces, the person beside the robot; --png renders a still");
  app::addViewOptions(*cmd, cfg->job, cfg->quiet);
  cmd->callback([cfg, &action] { action = [cfg] { return runView(*cfg); }; });
}

}  // namespace kinetrack::cli
