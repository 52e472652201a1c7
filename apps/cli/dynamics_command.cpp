// `kinetrack dynamics id`: inverse dynamics of a joint trajectory (the CSV `kinetrack track`
// writes): optionally a zero-lag Butterworth low-pass of the motion, velocities and
// accelerations by finite differences on the configuration manifold, RNEA per frame with the
// external wrenches of a wrench CSV matched by time, the generalised forces per input row (the
// floating base's residual first), and a summary of the base residual against the body weight
// with and without the external load.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "app/command_options.hpp"
#include "cli_common.hpp"
#include "kinetrack/app/inverse_dynamics_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct IdConfig {
  app::InverseDynamicsOptions job;
  std::string plot, plot_script;
  bool quiet = false;
};

int runInverseDynamicsCommand(const IdConfig& cfg) {
  if (cfg.job.out.empty()) throw UsageError("--out is required");
  const app::InverseDynamicsResult r = app::runInverseDynamics(cfg.job, cliReporter(!cfg.quiet));
  out("{}", r.text);
  if (!cfg.plot.empty() && !cfg.job.reference.empty())
    runPlot(findScript(cfg.plot_script, "plot_opensim_id.py"), "plot_opensim_id.py",
            {cfg.job.out, cfg.job.reference, cfg.plot}, cfg.plot);
  out("{}", app::closingLines(r, cfg.job));
  return kExitOk;
}

}  // namespace

void addDynamicsCommand(CLI::App& app, Action& action) {
  CLI::App* dynamics = app.add_subcommand("dynamics", "rigid-body dynamics of a model and a motion");
  dynamics->require_subcommand(1);
  addDynamicsFilterCommand(*dynamics, action);
  auto cfg = std::make_shared<IdConfig>();
  CLI::App* id = dynamics->add_subcommand(
      "id", "inverse dynamics of a joint trajectory CSV: generalised forces per row (base residual first)");
  app::addInverseDynamicsOptions(*id, cfg->job, cfg->quiet, [&cfg](CLI::App& c) {
    c.add_option("--plot", cfg->plot, "OpenSim model only: PNG overlay of ours vs --reference");
  });
  id->callback([&action, cfg] { action = [cfg] { return runInverseDynamicsCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
