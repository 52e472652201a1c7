// `kinetrack experiment convergence`: the DYN paper's Fig. 8 (SPEC §2.6). From the zero
// configuration, the dynamical IK tracks a static random pose with the same gain K on every
// target, for several K; the MNTE (Eq. 15) after every step goes to DIR/convergence.csv, a summary
// table to stdout, and scripts/plot_convergence.py draws log10 MNTE against time.
//
// Expected shape (DYN §3.1, Remark 2): K = 0 keeps the initial error; 0 < K·Δt < 2 converges,
// near e^{−Kt} in the rotation angle (MNTE ≈ θ²/2 decays like e^{−2Kt}); K·Δt ≥ 2 diverges.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/experiments/dyn.hpp"
#include "kinetrack/io/atomic_file.hpp"
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

constexpr double kDeg = M_PI / 180.0;
/// "Converged" level of the summary table: MNTE 1e-6 is a residual angle of about 0.08°.
constexpr double kConvergedMnte = 1e-6;

struct ConvergenceConfig {
  ModelSpec model{"human66", std::nullopt, false};
  /// Gains K (1/s) as typed; parsed and checked by parseGains().
  std::vector<std::string> gains = {"0", "1", "5", "10", "50", "250"};
  double rate = 100.0;        ///< step rate (Hz): Δt = 1/rate
  double duration = 5.0;      ///< simulated time per gain (s)
  std::uint64_t seed = 1;     ///< seed of the random target pose
  double joint_range = 60.0;  ///< target joints drawn in ±joint_range (deg), within the limits
  double base_radius = 0.5;   ///< target base position drawn in a ball of this radius (m)
  std::string out;            ///< output directory
  bool no_plot = false;
  std::string plot_script;  ///< explicit path of plot_convergence.py (else searched)
  /// Where the task Jacobians are evaluated: "midpoint" (the library default, q ⊕ ½Δt·ν_{k−1})
  /// or "previous" (the paper's J(q_{k−1})).
  std::string jacobian = "midpoint";
};

using experiments::ConvergenceTarget;
using experiments::GainRun;

std::vector<double> parseGains(const std::vector<std::string>& texts) {
  if (texts.empty()) throw UsageError("--gains: give at least one gain, e.g. --gains 0,1,10");
  std::vector<double> gains;
  for (const std::string& t : texts) {
    const double k = parseFiniteDouble(t, "--gains");
    if (k < 0.0) throw UsageError(fmt::format("--gains: gain {} is negative; gains K are >= 0 (1/s)", t));
    gains.push_back(k);
  }
  return gains;
}

// --- output ---------------------------------------------------------------------------------

std::string mnteAt(const GainRun& r, double t, double rate) {
  const auto k = static_cast<std::size_t>(std::llround(t * rate));
  if (k >= r.mnte.size()) return "-";
  return fmt::format("{:.3e}", r.mnte[k]);
}

std::string timeToConverge(const GainRun& r, double rate) {
  for (std::size_t k = 0; k < r.mnte.size(); ++k)
    if (r.mnte[k] < kConvergedMnte) return fmt::format("{:.2f} s", static_cast<double>(k) / rate);
  return "never";
}

/// The discrete-gain regime of DYN Remark 2 as the solver reported it (StepResult).
std::string stabilityText(const GainRun& r) {
  if (r.gain == 0.0) return "K = 0: no correction";
  if (!r.unstable_gain) return "0 < K*dt < 2";
  return r.diverging ? "K*dt >= 2: UNSTABLE, diverging" : "K*dt >= 2: UNSTABLE";
}

void printSummary(const std::vector<GainRun>& runs, double rate) {
  const std::vector<std::string> header = {"K [1/s]",      "K*dt",       "MNTE(0)",
                                           "MNTE(0.5 s)",  "MNTE(1 s)",  "MNTE(final)",
                                           "t(MNTE<1e-6)", "|r| (last)", "discrete gain (Remark 2)"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const GainRun& r : runs)
    rows.push_back({fmt::format("{:g}", r.gain), fmt::format("{:.3g}", r.gain / rate),
                    fmt::format("{:.3e}", r.mnte.front()), mnteAt(r, 0.5, rate), mnteAt(r, 1.0, rate),
                    fmt::format("{:.3e}", r.mnte.back()), timeToConverge(r, rate),
                    fmt::format("{:.2e}", r.last_residual), stabilityText(r)});
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c + 1 < row.size(); ++c) line += fmt::format("{:>{}}  ", row[c], widths[c]);
    fmt::print("{}{}\n", line, row.back());
  }
  for (const GainRun& r : runs)
    if (r.qp_not_optimal > 0)
      fmt::print("note: K = {:g}: {} of {} QP solves ended with status {}{}\n", r.gain, r.qp_not_optimal,
                 r.mnte.size() - 1, qp::toString(r.worst_status),
                 r.worst_status == qp::Status::NotConvex ? " (the step then uses nu = 0: the state stops moving)" : "");
}

// --- command --------------------------------------------------------------------------------

int runConvergence(const ConvergenceConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<double> gains = parseGains(cfg.gains);
  if (!std::isfinite(cfg.rate) || cfg.rate <= 0.0)
    throw UsageError(fmt::format("--rate: {} Hz; need a finite rate > 0", cfg.rate));
  if (!std::isfinite(cfg.duration) || cfg.duration <= 0.0)
    throw UsageError(fmt::format("--duration: {} s; need a finite duration > 0", cfg.duration));
  const double steps_real = std::round(cfg.duration * cfg.rate);
  if (steps_real < 1.0)
    throw UsageError(fmt::format("--duration {} s at --rate {} Hz gives no step", cfg.duration, cfg.rate));
  if (cfg.jacobian != "midpoint" && cfg.jacobian != "previous")
    throw UsageError("--jacobian: '" + cfg.jacobian + "'; valid: midpoint, previous");
  if (steps_real > 1e7)
    throw UsageError(fmt::format("--duration x --rate = {:g} steps per gain; at most 1e7", steps_real));
  experiments::ConvergenceOptions options;
  options.gains = gains;
  options.rate = cfg.rate;
  options.duration = cfg.duration;
  options.seed = cfg.seed;
  options.joint_range = cfg.joint_range;
  options.base_radius = cfg.base_radius;
  options.midpoint_jacobian = cfg.jacobian == "midpoint";
  const long steps = options.steps();
  const double dt = 1.0 / cfg.rate;

  fs::path script;
  if (!cfg.no_plot && !cfg.plot_script.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(cfg.plot_script, ec))
      throw UsageError("--plot-script: no such file '" + cfg.plot_script + "'");
  }
  if (!cfg.no_plot) script = findScript(cfg.plot_script, "plot_convergence.py");

  const LoadedModel lm = loadModelAndWarn(cfg.model);
  const Model& m = lm.model;
  prepareOutputDirectory(cfg.out);  // fail before the work, not after
  const ConvergenceTarget target = experiments::convergenceTarget(m, options);

  fmt::print("experiment convergence (DYN Fig. 8): model {} ({} DoF, {} base), {} orientation target(s){}\n", m.name(),
             m.numJoints(), toString(m.baseType()), target.orientation.size(),
             target.position ? " + 1 position target (" + *target.position + ")" : std::string());
  fmt::print("target: static random pose, seed {}: joints uniform in +-{:g} deg within limits", cfg.seed,
             cfg.joint_range);
  if (m.baseType() == BaseType::Floating)
    fmt::print(", base at ({:+.3f}, {:+.3f}, {:+.3f}) m, yaw {:+.1f} deg", target.q.base_position.x(),
               target.q.base_position.y(), target.q.base_position.z(), target.yaw / kDeg);
  fmt::print(
      "\nstart: zero configuration; dt = {:g} s ({:g} Hz), {} steps ({:g} s) per gain, same K on every target; "
      "Jacobians at the {}\n\n",
      dt, cfg.rate, steps, static_cast<double>(steps) * dt,
      cfg.jacobian == "midpoint" ? "mid-step configuration" : "previous configuration (paper)");

  std::vector<GainRun> runs;
  for (double k : gains) runs.push_back(experiments::runConvergenceGain(m, target, k, options));

  const fs::path dir(cfg.out);
  const fs::path csv = dir / "convergence.csv";
  io::writeFileAtomically(csv.string(), experiments::convergenceCsv(runs, cfg.rate));

  printSummary(runs, cfg.rate);
  fmt::print("\nwrote {} ({} gains x {} rows)\n", csv.string(), runs.size(), steps + 1);
  if (!cfg.no_plot)
    runPlot(script, "plot_convergence.py",
            {csv.string(), (dir / "convergence.png").string(), "--title",
             fmt::format("{}, {:g} Hz, start: zero configuration", m.name(), cfg.rate)},
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

  auto cfg = std::make_shared<ConvergenceConfig>();
  CLI::App* cmd = experiment->add_subcommand(
      "convergence", "DYN Fig. 8: MNTE from the zero configuration to a static pose, for several gains K");
  cmd->add_option("--model", cfg->model.model, "built-in model (human66, human48) or URDF file")->capture_default_str();
  cmd->add_option_function<double>(
      "--height", [cfg](const double& h) { cfg->model.height = h; },
      "body height of a built-in model (m, 0.5 to 2.5; default 1.75)");
  cmd->add_option_function<double>(
      "--mass", [cfg](const double& m) { cfg->model.mass = m; }, kMassHelp);
  cmd->add_option("--gains", cfg->gains, "gains K (1/s), comma-separated, >= 0")->delimiter(',')->capture_default_str();
  cmd->add_option("--rate", cfg->rate, "step rate (Hz); dt = 1/rate")->capture_default_str();
  cmd->add_option("--duration", cfg->duration, "simulated time per gain (s)")->capture_default_str();
  cmd->add_option("--seed", cfg->seed, "seed of the random target pose")->capture_default_str();
  cmd->add_option("--out", cfg->out, "output directory (created if needed): convergence.csv, convergence.png")
      ->required();
  cmd->add_option("--jacobian", cfg->jacobian,
                  "where task Jacobians are evaluated: midpoint (q + dt/2 nu_prev, library default) or previous "
                  "(the paper's J(q_prev))")
      ->capture_default_str();
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSV only");
  cmd->add_option("--plot-script", cfg->plot_script,
                  "path of plot_convergence.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runConvergence(*cfg); }; });
}

}  // namespace kinetrack::cli
