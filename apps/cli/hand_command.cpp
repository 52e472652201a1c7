// `kinetrack hand track`: the FABRIK hand tracker (FAB §3.4) on a Qualisys glove recording, with
// held-out middle-marker validation and an optional side-by-side run of marker IK (bounded
// Levenberg–Marquardt) on the same hand model (docs/hand.md).
#include <memory>
#include <string>

#include "app/command_options.hpp"
#include "cli_common.hpp"
#include "kinetrack/app/hand_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct HandTrackConfig {
  app::HandTrackOptions job;
  std::string plot;
  bool quiet = false;
};

int runHandTrackCommand(HandTrackConfig cfg) {
  app::HandTrackOptions& o = cfg.job;
  // The plot reads the per-frame errors: written beside the PNG when not asked for.
  if (o.errors.empty() && !cfg.plot.empty()) o.errors = cfg.plot + ".errors.csv";
  const app::HandTrackResult r = app::runHandTrack(o, cliReporter(!cfg.quiet));
  out("{}{}", app::summaryText(r), app::wroteLine(r, o));
  if (!cfg.plot.empty()) runPlot(findScript("", "plot_hand.py"), "plot_hand.py", {o.errors, cfg.plot}, cfg.plot);
  return kExitOk;
}

}  // namespace

void addHandCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand("hand", "hand tracking from a marker glove (FABRIK, FAB §3.4)");
  group->require_subcommand(1);
  auto cfg = std::make_shared<HandTrackConfig>();
  CLI::App* cmd = group->add_subcommand(
      "track", "calibrate a 20-DoF hand model from a Qualisys TSV glove recording and track it with FABRIK");
  app::addHandTrackOptions(*cmd, cfg->job, cfg->quiet, [&cfg](CLI::App& c) {
    c.add_option("--plot", cfg->plot, "PNG of the per-digit errors (with --compare-lm: FABRIK against LM)");
  });
  cmd->callback([cfg, &action] { action = [cfg] { return runHandTrackCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
