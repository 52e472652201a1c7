#include "kinetrack/experiments/convergence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/qp/qp.hpp"

namespace kinetrack::experiments {
namespace {

namespace fs = std::filesystem;

constexpr double kDeg = M_PI / 180.0;
/// "Converged" level of the summary table: MNTE 1e-6 is a residual angle of about 0.08°.
constexpr double kConvergedMnte = 1e-6;

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

std::string summaryTable(const std::vector<GainRun>& runs, double rate) {
  std::string t;
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
    t += fmt::format("{}{}\n", line, row.back());
  }
  for (const GainRun& r : runs)
    if (r.qp_not_optimal > 0)
      t += fmt::format(
          "note: K = {:g}: {} of {} QP solves ended with status {}{}\n", r.gain, r.qp_not_optimal, r.mnte.size() - 1,
          qp::toString(r.worst_status),
          r.worst_status == qp::Status::NotConvex ? " (the step then uses nu = 0: the state stops moving)" : "");
  return t;
}

}  // namespace

ConvergenceExperimentResult runConvergenceExperiment(const ConvergenceExperimentOptions& cfg,
                                                     const app::Reporter& reporter) {
  const std::vector<double>& gains = cfg.gains;
  if (gains.empty()) throw InvalidArgument("--gains: give at least one gain, e.g. --gains 0,1,10");
  for (const double k : gains)
    if (!(k >= 0.0)) throw InvalidArgument(fmt::format("--gains: gain {:g} is negative; gains K are >= 0 (1/s)", k));
  if (!std::isfinite(cfg.rate) || cfg.rate <= 0.0)
    throw InvalidArgument(fmt::format("--rate: {} Hz; need a finite rate > 0", cfg.rate));
  if (!std::isfinite(cfg.duration) || cfg.duration <= 0.0)
    throw InvalidArgument(fmt::format("--duration: {} s; need a finite duration > 0", cfg.duration));
  const double steps_real = std::round(cfg.duration * cfg.rate);
  if (steps_real < 1.0)
    throw InvalidArgument(fmt::format("--duration {} s at --rate {} Hz gives no step", cfg.duration, cfg.rate));
  if (cfg.jacobian != "midpoint" && cfg.jacobian != "previous")
    throw InvalidArgument("--jacobian: '" + cfg.jacobian + "'; valid: midpoint, previous");
  if (steps_real > 1e7)
    throw InvalidArgument(fmt::format("--duration x --rate = {:g} steps per gain; at most 1e7", steps_real));
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

  const io::LoadedModel lm = app::loadModel(cfg.model, reporter);
  const Model& m = lm.model;
  app::prepareDirectory(cfg.out);  // fail before the work, not after
  const ConvergenceTarget target = experiments::convergenceTarget(m, options);

  reporter.say(
      fmt::format("experiment convergence (DYN Fig. 8): model {} ({} DoF, {} base), {} orientation target(s){}\n",
                  m.name(), m.numJoints(), toString(m.baseType()), target.orientation.size(),
                  target.position ? " + 1 position target (" + *target.position + ")" : std::string()));
  reporter.say(fmt::format("target: static random pose, seed {}: joints uniform in +-{:g} deg within limits", cfg.seed,
                           cfg.joint_range));
  if (m.baseType() == BaseType::Floating)
    reporter.say(fmt::format(", base at ({:+.3f}, {:+.3f}, {:+.3f}) m, yaw {:+.1f} deg", target.q.base_position.x(),
                             target.q.base_position.y(), target.q.base_position.z(), target.yaw / kDeg));
  reporter.say(fmt::format(
      "\nstart: zero configuration; dt = {:g} s ({:g} Hz), {} steps ({:g} s) per gain, same K on every target; "
      "Jacobians at the {}\n\n",
      dt, cfg.rate, steps, static_cast<double>(steps) * dt,
      cfg.jacobian == "midpoint" ? "mid-step configuration" : "previous configuration (paper)"));

  std::vector<GainRun> runs;
  for (double k : gains) runs.push_back(experiments::runConvergenceGain(m, target, k, options));

  const fs::path dir(cfg.out);
  const fs::path csv = dir / "convergence.csv";
  io::writeFileAtomically(csv.string(), experiments::convergenceCsv(runs, cfg.rate));

  ConvergenceExperimentResult result;
  result.model_name = m.name();
  result.csv = csv.string();
  result.rate = cfg.rate;
  result.steps = steps;
  result.runs = std::move(runs);
  return result;
}

std::string summaryText(const ConvergenceExperimentResult& result) {
  return summaryTable(result.runs, result.rate) +
         fmt::format("\nwrote {} ({} gains x {} rows)\n", result.csv, result.runs.size(), result.steps + 1);
}

}  // namespace kinetrack::experiments
