// `kinetrack simulate`: forward simulation of a model (SPEC §5): ABA for an open tree, the
// assembly–disassembly forward dynamics when links are held (loop closures: a figure on a bar),
// with holds released at given times (the paper's Fig. 4: both hands on the bar, then the right
// hand lets go). Writes the joint trajectory CSV `kinetrack track` writes, prints a summary
// (energy, momentum, closure errors, hold forces, time per step) and, on request, a PNG.
#include <fmt/format.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/simulator.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

constexpr double kDriftLimit = 0.01;  // m: a hold that slipped this far has failed

struct SimConfig {
  ModelSpec model;
  std::string out, plot, initial = "zero";
  double duration = 2.0, step = 1e-3, gravity = 9.80665, rate = 100.0, velocity = 0.0, posture = 0.0;
  double base_height = 0.0;
  std::string integrator = "rk4", solver = "auto", schedule = "serial";
  int threads = 1, refine = 1;
  unsigned seed = 1;
  std::vector<std::string> holds;  // FRAME or FRAME@T (released at T seconds)
};

struct Hold {
  FrameId frame;
  std::string name;
  double release = std::numeric_limits<double>::infinity();
};

std::vector<Hold> parseHolds(const Model& m, const std::vector<std::string>& specs) {
  std::vector<Hold> holds;
  for (const std::string& s : specs) {
    Hold h;
    const auto at = s.find('@');
    h.name = s.substr(0, at);
    if (at != std::string::npos) {
      h.release = parseFiniteDouble(s.substr(at + 1), "--hold " + s + " (release time, s)");
      if (h.release < 0.0) throw UsageError("--hold " + s + ": the release time must be >= 0 s");
    }
    const auto f = m.findFrame(h.name);
    if (!f) throw UsageError("--hold: '" + h.name + "' is not a frame of " + m.name() + " (see kinetrack model info)");
    h.frame = *f;
    holds.push_back(h);
  }
  return holds;
}

Configuration initialConfiguration(const Model& m, const SimConfig& cfg, std::mt19937_64& rng) {
  Configuration q(m);
  if (cfg.initial == "zero") {
  } else if (cfg.initial == "random") {
    RandomConfigurationOptions o;
    o.base_box = 0.0;
    q = randomConfiguration(m, rng, o);
    q.base_rotation.setIdentity();
  } else {
    const io::JointTrajectory traj = io::readJointCsv(cfg.initial);
    if (traj.numFrames() == 0) throw ParseError(cfg.initial, 0, "no rows");
    q = io::toConfigurations(traj, m).front();
  }
  q.base_position.z() += cfg.base_height;
  return q;
}

int runSimulate(const SimConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (!(cfg.duration > 0.0) || !std::isfinite(cfg.duration)) throw UsageError("--duration must be > 0 (s)");
  if (!(cfg.step > 0.0) || cfg.step > cfg.duration) throw UsageError("--step must be > 0 and <= --duration (s)");
  if (!(cfg.rate > 0.0)) throw UsageError("--rate must be > 0 (Hz)");
  if (!std::isfinite(cfg.gravity)) throw UsageError("--gravity must be finite (m/s^2)");
  if (cfg.velocity < 0.0 || cfg.posture < 0.0) throw UsageError("--velocity and --posture-gain must be >= 0");
  if (cfg.threads < 1 || cfg.refine < 0) throw UsageError("--threads must be >= 1 and --refine >= 0");
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  auto model = std::make_shared<const Model>(lm.model);
  const Model& m = *model;
  const std::vector<Hold> holds = parseHolds(m, cfg.holds);
  std::mt19937_64 rng(cfg.seed);
  const Configuration q0 = initialConfiguration(m, cfg, rng);

  const bool assembly = cfg.solver == "assembly" || (cfg.solver == "auto" && !holds.empty());
  if (!holds.empty() && !assembly) throw UsageError("--hold needs --solver assembly (or auto)");
  Simulator sim(model, cfg.integrator == "euler" ? Integrator::SemiImplicitEuler : Integrator::RungeKutta4,
                Vector3d(0, 0, -cfg.gravity));
  // The closures active now (holds not yet released), as a plan; rebuilt at each release.
  std::vector<LoopClosure> all;
  for (const Hold& h : holds) all.push_back(LoopClosure::holding(m, q0, h.name, h.frame));
  std::vector<std::uint8_t> active(holds.size(), 1);
  auto plan = [&] {
    AssemblyOptions o;
    o.schedule = parseAssemblySchedule(cfg.schedule);
    o.threads = cfg.threads;
    o.refinement_steps = cfg.refine;
    for (std::size_t k = 0; k < holds.size(); ++k)
      if (active[k]) o.loops.push_back(all[k]);
    sim.setAssembly(o);
  };
  if (assembly) plan();

  // Initial velocity: random, projected onto what the holds allow (G v = 0, G their Jacobian).
  VectorXd v = VectorXd::Zero(m.nv());
  if (cfg.velocity > 0.0) {
    std::normal_distribution<double> g(0.0, cfg.velocity);
    for (int i = 0; i < m.nv(); ++i) v[i] = g(rng);
    if (!holds.empty()) {
      DynamicsData d(m);
      crba(m, d, q0);  // motion subspaces at q0
      MatrixXd G = MatrixXd::Zero(6 * static_cast<int>(holds.size()), m.nv());
      for (std::size_t k = 0; k < holds.size(); ++k) {
        const int link = m.frameLink(holds[k].frame).value;
        const int r = 6 * static_cast<int>(k);
        if (m.nvBase() == 6) G.block(r, 0, 6, 6) = d.base_subspace;
        for (const std::int32_t j : m.support(LinkId(link)))
          G.block(r, m.nvBase() + j, 6, 1) = d.subspace[static_cast<std::size_t>(j)];
      }
      v -= G.transpose() * (G * G.transpose()).completeOrthogonalDecomposition().solve(G * v);
    }
  }
  sim.setState(q0, v);

  // Posture control: PD to q0 with per-joint gains ω², 2ω times the joint's effective inertia
  // 1/(M⁻¹)_jj at q0 (critically damped at ω rad/s whatever the segment's size).
  VectorXd kp = VectorXd::Zero(m.numJoints()), kd = VectorXd::Zero(m.numJoints());
  if (cfg.posture > 0.0) {
    DynamicsData d(m);
    const MatrixXd Minv = crba(m, d, q0).inverse();
    for (int j = 0; j < m.numJoints(); ++j) {
      const double inertia = 1.0 / Minv(m.nvBase() + j, m.nvBase() + j);
      kp[j] = cfg.posture * cfg.posture * inertia;
      kd[j] = 2.0 * cfg.posture * inertia;
    }
  }
  VectorXd tau = VectorXd::Zero(m.nv());
  auto torques = [&] {
    if (cfg.posture > 0.0)
      tau.tail(m.numJoints()) = -kp.cwiseProduct(sim.configuration().joints - q0.joints) -
                                kd.cwiseProduct(sim.velocity().tail(m.numJoints()));
    return tau;
  };

  DynamicsData energy_data(m);
  const double mass = m.totalMass();
  auto energy = [&] {
    const Vector3d com = centerOfMass(m, energy_data, sim.configuration());
    return sim.kineticEnergy() + mass * cfg.gravity * com.z();
  };
  const double e0 = energy();
  const Vector6d p0 = sim.momentum();

  io::JointCsvWriter out(m, cfg.out);
  const auto steps = static_cast<long>(std::llround(cfg.duration / cfg.step));
  const long every = std::max(1L, std::lround(1.0 / (cfg.rate * cfg.step)));
  out.write(0.0, sim.configuration(), false);
  ProgressBar bar(static_cast<int>(std::min<long>(steps, 1L << 30)), true, "step");
  std::vector<double> step_us, t_plot, e_plot, gap_plot;
  step_us.reserve(static_cast<std::size_t>(steps));
  for (auto* v : {&t_plot, &e_plot, &gap_plot}) v->reserve(static_cast<std::size_t>(steps / every + 2));
  std::vector<double> hold_force_z(holds.size(), 0.0);
  std::vector<long> hold_samples(holds.size(), 0);
  double worst_gap = 0.0, worst_rotation = 0.0;
  long done = 0;
  std::string diverged;
  for (long k = 1; k <= steps; ++k) {
    const double t = static_cast<double>(k) * cfg.step;
    for (std::size_t h = 0; h < holds.size(); ++h)
      if (active[h] && t - cfg.step >= holds[h].release) {
        active[h] = 0;
        plan();
        fmt::print("  released {} at t = {:.3f} s\n", holds[h].name, t - cfg.step);
      }
    const auto t0 = std::chrono::steady_clock::now();
    sim.step(cfg.step, torques());
    step_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    const Configuration& q = sim.configuration();
    if (!sim.velocity().allFinite() || !q.joints.allFinite() || !q.base_position.allFinite()) {
      diverged = fmt::format("the state became non-finite at t = {:.4f} s", t);
      break;
    }
    done = k;
    if (k % every != 0 && k != steps) {
      if (k % 64 == 0) bar.update(static_cast<int>(std::min<long>(k, 1L << 30)));
      continue;
    }
    // An output row: closure errors and forces at this state (one more evaluation of the
    // dynamics, at the output rate rather than every step), the row, the plot samples.
    if (sim.assemblyPlan() != nullptr) {
      sim.accelerationNow(torques());
      const AssemblyData& ad = *sim.assemblyData();
      std::size_t slot = 0;
      for (std::size_t h = 0; h < holds.size(); ++h) {
        if (!active[h]) continue;
        worst_gap = std::max(worst_gap, ad.closure_position_error[slot]);
        worst_rotation = std::max(worst_rotation, ad.closure_rotation_error[slot]);
        hold_force_z[h] += ad.closure_force[slot][5];
        ++hold_samples[h];
        ++slot;
      }
      if (worst_gap > kDriftLimit) {
        diverged = fmt::format("a held frame drifted {:.3g} m from its hold at t = {:.4f} s", worst_gap, t);
        done = k - 1;
        break;
      }
    }
    out.write(t, q, false);
    t_plot.push_back(t);
    e_plot.push_back(energy() - e0);
    gap_plot.push_back(worst_gap);
    if (k % 64 == 0) bar.update(static_cast<int>(std::min<long>(k, 1L << 30)));
  }
  bar.update(static_cast<int>(std::min<long>(steps, 1L << 30)));
  out.commit();

  if (!diverged.empty()) {
    fmt::print(stderr,
               "kinetrack: error: {} after {} good steps; {} rows written to {}. A held figure whose arm is "
               "straight (or straightens) is at a singular closure — an impact a rigid model cannot absorb; hold "
               "a bent-arm posture (--initial), add --posture-gain, or hold fewer frames.\n",
               diverged, done, out.rows(), cfg.out);
    return kExitFailure;
  }
  const double e1 = energy();
  const Vector6d p1 = sim.momentum();
  const metrics::Summary per_step = metrics::summarize(step_us);
  fmt::print("simulated {} ({} DoF, {:.2f} kg) for {:.3f} s at {:g} s steps ({}, {}{})\n", m.name(), m.numJoints(),
             mass, static_cast<double>(done) * cfg.step, cfg.step,
             cfg.integrator == "euler" ? "semi-implicit Euler" : "RK4",
             assembly ? "assembly–disassembly, " + cfg.schedule : std::string("ABA"),
             assembly ? fmt::format(" x{}", cfg.threads) : std::string());
  fmt::print("  {:<30} {}\n", "steps", done);
  fmt::print("  {:<30} {:.2f} / {:.2f} / {:.2f} us (median / p95 / max)\n", "time per step", per_step.median,
             per_step.p95, per_step.max);
  fmt::print("  {:<30} {:.6g} J -> {:.6g} J (change {:.3g} J{})\n", "energy (kinetic + potential)", e0, e1, e1 - e0,
             cfg.posture > 0.0 ? ", posture control dissipates" : "");
  if (cfg.gravity == 0.0 && holds.empty())
    fmt::print("  {:<30} {:.3g} (relative change)\n", "momentum", (p1 - p0).norm() / std::max(1e-12, p0.norm()));
  for (std::size_t h = 0; h < holds.size(); ++h)
    fmt::print("  {:<30} mean vertical force {:.1f} N over {:.3f} s{}\n", "hold " + holds[h].name,
               hold_samples[h] ? hold_force_z[h] / static_cast<double>(hold_samples[h]) : 0.0,
               std::min(holds[h].release, static_cast<double>(done) * cfg.step),
               std::isfinite(holds[h].release) ? fmt::format(" (released at {:g} s)", holds[h].release) : "");
  if (!holds.empty())
    fmt::print("  {:<30} {:.3g} m, {:.3g} rad (largest while held, at the output rows)\n", "hold drift", worst_gap,
               worst_rotation);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("  {:<30} {:.2f} s\n", "wall time", seconds);
  fmt::print("wrote {} ({} rows)\n", cfg.out, out.rows());
  if (!cfg.plot.empty() && !t_plot.empty()) {
    std::string csv = "time,energy_change,hold_drift\n";
    for (std::size_t i = 0; i < t_plot.size(); ++i) csv += fmt::format("{},{},{}\n", t_plot[i], e_plot[i], gap_plot[i]);
    const std::string data = cfg.plot + ".csv";
    io::writeFileAtomically(data, csv);
    runPlot(findScript("", "plot_simulation.py"), "plot_simulation.py", {data, cfg.plot}, cfg.plot);
  }
  return kExitOk;
}

}  // namespace

void addSimulateCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<SimConfig>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "forward dynamics of a model (ABA, or assembly–disassembly with links held, e.g. hands on a bar)");
  cmd->add_option("--model", cfg->model.model, "built-in model or URDF with inertials")->required();
  cmd->add_option("--height", cfg->model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->model.mass, kMassHelp);
  cmd->add_option("--out", cfg->out, "joint trajectory CSV (the layout `kinetrack track` writes)")->required();
  cmd->add_option("--duration", cfg->duration, "simulated time (s)")->capture_default_str();
  cmd->add_option("--step", cfg->step, "integration step (s)")->capture_default_str();
  cmd->add_option("--rate", cfg->rate, "output rows per second (Hz)")->capture_default_str();
  cmd->add_option("--integrator", cfg->integrator, "rk4 or euler (semi-implicit)")
      ->check(CLI::IsMember({"rk4", "euler"}))
      ->capture_default_str();
  cmd->add_option("--gravity", cfg->gravity, "gravity along -z (m/s^2; 0 = weightless)")->capture_default_str();
  cmd->add_option("--initial", cfg->initial,
                  "initial configuration: zero, random (within the joint limits, --seed) or a joint CSV (first row)")
      ->capture_default_str();
  cmd->add_option("--base-height", cfg->base_height, "added to the initial base height (m)")->capture_default_str();
  cmd->add_option("--velocity", cfg->velocity,
                  "random initial velocity, standard deviation per coordinate (rad/s, m/s; the holds' allowed part)")
      ->capture_default_str();
  cmd->add_option("--seed", cfg->seed, "random seed of --initial random and --velocity")->capture_default_str();
  cmd->add_option("--hold", cfg->holds,
                  "hold a frame where it is at the start (a rigid grip: loop closure to the world); FRAME@T lets "
                  "go at T s (repeatable)");
  cmd->add_option("--posture-gain", cfg->posture,
                  "PD holding the initial posture, natural frequency (rad/s; 0 = limp joints)")
      ->capture_default_str();
  cmd->add_option("--solver", cfg->solver, "auto (assembly with holds, else ABA), aba or assembly")
      ->check(CLI::IsMember({"auto", "aba", "assembly"}))
      ->capture_default_str();
  cmd->add_option("--schedule", cfg->schedule, "assembly schedule: serial or parallel")
      ->check(CLI::IsMember({"serial", "parallel"}))
      ->capture_default_str();
  cmd->add_option("--threads", cfg->threads, "assembly threads")->capture_default_str();
  cmd->add_option("--refine", cfg->refine, "assembly refinement steps")->capture_default_str();
  cmd->add_option("--plot", cfg->plot, "PNG of the energy change and hold drift over time");
  cmd->callback([&action, cfg] { action = [cfg] { return runSimulate(*cfg); }; });
}

}  // namespace kinetrack::cli
