// `kinetrack experiment pindrag`: the scripted drags of issue 17 with PinDragIk (Nakamura seed,
// Eq. 6–12) on human66 or the iCub. Three phases at Δt = 10 ms: (1) "circle" — the right hand
// dragged round a circle with both feet pinned as poses and the left hand pinned; (2) "switch" —
// roles swapped: the right hand pinned where it is, the left hand dragged round a circle;
// (3) "beyond" — the right hand dragged 3 m out of reach. Writes DIR/pindrag.csv (one row per
// update) and DIR/pindrag.png (scripts/plot_pindrag.py) and prints a table per phase.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/experiments/pindrag.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct PinDragConfig {
  experiments::PinDragExperimentOptions job;
  bool no_plot = false;
  std::string plot_script;
};

int runPinDragExperimentCommand(const PinDragConfig& cfg) {
  printOut(experiments::summaryText(experiments::runPinDragExperiment(cfg.job, cliReporter(true))));
  const std::filesystem::path dir(cfg.job.out);
  if (!cfg.no_plot)
    runPlot(findScript(cfg.plot_script, "plot_pindrag.py"), "plot_pindrag.py",
            {(dir / "pindrag.csv").string(), (dir / "pindrag.png").string()}, dir / "pindrag.png");
  return kExitOk;
}

}  // namespace

void addPinDragExperiment(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<PinDragConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "pindrag",
      "Nakamura pin-and-drag IK (Eq. 6-12): scripted drags with pinned feet and hand, a role switch, "
      "a drag beyond reach; pin error and joint speed over time");
  cmd->add_option("--model", cfg->job.model, "human66 or icub")
      ->check(CLI::IsMember({"human66", "icub"}))
      ->capture_default_str();
  cmd->add_option("--urdf", cfg->job.urdf, "the iCub URDF (with --model icub)")->capture_default_str();
  cmd->add_option("--out", cfg->job.out, "output directory (created if needed): pindrag.csv, pindrag.png")->required();
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSV only");
  cmd->add_option("--plot-script", cfg->plot_script, "path of plot_pindrag.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runPinDragExperimentCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
