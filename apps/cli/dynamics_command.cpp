// `kinetrack dynamics id`: inverse dynamics of a joint trajectory (the CSV `kinetrack track`
// writes): optionally a zero-lag Butterworth low-pass of the motion, velocities and
// accelerations by finite differences on the configuration manifold, RNEA per frame with the
// external wrenches of a wrench CSV matched by time, the generalised forces per input row (the
// floating base's residual first), and a summary of the base residual against the body weight
// with and without the external load.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "dynamics_filter_command.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/force_csv.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/io/wrench_csv.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "opensim_id_command.hpp"

namespace kinetrack::cli {
namespace {

struct IdConfig {
  ModelSpec model;
  std::string motion, out;
  double gravity = 9.80665;              ///< m/s², along −z
  std::string wrench_file;               ///< external-wrench CSV (empty: no external load)
  std::string wrench_outside = "error";  ///< motion rows outside the wrench file's times: error | zero
  std::string derivatives = "fd";        ///< fd | butterworth
  double cutoff = 6.0;                   ///< Hz, −3 dB frequency of the zero-lag low-pass (butterworth)
  bool cutoff_given = false;
};

// The wrenches of the wrench file at the motion's times, one list per row, and how many rows lie
// outside the file's time range (checked here first, for a message that names the option).
struct MotionWrenches {
  std::vector<std::vector<ExternalWrench>> per_frame;
  int outside = 0;        // rows outside the file's time range
  std::size_t count = 0;  // bodies
  std::string bodies;     // "LeftFoot, RightFoot"
};

MotionWrenches loadWrenches(const IdConfig& cfg, const Model& m, const std::vector<double>& times) {
  MotionWrenches out;
  const io::WrenchTrajectory w = io::readWrenchCsv(cfg.wrench_file);
  const std::vector<LinkId> links = io::bindWrenchBodies(w, m);
  const double first = w.times.front() - io::kWrenchTimeTolerance, last = w.times.back() + io::kWrenchTimeTolerance;
  int first_out = -1, last_out = -1;
  for (std::size_t k = 0; k < times.size(); ++k)
    if (times[k] < first || times[k] > last) {
      if (first_out < 0) first_out = static_cast<int>(k);
      last_out = static_cast<int>(k);
      ++out.outside;
    }
  if (out.outside > 0 && cfg.wrench_outside == "error")
    throw UsageError(fmt::format(
        "{}: its times {:g} … {:g} s do not cover {} of the {} rows of the motion {} (the first at t = {:g} s, the "
        "last at t = {:g} s); pass --wrench-outside zero to apply no external load there",
        cfg.wrench_file, w.times.front(), w.times.back(), out.outside, times.size(), cfg.motion,
        times[static_cast<std::size_t>(first_out)], times[static_cast<std::size_t>(last_out)]));
  const io::WrenchTrajectory r =
      io::resampleWrenches(w, times, cfg.wrench_outside == "zero" ? io::WrenchOutside::Zero : io::WrenchOutside::Error);
  out.count = links.size();
  out.per_frame.assign(times.size(), std::vector<ExternalWrench>(links.size()));
  for (std::size_t b = 0; b < links.size(); ++b) {
    const io::BodyWrenches& bw = r.bodies[b];
    out.bodies += (b ? ", " : "") + bw.body;
    for (std::size_t k = 0; k < times.size(); ++k)
      out.per_frame[k][b] = {links[b], bw.force[k], bw.point[k], bw.moment[k]};
  }
  return out;
}

int runInverseDynamics(const IdConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (cfg.out.empty()) throw UsageError("--out is required");
  if (!std::isfinite(cfg.gravity) || cfg.gravity < 0.0) throw UsageError("--gravity must be finite and >= 0 (m/s^2)");
  const bool smooth = cfg.derivatives == "butterworth";
  if (cfg.cutoff_given && !smooth) throw UsageError("--cutoff applies to --derivatives butterworth only");
  if (smooth && (!std::isfinite(cfg.cutoff) || !(cfg.cutoff > 0.0)))
    throw UsageError("--cutoff must be finite and > 0 (Hz)");
  if (cfg.wrench_file.empty() && cfg.wrench_outside != "error")
    throw UsageError("--wrench-outside applies to --wrench-file only");
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  const Model& m = lm.model;
  const double mass = m.totalMass();
  const io::JointTrajectory traj = io::readJointCsv(cfg.motion);
  const std::vector<Configuration> raw = io::toConfigurations(traj, m);
  const bool loaded = !cfg.wrench_file.empty();
  const MotionWrenches wrenches = loaded ? loadWrenches(cfg, m, traj.times) : MotionWrenches{};
  // The smoothed motion is used throughout (RNEA at the filtered q too, as OpenSim's ID tool does).
  const std::vector<Configuration> q = smooth ? lowPassMotion(m, raw, traj.times, cfg.cutoff, traj.gap) : raw;
  const TrajectoryDerivatives d = differentiate(m, q, traj.times, traj.gap);
  const Vector3d gravity(0.0, 0.0, -cfg.gravity);
  const std::vector<VectorXd> tau = inverseDynamics(m, q, d, gravity);
  const std::vector<VectorXd> tau_loaded =
      loaded ? inverseDynamics(m, q, d, wrenches.per_frame, gravity) : std::vector<VectorXd>{};
  io::writeForceCsv(cfg.out, m, traj.times, loaded ? tau_loaded : tau, d.valid);

  // Summary: the base residual (the ground reaction and any missing support) against the weight,
  // without and with the external load, and the largest joint torque (of the written τ).
  const std::vector<VectorXd>& written = loaded ? tau_loaded : tau;
  std::vector<double> fz, fxy, fz_loaded, f_loaded, m_loaded;
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
      if (loaded) {
        fz_loaded.push_back(tau_loaded[k][2]);
        f_loaded.push_back(tau_loaded[k].head<3>().norm());
        m_loaded.push_back(tau_loaded[k].segment<3>(3).norm());
      }
    }
    for (int j = 0; j < m.numJoints(); ++j)
      if (std::abs(written[k][nb + j]) > worst) {
        worst = std::abs(written[k][nb + j]);
        worst_joint = j;
      }
  }
  const auto mean = [](const std::vector<double>& x) {
    return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  };
  const double weight = mass * cfg.gravity;
  fmt::print("inverse dynamics of {} on {} ({} DoF, {:.2f} kg)\n", cfg.motion, m.name(), m.numJoints(), mass);
  fmt::print("  {:<28} {}\n", "frames", tau.size());
  fmt::print("  {:<28} {} (a gap touches the difference stencil; written as zeros, valid = 0)\n",
             "frames without a value", invalid);
  if (smooth)
    fmt::print("  {:<28} zero-lag Butterworth low-pass at {:g} Hz, then finite differences\n", "derivatives",
               cfg.cutoff);
  if (loaded)
    fmt::print("  {:<28} {}: {} {} ({}); {} row(s) outside its time range{}\n", "external wrenches", cfg.wrench_file,
               wrenches.count, wrenches.count == 1 ? "body" : "bodies", wrenches.bodies, wrenches.outside,
               wrenches.outside > 0 ? " (no load there)" : "");
  if (nb == 6 && !fz.empty()) {
    const metrics::Summary z = metrics::summarize(fz), h = metrics::summarize(fxy);
    const char* without = loaded ? ", without the external load" : "";
    if (loaded)
      fmt::print(
          "  {:<28} {:.1f} N without the external load, {:.1f} N with it (body weight {:.1f} N: {:.3f} x, "
          "{:.3f} x)\n",
          "base vertical force, mean", mean(fz), mean(fz_loaded), weight, mean(fz) / weight, mean(fz_loaded) / weight);
    else
      fmt::print("  {:<28} {:.1f} N (body weight {:.1f} N: {:.3f} x)\n", "base vertical force, mean", mean(fz), weight,
                 mean(fz) / weight);
    fmt::print("  {:<28} {:.1f} / {:.1f} / {:.1f} N (median / p95 / max{})\n", "base vertical force", z.median, z.p95,
               z.max, without);
    fmt::print("  {:<28} {:.1f} / {:.1f} N (median / max{})\n", "base horizontal force", h.median, h.max, without);
    if (loaded) {
      const metrics::Summary f = metrics::summarize(f_loaded), mo = metrics::summarize(m_loaded);
      fmt::print("  {:<28} {:.1f} / {:.1f} / {:.1f} N (|force| with the external load: median / p95 / max)\n",
                 "base residual force", f.median, f.p95, f.max);
      fmt::print("  {:<28} {:.1f} / {:.1f} / {:.1f} N m (|moment about the base origin|, same)\n",
                 "base residual moment", mo.median, mo.p95, mo.max);
    }
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
  addDynamicsFilterCommand(*dynamics, action);
  auto cfg = std::make_shared<IdConfig>();
  auto osim = std::make_shared<OpenSimIdConfig>();
  CLI::App* id = dynamics->add_subcommand(
      "id", "inverse dynamics of a joint trajectory CSV: generalised forces per row (base residual first)");
  id->add_option("--model", cfg->model.model,
                 "URDF with inertials, a built-in model with masses, or an OpenSim model (.osim: OpenSim's ID "
                 "pipeline on a .mot/.sto coordinate file, writes OpenSim's .sto)")
      ->required();
  id->add_option("--height", cfg->model.height, "body height of a built-in model (m)");
  id->add_option("--mass", cfg->model.mass, "body mass of a built-in model (kg)");
  id->add_option("--motion", cfg->motion,
                 "joint trajectory CSV (as `kinetrack track` writes it), or a .mot/.sto for an .osim model")
      ->required();
  id->add_option("--out", cfg->out, "generalised forces CSV: time, base force and moment, joint torques, valid")
      ->required();
  id->add_option("--gravity", cfg->gravity, "gravity along -z (m/s^2)")->capture_default_str();
  id->add_option("--wrench-file", cfg->wrench_file,
                 "external wrenches CSV (world frame; time,<body>.fx,fy,fz,px,py,pz[,mx,my,mz]; docs/formats.md), "
                 "matched to the motion rows by linear interpolation in time");
  id->add_option("--wrench-outside", cfg->wrench_outside,
                 "motion rows outside the wrench file's time range: error, or zero (no external load there)")
      ->check(CLI::IsMember({"error", "zero"}))
      ->capture_default_str();
  id->add_option("--derivatives", cfg->derivatives,
                 "velocities and accelerations: fd (finite differences of the motion as given) or butterworth "
                 "(zero-lag 4th-order low-pass at --cutoff first)")
      ->check(CLI::IsMember({"fd", "butterworth"}))
      ->capture_default_str();
  CLI::Option* cutoff = id->add_option("--cutoff", cfg->cutoff, "-3 dB frequency of the butterworth low-pass (Hz)")
                            ->capture_default_str();
  id->add_option("--loads", osim->loads,
                 "OpenSim model only: ExternalLoads XML (*_grf.xml; its <datafile> is read relative to it)");
  id->add_option("--setup", osim->setup,
                 "OpenSim model only: InverseDynamicsTool setup XML (time range, coordinate low-pass cut-off, "
                 "external loads file)");
  id->add_option("--reference", osim->reference,
                 "OpenSim model only: an ID result .sto to compare with (per-column RMS table)");
  id->add_option("--com-offset", osim->com_offset,
                 "OpenSim model only: BODY:X,Y,Z moves the body's mass centre by (X, Y, Z) m in its frame (the offset "
                 "`dynamics filter --adjust-com` reports)");
  id->add_option("--plot", osim->plot, "OpenSim model only: PNG overlay of ours vs --reference");
  id->add_option("--degrees", osim->degrees, "OpenSim model only: motion angles in degrees: auto (header), yes, no")
      ->check(CLI::IsMember({"auto", "yes", "no"}))
      ->capture_default_str();
  id->add_option("--start", osim->time_start, "OpenSim model only: first time (s) when no setup gives the range");
  id->add_option("--end", osim->time_end, "OpenSim model only: last time (s) when no setup gives the range");
  id->add_flag("--quiet", osim->quiet, "OpenSim model only: no progress bar");
  id->callback([&action, cfg, osim, cutoff] {
    cfg->cutoff_given = cutoff->count() > 0;
    const std::string& model = cfg->model.model;
    const bool is_osim = model.size() > 5 && model.compare(model.size() - 5, 5, ".osim") == 0;
    if (is_osim) {
      osim->model = model;
      osim->motion = cfg->motion;
      osim->out = cfg->out;
      osim->cutoff_given = cfg->cutoff_given;
      osim->cutoff = cfg->cutoff;
      action = [cfg, osim] {
        if (cfg->derivatives != "fd" || !cfg->wrench_file.empty())
          throw UsageError(
              "--derivatives and --wrench-file apply to URDF / built-in models; an .osim model takes "
              "--loads and --setup (OpenSim's ID pipeline)");
        return runOpenSimInverseDynamics(*osim);
      };
      return;
    }
    action = [cfg, osim] {
      if (!osim->loads.empty() || !osim->setup.empty() || !osim->reference.empty() || !osim->com_offset.empty())
        throw UsageError("--loads, --setup, --reference and --com-offset apply to an OpenSim model (--model M.osim)");
      return runInverseDynamics(*cfg);
    };
  });
}

}  // namespace kinetrack::cli
