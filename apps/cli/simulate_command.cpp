// `kinetrack simulate`: forward simulation of a model (SPEC §5): ABA for an open tree, the
// assembly–disassembly forward dynamics when links are held (loop closures: a figure on a bar),
// with holds released at given times (the paper's Fig. 4: both hands on the bar, then the right
// hand lets go). Writes the joint trajectory CSV `kinetrack track` writes, prints a summary
// (energy, momentum, closure errors, hold forces, time per step) and, on request, a PNG.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/simulate_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct SimConfig {
  app::SimulateOptions job;
  std::vector<std::string> holds;  // FRAME or FRAME@T (released at T seconds)
  std::string plot;
};

int runSimulateCommand(SimConfig cfg) {
  for (const std::string& h : cfg.holds) cfg.job.holds.push_back(app::parseHold(h));
  const app::SimulateResult r = app::runSimulate(cfg.job, cliReporter(true, "step"));
  if (!r.diverged.empty()) {
    fmt::print(stderr, "kinetrack: error: {}\n", app::summaryText(r, cfg.job));
    return kExitFailure;
  }
  fmt::print("{}wrote {} ({} rows)\n", app::summaryText(r, cfg.job), cfg.job.out, r.rows_written);
  if (!cfg.plot.empty() && r.times.size() > 1) {
    const std::string data = cfg.plot + ".csv";
    app::writeTextFile(data, app::energyCsv(r));
    runPlot(findScript("", "plot_simulation.py"), "plot_simulation.py", {data, cfg.plot}, cfg.plot);
  }
  return kExitOk;
}

}  // namespace

void addSimulateCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<SimConfig>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "forward dynamics of a model (ABA, or assembly–disassembly with links held, e.g. hands on a bar)");
  cmd->add_option("--model", cfg->job.model.model, "built-in model or URDF with inertials")->required();
  cmd->add_option("--height", cfg->job.model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->job.model.mass, kMassHelp);
  cmd->add_option("--out", cfg->job.out, "joint trajectory CSV (the layout `kinetrack track` writes)")->required();
  cmd->add_option("--duration", cfg->job.duration, "simulated time (s)")->capture_default_str();
  cmd->add_option("--step", cfg->job.step, "integration step (s)")->capture_default_str();
  cmd->add_option("--rate", cfg->job.rate, "output rows per second (Hz)")->capture_default_str();
  cmd->add_option("--integrator", cfg->job.integrator, "rk4 or euler (semi-implicit)")
      ->check(CLI::IsMember({"rk4", "euler"}))
      ->capture_default_str();
  cmd->add_option("--gravity", cfg->job.gravity, "gravity along -z (m/s^2; 0 = weightless)")->capture_default_str();
  cmd->add_option("--initial", cfg->job.initial,
                  "initial configuration: zero, random (within the joint limits, --seed) or a joint CSV (first row)")
      ->capture_default_str();
  cmd->add_option("--base-height", cfg->job.base_height, "added to the initial base height (m)")->capture_default_str();
  cmd->add_option("--velocity", cfg->job.velocity,
                  "random initial velocity, standard deviation per coordinate (rad/s, m/s; the holds' allowed part)")
      ->capture_default_str();
  cmd->add_option("--seed", cfg->job.seed, "random seed of --initial random and --velocity")->capture_default_str();
  cmd->add_option("--hold", cfg->holds,
                  "hold a frame where it is at the start (a rigid grip: loop closure to the world); FRAME@T lets "
                  "go at T s (repeatable)");
  cmd->add_option("--posture-gain", cfg->job.posture_gain,
                  "PD holding the initial posture, natural frequency (rad/s; 0 = limp joints)")
      ->capture_default_str();
  cmd->add_option("--solver", cfg->job.solver, "auto (assembly with holds, else ABA), aba or assembly")
      ->check(CLI::IsMember({"auto", "aba", "assembly"}))
      ->capture_default_str();
  cmd->add_option("--schedule", cfg->job.schedule, "assembly schedule: serial or parallel")
      ->check(CLI::IsMember({"serial", "parallel"}))
      ->capture_default_str();
  cmd->add_option("--threads", cfg->job.threads, "assembly threads")->capture_default_str();
  cmd->add_option("--refine", cfg->job.refine, "assembly refinement steps")->capture_default_str();
  cmd->add_option("--plot", cfg->plot, "PNG of the energy change and hold drift over time");
  cmd->callback([&action, cfg] { action = [cfg] { return runSimulateCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
