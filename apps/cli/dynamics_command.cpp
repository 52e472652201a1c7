// `kinetrack dynamics id`: inverse dynamics of a joint trajectory (the CSV `kinetrack track`
// writes): velocities and accelerations by finite differences on the configuration manifold,
// RNEA per frame, the generalised forces per input row (the floating base's residual first),
// and a summary of the base residual against the body weight.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/force_csv.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::cli {
namespace {

struct IdConfig {
  ModelSpec model;
  std::string motion, out;
  double gravity = 9.80665;  ///< m/s², along −z
};

int runInverseDynamics(const IdConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (cfg.out.empty()) throw UsageError("--out is required");
  if (!std::isfinite(cfg.gravity) || cfg.gravity < 0.0) throw UsageError("--gravity must be finite and >= 0 (m/s^2)");
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  const Model& m = lm.model;
  const double mass = m.totalMass();
  const io::JointTrajectory traj = io::readJointCsv(cfg.motion);
  const std::vector<Configuration> q = io::toConfigurations(traj, m);
  const TrajectoryDerivatives d = differentiate(m, q, traj.times, traj.gap);
  const std::vector<VectorXd> tau = inverseDynamics(m, q, d, Vector3d(0.0, 0.0, -cfg.gravity));
  io::writeForceCsv(cfg.out, m, traj.times, tau, d.valid);

  // Summary: the base residual (the ground reaction and any missing support) against the weight,
  // and the largest joint torque.
  std::vector<double> fz, fxy;
  double worst = 0.0;
  int worst_joint = -1, invalid = 0;
  const int nb = m.nvBase();
  for (std::size_t k = 0; k < tau.size(); ++k) {
    if (!d.valid[k]) {
      ++invalid;
      continue;
    }
    if (nb == 6) {
      fz.push_back(tau[k][2]);
      fxy.push_back(tau[k].head<2>().norm());
    }
    for (int j = 0; j < m.numJoints(); ++j)
      if (std::abs(tau[k][nb + j]) > worst) {
        worst = std::abs(tau[k][nb + j]);
        worst_joint = j;
      }
  }
  const double weight = mass * cfg.gravity;
  fmt::print("inverse dynamics of {} on {} ({} DoF, {:.2f} kg)\n", cfg.motion, m.name(), m.numJoints(), mass);
  fmt::print("  {:<28} {}\n", "frames", tau.size());
  fmt::print("  {:<28} {} (a gap touches the difference stencil; written as zeros, valid = 0)\n",
             "frames without a value", invalid);
  if (nb == 6 && !fz.empty()) {
    const metrics::Summary z = metrics::summarize(fz), h = metrics::summarize(fxy);
    const double mean = std::accumulate(fz.begin(), fz.end(), 0.0) / static_cast<double>(fz.size());
    fmt::print("  {:<28} {:.1f} N (body weight {:.1f} N: {:.3f} x)\n", "base vertical force, mean", mean, weight,
               mean / weight);
    fmt::print("  {:<28} {:.1f} / {:.1f} / {:.1f} N (median / p95 / max)\n", "base vertical force", z.median, z.p95,
               z.max);
    fmt::print("  {:<28} {:.1f} / {:.1f} N (median / max)\n", "base horizontal force", h.median, h.max);
  }
  if (worst_joint >= 0)
    fmt::print("  {:<28} {:.1f} ({})\n", "largest joint torque", worst, m.jointName(JointId(worst_joint)));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("  {:<28} {:.2f} s\n", "wall time", seconds);
  fmt::print("wrote {} ({} rows)\n", cfg.out, tau.size());
  return kExitOk;
}

}  // namespace

void addDynamicsCommand(CLI::App& app, Action& action) {
  CLI::App* dynamics = app.add_subcommand("dynamics", "rigid-body dynamics of a model and a motion");
  dynamics->require_subcommand(1);
  auto cfg = std::make_shared<IdConfig>();
  CLI::App* id = dynamics->add_subcommand(
      "id", "inverse dynamics of a joint trajectory CSV: generalised forces per row (base residual first)");
  id->add_option("--model", cfg->model.model, "URDF with inertials (or a built-in model with masses)")->required();
  id->add_option("--height", cfg->model.height, "body height of a built-in model (m)");
  id->add_option("--mass", cfg->model.mass, "body mass of a built-in model (kg)");
  id->add_option("--motion", cfg->motion, "joint trajectory CSV (as `kinetrack track` writes it)")->required();
  id->add_option("--out", cfg->out, "generalised forces CSV: time, base force and moment, joint torques, valid")
      ->required();
  id->add_option("--gravity", cfg->gravity, "gravity along -z (m/s^2)")->capture_default_str();
  id->callback([&action, cfg] { action = [cfg] { return runInverseDynamics(*cfg); }; });
}

}  // namespace kinetrack::cli
