// `kinetrack experiment gpm`: the GPM seed's study (SPEC §6) on the performers of ../shared/data.
// Fits each subject's 25-DoF DH model and recorded joint angles, then LN and GP (RMS, Eq. 6) for
// inc = 1 … 20 with every subject in the densities and with each one left out (Fig. 4), and the
// robustness test of Table II at one inc (Fig. 5). Writes DIR/gpm.csv, DIR/gpm_robustness.csv,
// DIR/gpm_fits.csv, the PNGs (scripts/plot_gpm.py) and prints the tables.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/experiments/gpm.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct GpmConfig {
  experiments::GpmExperimentOptions job;
  bool no_plot = false;
  std::string plot_script;
};

int runGpmCommand(const GpmConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  fs::path script;
  if (!cfg.no_plot) script = findScript(cfg.plot_script, "plot_gpm.py");
  const experiments::GpmExperimentResult r = experiments::runGpmExperiment(cfg.job, cliReporter(true, "run"));
  printOut(experiments::summaryText(r));
  const fs::path dir(cfg.job.out);
  if (!cfg.no_plot) {
    runPlot(script, "plot_gpm.py", {"fig4", (dir / "gpm.csv").string(), (dir / "gpm_fig4.png").string()},
            dir / "gpm_fig4.png");
    if (!r.robustness.empty())
      runPlot(script, "plot_gpm.py",
              {"fig5", (dir / "gpm_robustness.csv").string(), (dir / "gpm_fig5.png").string(), "--inc",
               std::to_string(cfg.job.robustness_inc)},
              dir / "gpm_fig5.png");
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("done in {:.1f} s\n", s);
  return kExitOk;
}

}  // namespace

void addGpmExperiment(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<GpmConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "gpm", "GPM seed: LN vs density gradient projection on the 25-DoF upper body, Fig. 4 and 5 (Table II)");
  cmd->add_option("--out", cfg->job.out, "output directory: gpm.csv, gpm_robustness.csv, gpm_fits.csv, PNGs")
      ->required();
  cmd->add_option("--data", cfg->job.data, "the shared data folder (holding bvh/)")->capture_default_str();
  cmd->add_option("--incs", cfg->job.incs, "workspace divisions per axis, comma-separated")->delimiter(',');
  cmd->add_option("--subjects", cfg->job.subjects, "only these subjects (comma-separated names)")->delimiter(',');
  cmd->add_option("--rate", cfg->job.rate, "frames kept per second of capture (Hz)")->capture_default_str();
  cmd->add_option("--robustness-inc", cfg->job.robustness_inc, "inc of the Table II test (0: skip)")
      ->capture_default_str();
  cmd->add_option("--gain", cfg->job.gpm.gain, "k of Eq. 5 (rad per unit gradient of p_max/p)")->capture_default_str();
  cmd->add_option("--iterations", cfg->job.gpm.iterations, "Eq. 3/4 updates per frame")->capture_default_str();
  cmd->add_option("--max-prior-step", cfg->job.gpm.max_prior_step, "cap of |grad H_i| per update (rad)")
      ->capture_default_str();
  cmd->add_option("--min-samples", cfg->job.min_samples, "cells with fewer samples are empty (LN fallback)")
      ->capture_default_str();
  cmd->add_flag("--raw-twists", cfg->job.raw_twists,
                "keep each skeleton's own zero of the bone-axis twists (default: the subject's median)");
  cmd->add_flag("--no-loo", cfg->job.no_loo, "skip the leave-one-subject-out runs (included = 0 rows)");
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSVs only");
  cmd->add_option("--plot-script", cfg->plot_script, "path of plot_gpm.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runGpmCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
