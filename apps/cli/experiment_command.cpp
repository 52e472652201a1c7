// `kinetrack experiment …`: the experiment group and `experiment convergence` (DYN Fig. 8: the
// library's kinetrack/experiments/convergence.hpp; this file parses, calls, plots).
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/experiments/convergence.hpp"
#include "kinetrack/experiments/imu.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

/// Registers `kinetrack prior build` on `app` and `kinetrack experiment sparse` on `experiment`
/// (prior_command.cpp).
void addPriorCommands(CLI::App& parent, CLI::App& experiment, Action& action);
/// Registers `kinetrack experiment compare` (compare_command.cpp) under `experiment`.
void addCompareCommand(CLI::App& experiment, Action& action);
/// Registers `kinetrack experiment assembly` (assembly_experiment.cpp) under `experiment`.
void addAssemblyExperiment(CLI::App& experiment, Action& action);
/// Registers `kinetrack experiment gpm` (gpm_command.cpp) under `experiment`.
void addGpmExperiment(CLI::App& experiment, Action& action);
/// Registers `kinetrack experiment pindrag` (pindrag_experiment.cpp) under `experiment`.
void addPinDragExperiment(CLI::App& experiment, Action& action);
/// Registers `kinetrack experiment labelling` (labelling_experiment.cpp) under `experiment`.
void addLabellingExperiment(CLI::App& experiment, Action& action);
/// Registers `kinetrack experiment mapping` (mapping_experiment.cpp) under `experiment`.
void addMappingExperiment(CLI::App& experiment, Action& action);

namespace {

namespace fs = std::filesystem;

struct ConvergenceConfig {
  experiments::ConvergenceExperimentOptions job;
  /// Gains K (1/s) as typed; parsed by the command.
  std::vector<std::string> gains = {"0", "1", "5", "10", "50", "250"};
  bool no_plot = false;
  std::string plot_script;  ///< explicit path of plot_convergence.py (else searched)
};

int runConvergence(ConvergenceConfig cfg) {
  const auto start = std::chrono::steady_clock::now();
  cfg.job.gains.clear();
  for (const std::string& t : cfg.gains) cfg.job.gains.push_back(parseFiniteDouble(t, "--gains"));
  fs::path script;
  if (!cfg.no_plot && !cfg.plot_script.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(cfg.plot_script, ec))
      throw UsageError("--plot-script: no such file '" + cfg.plot_script + "'");
  }
  if (!cfg.no_plot) script = findScript(cfg.plot_script, "plot_convergence.py");
  const experiments::ConvergenceExperimentResult r = experiments::runConvergenceExperiment(cfg.job, cliReporter(false));
  printOut(experiments::summaryText(r));
  const fs::path dir(cfg.job.out);
  if (!cfg.no_plot)
    runPlot(script, "plot_convergence.py",
            {r.csv, (dir / "convergence.png").string(), "--title",
             fmt::format("{}, {:g} Hz, start: zero configuration", r.model_name, cfg.job.rate)},
            dir / "convergence.png");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  fmt::print("done in {:.0f} ms\n", ms);
  return kExitOk;
}

}  // namespace

void addExperimentCommand(CLI::App& app, Action& action) {
  CLI::App* experiment = app.add_subcommand("experiment", "reproduce the papers' experiments (CSV + PNG)");
  experiment->require_subcommand(1);
  addPriorCommands(app, *experiment, action);
  addCompareCommand(*experiment, action);
  addAssemblyExperiment(*experiment, action);
  addGpmExperiment(*experiment, action);
  addPinDragExperiment(*experiment, action);
  addLabellingExperiment(*experiment, action);
  addMappingExperiment(*experiment, action);

  auto imu = std::make_shared<experiments::ImuExperimentOptions>();
  auto imu_quiet = std::make_shared<bool>(false);
  CLI::App* imu_cmd = experiment->add_subcommand(
      "imu",
      "issue 41: virtual IMUs on the gait2354 walk (noise, drift, calibration errors) placed and tracked as "
      "OpenSense, scored against OpenSim's IK (OUT/imu.csv)");
  imu_cmd->add_option("--out", imu->out, "output directory")->required();
  imu_cmd->add_option("--data", imu->data, "the shared data folder")->capture_default_str();
  imu_cmd->add_option("--seeds", imu->seeds, "runs per scenario")->capture_default_str();
  imu_cmd->add_option("--seed", imu->seed, "first seed")->capture_default_str();
  imu_cmd->add_flag("--quiet", *imu_quiet, "no progress bar");
  imu_cmd->callback([&action, imu, imu_quiet] {
    action = [imu, imu_quiet] {
      out("{}", experiments::summaryText(experiments::runImuExperiment(*imu, cliReporter(!*imu_quiet, "run"))));
      return kExitOk;
    };
  });

  auto cfg = std::make_shared<ConvergenceConfig>();
  CLI::App* cmd = experiment->add_subcommand(
      "convergence", "DYN Fig. 8: MNTE from the zero configuration to a static pose, for several gains K");
  cmd->add_option("--model", cfg->job.model.model, "built-in model (human66, human48) or URDF file")
      ->capture_default_str();
  cmd->add_option_function<double>(
      "--height", [cfg](const double& h) { cfg->job.model.height = h; },
      "body height of a built-in model (m, 0.5 to 2.5; default 1.75)");
  cmd->add_option_function<double>(
      "--mass", [cfg](const double& m) { cfg->job.model.mass = m; }, kMassHelp);
  cmd->add_option("--gains", cfg->gains, "gains K (1/s), comma-separated, >= 0")->delimiter(',')->capture_default_str();
  cmd->add_option("--rate", cfg->job.rate, "step rate (Hz); dt = 1/rate")->capture_default_str();
  cmd->add_option("--duration", cfg->job.duration, "simulated time per gain (s)")->capture_default_str();
  cmd->add_option("--seed", cfg->job.seed, "seed of the random target pose")->capture_default_str();
  cmd->add_option("--out", cfg->job.out, "output directory (created if needed): convergence.csv, convergence.png")
      ->required();
  cmd->add_option("--jacobian", cfg->job.jacobian,
                  "where task Jacobians are evaluated: midpoint (q + dt/2 nu_prev, library default) or previous "
                  "(the paper's J(q_prev))")
      ->capture_default_str();
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSV only");
  cmd->add_option("--plot-script", cfg->plot_script,
                  "path of plot_convergence.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runConvergence(*cfg); }; });
}

}  // namespace kinetrack::cli
