#include "kinetrack/app/simulate_job.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <Eigen/QR>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/simulator.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::app {
namespace {

constexpr double kDriftLimit = 0.01;  // m: a hold that slipped this far has failed

struct Hold {
  FrameId frame;
  std::string name;
  double release = std::numeric_limits<double>::infinity();
};

Configuration initialConfiguration(const Model& m, const SimulateOptions& cfg, std::mt19937_64& rng) {
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

}  // namespace

SimulateResult runSimulate(const SimulateOptions& cfg, const Reporter& reporter) {
  const auto start = std::chrono::steady_clock::now();
  if (!(cfg.duration > 0.0) || !std::isfinite(cfg.duration)) throw InvalidArgument("--duration must be > 0 (s)");
  if (!(cfg.step > 0.0) || cfg.step > cfg.duration) throw InvalidArgument("--step must be > 0 and <= --duration (s)");
  if (!(cfg.rate > 0.0)) throw InvalidArgument("--rate must be > 0 (Hz)");
  if (!std::isfinite(cfg.gravity)) throw InvalidArgument("--gravity must be finite (m/s^2)");
  if (cfg.velocity < 0.0 || cfg.posture_gain < 0.0) throw InvalidArgument("--velocity and --posture-gain must be >= 0");
  if (cfg.threads < 1 || cfg.refine < 0) throw InvalidArgument("--threads must be >= 1 and --refine >= 0");
  const io::LoadedModel lm = loadModel(cfg.model, reporter);
  auto model = std::make_shared<const Model>(lm.model);
  const Model& m = *model;
  std::vector<Hold> holds;
  for (const HoldSpec& s : cfg.holds) {
    const auto f = m.findFrame(s.frame);
    if (!f)
      throw InvalidArgument("--hold: '" + s.frame + "' is not a frame of " + m.name() + " (see kinetrack model info)");
    holds.push_back({*f, s.frame, s.release});
  }
  std::mt19937_64 rng(cfg.seed);
  const Configuration q0 = initialConfiguration(m, cfg, rng);

  const bool assembly = cfg.solver == "assembly" || (cfg.solver == "auto" && !holds.empty());
  if (!holds.empty() && !assembly) throw InvalidArgument("--hold needs --solver assembly (or auto)");
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
  if (cfg.posture_gain > 0.0) {
    DynamicsData d(m);
    const MatrixXd Minv = crba(m, d, q0).inverse();
    for (int j = 0; j < m.numJoints(); ++j) {
      const double inertia = 1.0 / Minv(m.nvBase() + j, m.nvBase() + j);
      kp[j] = cfg.posture_gain * cfg.posture_gain * inertia;
      kd[j] = 2.0 * cfg.posture_gain * inertia;
    }
  }
  VectorXd tau = VectorXd::Zero(m.nv());
  auto torques = [&] {
    if (cfg.posture_gain > 0.0)
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

  SimulateResult r;
  r.model = model;
  r.model_name = m.name();
  r.dof = m.numJoints();
  r.mass = mass;
  r.assembly = assembly;
  r.energy_start = e0;
  std::optional<io::JointCsvWriter> out;
  if (!cfg.out.empty()) out.emplace(m, cfg.out);
  const auto row = [&](double t, const Configuration& q) {
    if (out) out->write(t, q, false);
    r.times.push_back(t);
    r.q.push_back(q);
  };
  const auto steps = static_cast<long>(std::llround(cfg.duration / cfg.step));
  const long every = std::max(1L, std::lround(1.0 / (cfg.rate * cfg.step)));
  row(0.0, sim.configuration());
  const int total = static_cast<int>(std::min<long>(steps, 1L << 30));
  std::vector<double> step_us;
  step_us.reserve(static_cast<std::size_t>(steps));
  r.energy_change.push_back(0.0);
  r.hold_drift.push_back(0.0);
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
        reporter.say(fmt::format("  released {} at t = {:.3f} s\n", holds[h].name, t - cfg.step));
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
      if (k % 64 == 0) reporter.report(static_cast<int>(std::min<long>(k, 1L << 30)), total, "");
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
    row(t, q);
    r.energy_change.push_back(energy() - e0);
    r.hold_drift.push_back(worst_gap);
    if (k % 64 == 0) reporter.report(static_cast<int>(std::min<long>(k, 1L << 30)), total, "");
  }
  reporter.report(total, total, "");
  if (out) {
    out->commit();
    r.rows_written = out->rows();
  }
  r.steps = done;
  r.diverged = diverged;
  r.worst_gap = worst_gap;
  r.worst_rotation = worst_rotation;
  for (std::size_t h = 0; h < holds.size(); ++h)
    r.hold_force_z.push_back(hold_samples[h] ? hold_force_z[h] / static_cast<double>(hold_samples[h]) : 0.0);

  if (diverged.empty()) {
    r.energy_end = energy();
    const Vector6d p1 = sim.momentum();
    r.momentum_change = (p1 - p0).norm() / std::max(1e-12, p0.norm());
    const metrics::Summary per_step = metrics::summarize(step_us);
    r.step_us_median = per_step.median;
    r.step_us_p95 = per_step.p95;
    r.step_us_max = per_step.max;
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string summaryText(const SimulateResult& r, const SimulateOptions& cfg) {
  if (!r.diverged.empty())
    return fmt::format(
        "{} after {} good steps; {} rows written to {}. A held figure whose arm is straight (or straightens) is at a "
        "singular closure — an impact a rigid model cannot absorb; hold a bent-arm posture (--initial), add "
        "--posture-gain, or hold fewer frames.",
        r.diverged, r.steps, r.rows_written, cfg.out);
  std::string t = fmt::format("simulated {} ({} DoF, {:.2f} kg) for {:.3f} s at {:g} s steps ({}, {}{})\n",
                              r.model_name, r.dof, r.mass, static_cast<double>(r.steps) * cfg.step, cfg.step,
                              cfg.integrator == "euler" ? "semi-implicit Euler" : "RK4",
                              r.assembly ? "assembly–disassembly, " + cfg.schedule : std::string("ABA"),
                              r.assembly ? fmt::format(" x{}", cfg.threads) : std::string());
  t += fmt::format("  {:<30} {}\n", "steps", r.steps);
  t += fmt::format("  {:<30} {:.2f} / {:.2f} / {:.2f} us (median / p95 / max)\n", "time per step", r.step_us_median,
                   r.step_us_p95, r.step_us_max);
  t += fmt::format("  {:<30} {:.6g} J -> {:.6g} J (change {:.3g} J{})\n", "energy (kinetic + potential)",
                   r.energy_start, r.energy_end, r.energy_end - r.energy_start,
                   cfg.posture_gain > 0.0 ? ", posture control dissipates" : "");
  if (cfg.gravity == 0.0 && cfg.holds.empty())
    t += fmt::format("  {:<30} {:.3g} (relative change)\n", "momentum", r.momentum_change);
  for (std::size_t h = 0; h < cfg.holds.size(); ++h)
    t += fmt::format(
        "  {:<30} mean vertical force {:.1f} N over {:.3f} s{}\n", "hold " + cfg.holds[h].frame, r.hold_force_z[h],
        std::min(cfg.holds[h].release, static_cast<double>(r.steps) * cfg.step),
        std::isfinite(cfg.holds[h].release) ? fmt::format(" (released at {:g} s)", cfg.holds[h].release) : "");
  if (!cfg.holds.empty())
    t += fmt::format("  {:<30} {:.3g} m, {:.3g} rad (largest while held, at the output rows)\n", "hold drift",
                     r.worst_gap, r.worst_rotation);
  t += fmt::format("  {:<30} {:.2f} s\n", "wall time", r.wall_seconds);
  return t;
}

std::string energyCsv(const SimulateResult& r) {
  std::string csv = "time,energy_change,hold_drift\n";
  for (std::size_t i = 1; i < r.times.size(); ++i)
    csv += fmt::format("{},{},{}\n", r.times[i], r.energy_change[i], r.hold_drift[i]);
  return csv;
}

HoldSpec parseHold(const std::string& s) {
  HoldSpec h;
  const auto at = s.find('@');
  h.frame = s.substr(0, at);
  if (at != std::string::npos) {
    const std::string text = s.substr(at + 1);
    char* end = nullptr;
    h.release = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(h.release))
      throw InvalidArgument("--hold " + s + " (release time, s): '" + text + "' is not a finite number");
    if (h.release < 0.0) throw InvalidArgument("--hold " + s + ": the release time must be >= 0 s");
  }
  return h;
}

}  // namespace kinetrack::app
