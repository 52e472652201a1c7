// `kinetrack view`: a tracked result (the joint CSV of `kinetrack track`) as a self-contained
// browser viewer directory: index.html, the bundled page and data.js with every link's position
// per frame (kinetrack's forward kinematics), the input capture and per-link target errors.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

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
      "write a browser viewer of a tracked result (index.html + data; open it, or serve it with kinetrack serve)");
  cmd->add_option("--model", cfg->job.model.model, "the result's model: a built-in name or a URDF file")->required();
  cmd->add_option("--height", cfg->job.model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->job.model.mass, kMassHelp);
  cmd->add_option("--result", cfg->job.result, "joint CSV written by kinetrack track --out")->required();
  cmd->add_option("--input", cfg->job.input, "the capture the result was tracked from (overlaid, target errors)");
  cmd->add_option("--map", cfg->job.map, "with --input: segment map, as for kinetrack track");
  cmd->add_option("--calibration", cfg->job.calibration, "with --input: calibration, as for kinetrack track");
  cmd->add_option("--units", cfg->job.units, "with --input: BVH length unit, as for kinetrack track")
      ->capture_default_str();
  cmd->add_option("--rate", cfg->job.rate, "with --input: frame rate replacing the file's, as for kinetrack track");
  cmd->add_option("--out", cfg->job.out, "output directory (created)")->required();
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] { action = [cfg] { return runView(*cfg); }; });
}

}  // namespace kinetrack::cli
