// `kinetrack experiment compare`: the DYN paper's Fig. 7 study on real captures (issue 5): models
// (human66, human48, iCub) × scenarios (T-pose held, walking, running; ../shared/data/README.md
// names the clips) × methods (DYN, whole-body instantaneous native and Ipopt, pair-wise). Writes
// compare.csv (model, scenario, method, frame, log10 MNTE, log10 RMSE, time_us), compare.png
// (box plots, scripts/plot_compare.py) and prints a median/IQR table.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/experiments/dyn.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct CompareConfig {
  experiments::CompareOptions job;
  std::string out = "out/compare";
  std::vector<std::string> methods = {"dynamical", "wholebody", "wholebody-ipopt", "pairwise"};
  std::string plot_script;
  bool no_plot = false;
  bool quiet = false;
};

int runCompare(const CompareConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  experiments::CompareOptions options = cfg.job;
  options.methods.clear();
  for (const std::string& m : cfg.methods)
    if (!m.empty()) options.methods.push_back(app::parseSolver(m));
  if (options.methods.empty()) throw UsageError("--methods: no method given");
  fs::path script;
  if (!cfg.no_plot) {
    if (!cfg.plot_script.empty() && !fs::is_regular_file(cfg.plot_script))
      throw UsageError("--plot-script: no such file '" + cfg.plot_script + "'");
    script = findScript(cfg.plot_script, "plot_compare.py");
  }
  std::optional<ProgressBar> bar;
  const experiments::CompareExperimentResult result = experiments::runCompareExperiment(
      options, cfg.out, [&](int i, int n, const std::string& model, const std::string& scenario, track::Method m) {
        if (!bar) bar.emplace(n, !cfg.quiet, "run");
        bar->update(i, fmt::format("{} {} {}", model, scenario, track::toString(m)));
      });
  if (bar) bar->update(static_cast<int>(result.compare.series.size()));
  for (const std::string& w : result.compare.warnings) printErr("kinetrack: warning: " + w + "\n");
  printOut(experiments::summaryText(result));
  if (!cfg.no_plot) {
    const fs::path png = fs::path(cfg.out) / "compare.png";
    runPlot(script, "plot_compare.py", {result.csv, png.string()}, png);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out("done in {:.1f} s\n", seconds);
  return kExitOk;
}

}  // namespace

void addCompareCommand(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<CompareConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "compare", "DYN Fig. 7: human66, human48, iCub x T-pose, walking, running x methods (CSV, box plots, table)");
  cmd->add_option("--out", cfg->out, "output directory")->capture_default_str();
  cmd->add_option("--data", cfg->job.data, "the shared data folder (../shared/data)")->capture_default_str();
  cmd->add_option("--icub", cfg->job.icub, "iCub URDF (left out with a warning when missing)")->capture_default_str();
  cmd->add_option("--methods", cfg->methods, "comma-separated: dynamical, wholebody, wholebody-ipopt, pairwise")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--threads", cfg->job.threads, "threads of the pairwise method (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_option("--transient", cfg->job.transient, "seconds excluded from the statistics")->capture_default_str();
  cmd->add_option("--tpose-seconds", cfg->job.tpose_seconds, "length of the held T-pose")->capture_default_str();
  cmd->add_option("--plot-script", cfg->plot_script, "path of scripts/plot_compare.py (default: searched)");
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSV and table only");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([&action, cfg] { action = [cfg] { return runCompare(*cfg); }; });
}

}  // namespace kinetrack::cli
