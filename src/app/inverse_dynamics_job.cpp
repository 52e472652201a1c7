#include "kinetrack/app/inverse_dynamics_job.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/com_adjustment.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/io/table/force_csv.hpp"
#include "kinetrack/io/table/wrench_csv.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::app {
namespace {

using Clock = std::chrono::steady_clock;

// The wrenches of the wrench file at the motion's times, one list per row, and how many rows lie
// outside the file's time range (checked here first, for a message that names the option).
struct MotionWrenches {
  std::vector<std::vector<ExternalWrench>> per_frame;
  int outside = 0;        // rows outside the file's time range
  std::size_t count = 0;  // bodies
  std::string bodies;     // "LeftFoot, RightFoot"
};

MotionWrenches loadWrenches(const InverseDynamicsOptions& cfg, const std::string& motion, const Model& m,
                            const std::vector<double>& times) {
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
    throw InvalidArgument(fmt::format(
        "{}: its times {:g} … {:g} s do not cover {} of the {} rows of the motion {} (the first at t = {:g} s, the "
        "last at t = {:g} s); pass --wrench-outside zero to apply no external load there",
        cfg.wrench_file, w.times.front(), w.times.back(), out.outside, times.size(), motion,
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

// A joint CSV of the .osim model (what `markers ik --out x.csv` writes) as its coordinate table
// (radians and metres; the joints are the model's coordinates).
io::MotTable coordinatesOfJointCsv(const io::OpenSimModel& model, const std::string& path) {
  const io::JointTrajectory traj = io::readJointCsv(path);
  const std::vector<Configuration> q = io::toConfigurations(traj, *model.model);
  io::MotTable t;
  t.name = path;
  t.in_degrees = false;
  t.in_degrees_declared = true;
  t.times = traj.times;
  t.values.resize(static_cast<Eigen::Index>(q.size()), static_cast<Eigen::Index>(model.coordinates.size()));
  for (std::size_t c = 0; c < model.coordinates.size(); ++c) {
    t.columns.push_back(model.coordinates[c].name);
    for (std::size_t k = 0; k < q.size(); ++k)
      t.values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) =
          q[k].joints[model.coordinates[c].joint.value];
  }
  return t;
}

// OpenSim's InverseDynamicsTool on an .osim model.
void openSimId(const InverseDynamicsOptions& cfg, const Reporter& reporter, const InverseDynamicsMotion& given,
               InverseDynamicsResult& r) {
  if (cfg.derivatives != "fd" || !cfg.wrench_file.empty())
    throw InvalidArgument(
        "--derivatives and --wrench-file apply to URDF / built-in models; an .osim model takes "
        "--loads and --setup (OpenSim's ID pipeline)");
  r.opensim = true;
  std::optional<io::IdSetup> setup;
  if (!cfg.setup.empty()) setup = io::readIdSetup(cfg.setup);
  io::OpenSimModel model = io::readOpenSimModel(cfg.model.model);
  if (!cfg.com_offset.empty()) {
    // BODY:X,Y,Z — the mass-centre offset `kinetrack dynamics filter --adjust-com` reports.
    const auto colon = cfg.com_offset.find(':');
    Vector3d d;
    const std::string body = cfg.com_offset.substr(0, colon);
    if (colon == std::string::npos ||
        std::sscanf(cfg.com_offset.c_str() + colon + 1, "%lf,%lf,%lf", &d.x(), &d.y(), &d.z()) != 3 || !d.allFinite())
      throw InvalidArgument("--com-offset: expected BODY:X,Y,Z (m, the body's frame), got '" + cfg.com_offset + "'");
    const auto link = model.model->findLink(body);
    if (!link) throw InvalidArgument("--com-offset: " + cfg.model.model + " has no body '" + body + "'");
    model.model = std::make_shared<const Model>(withComOffset(*model.model, *link, d));
  }
  const io::MotTable motion = given.coordinates              ? *given.coordinates
                              : cfg.motion.ends_with(".csv") ? coordinatesOfJointCsv(model, cfg.motion)
                                                             : io::readMot(cfg.motion);
  std::string loads_file = cfg.loads;
  if (loads_file.empty() && setup && !setup->external_loads_file.empty())
    loads_file = setup->resolve(setup->external_loads_file);
  std::optional<io::ExternalLoads> loads;
  if (!loads_file.empty()) loads = readLoads(loads_file, model.model->up(), reporter);
  biomech::OpenSimIdOptions options;
  if (setup) options = biomech::OpenSimIdOptions::fromSetup(*setup);
  if (cfg.cutoff) options.lowpass_cutoff_hz = *cfg.cutoff;
  if (cfg.degrees == "yes") options.in_degrees = 1;
  if (cfg.degrees == "no") options.in_degrees = 0;
  if (!std::isfinite(options.time_start)) options.time_start = cfg.time_start;
  if (!std::isfinite(options.time_end)) options.time_end = cfg.time_end;
  if (loads && options.lowpass_cutoff_hz < 0.0)
    reporter.warn(
        "the coordinates are not low-passed (OpenSim's ID tool's default); with measured external loads the "
        "unfiltered accelerations leave large residuals: OpenSim's example setups filter at 6 Hz (--cutoff 6, or "
        "a setup)");
  const biomech::OpenSimIdResult result =
      biomech::opensimInverseDynamics(model, motion, loads ? &*loads : nullptr, options, r.motion,
                                      [&](int done, int total) { reporter.report(done, total); });
  if (!cfg.out.empty()) io::writeMot(result.table(), cfg.out);
  r.model_name = model.model->name();
  r.times = result.times;
  r.columns = result.columns;
  r.values = result.values;
  r.valid.assign(r.times.size(), 1);
  r.missing_coordinates = result.missing_coordinates;

  std::string& t = r.text;
  t = fmt::format("OpenSim inverse dynamics of {} on {} ({} coordinates)\n", r.motion, model.source,
                  model.coordinates.size());
  t += fmt::format("  {:<26} {} ({:.4f}–{:.4f} s)\n", "frames", result.times.size(), result.times.front(),
                   result.times.back());
  if (options.lowpass_cutoff_hz >= 0.0)
    t += fmt::format("  {:<26} pad ½ length, 3rd-order Butterworth forward+backward at {:g} Hz, quintic spline\n",
                     "coordinates", options.lowpass_cutoff_hz);
  else
    t += fmt::format("  {:<26} quintic spline through the samples (no low-pass)\n", "coordinates");
  if (loads)
    t += fmt::format("  {:<26} {} ({} forces from {})\n", "external loads", loads_file, loads->forces.size(),
                     loads->data_source);
  if (!result.missing_coordinates.empty()) {
    std::string names;
    for (const std::string& n : result.missing_coordinates) names += (names.empty() ? "" : ", ") + n;
    t += fmt::format("  {:<26} {} (held at their default values)\n", "coordinates not in motion", names);
  }
  if (!cfg.reference.empty()) {
    const io::MotTable reference = io::readMot(cfg.reference);
    r.comparison = biomech::compareColumns(result, reference);
    std::vector<std::vector<std::string>> rows = {{"column", "RMS diff", "max |diff|", "reference range", "frames"}};
    double worst = 0.0;
    std::string worst_column;
    for (const biomech::ColumnComparison& c : r.comparison) {
      rows.push_back({c.column, fmt::format("{:.4f}", c.rms), fmt::format("{:.4f}", c.max_abs),
                      fmt::format("{:.2f}", c.reference_range), std::to_string(c.frames)});
      if (!(c.rms <= worst)) {
        worst = c.rms;
        worst_column = c.column;
      }
    }
    t += fmt::format("\nagainst {} (N m for _moment, N for _force)\n", cfg.reference);
    t += textTable(rows);
    t += fmt::format("  worst column: {} ({:.4f} RMS)\n", worst_column, worst);
  }
}

// RNEA of a URDF / built-in model on a joint trajectory.
void rigidBodyId(const InverseDynamicsOptions& cfg, const Reporter& reporter, const InverseDynamicsMotion& given,
                 const Model* model, InverseDynamicsResult& r) {
  if (!cfg.loads.empty() || !cfg.setup.empty() || !cfg.reference.empty() || !cfg.com_offset.empty())
    throw InvalidArgument("--loads, --setup, --reference and --com-offset apply to an OpenSim model (--model M.osim)");
  if (!std::isfinite(cfg.gravity) || cfg.gravity < 0.0)
    throw InvalidArgument("--gravity must be finite and >= 0 (m/s^2)");
  const bool smooth = cfg.derivatives == "butterworth";
  if (cfg.derivatives != "fd" && !smooth)
    throw InvalidArgument("--derivatives: expected fd or butterworth, got '" + cfg.derivatives + "'");
  if (cfg.cutoff && !smooth) throw InvalidArgument("--cutoff applies to --derivatives butterworth only");
  const double cutoff = cfg.cutoff.value_or(6.0);
  if (smooth && (!std::isfinite(cutoff) || !(cutoff > 0.0)))
    throw InvalidArgument("--cutoff must be finite and > 0 (Hz)");
  if (cfg.wrench_outside != "error" && cfg.wrench_outside != "zero")
    throw InvalidArgument("--wrench-outside: expected error or zero, got '" + cfg.wrench_outside + "'");
  if (cfg.wrench_file.empty() && cfg.wrench_outside != "error")
    throw InvalidArgument("--wrench-outside applies to --wrench-file only");
  std::optional<io::LoadedModel> lm;
  if (model == nullptr) lm = loadModel(cfg.model, reporter);
  const Model& m = model != nullptr ? *model : lm->model;
  const double mass = m.totalMass();
  const io::JointTrajectory traj = given.joints ? *given.joints : io::readJointCsv(cfg.motion);
  const std::vector<Configuration> raw = io::toConfigurations(traj, m);
  const bool loaded = !cfg.wrench_file.empty();
  const MotionWrenches wrenches = loaded ? loadWrenches(cfg, r.motion, m, traj.times) : MotionWrenches{};
  // The smoothed motion is used throughout (RNEA at the filtered q too, as OpenSim's ID tool does).
  const std::vector<Configuration> q = smooth ? lowPassMotion(m, raw, traj.times, cutoff, traj.gap) : raw;
  const TrajectoryDerivatives d = differentiate(m, q, traj.times, traj.gap);
  const Vector3d gravity(0.0, 0.0, -cfg.gravity);
  const std::vector<VectorXd> tau = inverseDynamics(m, q, d, gravity);
  const std::vector<VectorXd> tau_loaded =
      loaded ? inverseDynamics(m, q, d, wrenches.per_frame, gravity) : std::vector<VectorXd>{};
  const std::vector<VectorXd>& written = loaded ? tau_loaded : tau;
  if (!cfg.out.empty()) io::writeForceCsv(cfg.out, m, traj.times, written, d.valid);
  r.model_name = m.name();
  r.times = traj.times;
  r.valid = d.valid;
  if (m.nvBase() == 6) r.columns = {"base_fx", "base_fy", "base_fz", "base_mx", "base_my", "base_mz"};
  for (const std::string& name : m.jointNames()) r.columns.push_back(name);
  r.values.setZero(static_cast<Eigen::Index>(written.size()), m.nv());
  for (std::size_t k = 0; k < written.size(); ++k)
    if (d.valid[k]) r.values.row(static_cast<Eigen::Index>(k)) = written[k].transpose();

  // Summary: the base residual (the ground reaction and any missing support) against the weight,
  // without and with the external load, and the largest joint torque (of the written τ).
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
  std::string& t = r.text;
  t = fmt::format("inverse dynamics of {} on {} ({} DoF, {:.2f} kg)\n", r.motion, m.name(), m.numJoints(), mass);
  t += fmt::format("  {:<28} {}\n", "frames", tau.size());
  t += fmt::format("  {:<28} {} (a gap touches the difference stencil; written as zeros, valid = 0)\n",
                   "frames without a value", invalid);
  if (smooth)
    t += fmt::format("  {:<28} zero-lag Butterworth low-pass at {:g} Hz, then finite differences\n", "derivatives",
                     cutoff);
  if (loaded)
    t += fmt::format("  {:<28} {}: {} {} ({}); {} row(s) outside its time range{}\n", "external wrenches",
                     cfg.wrench_file, wrenches.count, wrenches.count == 1 ? "body" : "bodies", wrenches.bodies,
                     wrenches.outside, wrenches.outside > 0 ? " (no load there)" : "");
  if (nb == 6 && !fz.empty()) {
    const metrics::Summary z = metrics::summarize(fz), h = metrics::summarize(fxy);
    const char* without = loaded ? ", without the external load" : "";
    if (loaded)
      t += fmt::format(
          "  {:<28} {:.1f} N without the external load, {:.1f} N with it (body weight {:.1f} N: {:.3f} x, "
          "{:.3f} x)\n",
          "base vertical force, mean", mean(fz), mean(fz_loaded), weight, mean(fz) / weight, mean(fz_loaded) / weight);
    else
      t += fmt::format("  {:<28} {:.1f} N (body weight {:.1f} N: {:.3f} x)\n", "base vertical force, mean", mean(fz),
                       weight, mean(fz) / weight);
    t += fmt::format("  {:<28} {:.1f} / {:.1f} / {:.1f} N (median / p95 / max{})\n", "base vertical force", z.median,
                     z.p95, z.max, without);
    t +=
        fmt::format("  {:<28} {:.1f} / {:.1f} N (median / max{})\n", "base horizontal force", h.median, h.max, without);
    if (loaded) {
      const metrics::Summary f = metrics::summarize(f_loaded), mo = metrics::summarize(m_loaded);
      t += fmt::format("  {:<28} {:.1f} / {:.1f} / {:.1f} N (|force| with the external load: median / p95 / max)\n",
                       "base residual force", f.median, f.p95, f.max);
      t += fmt::format("  {:<28} {:.1f} / {:.1f} / {:.1f} N m (|moment about the base origin|, same)\n",
                       "base residual moment", mo.median, mo.p95, mo.max);
    }
  }
  if (worst_joint >= 0)
    t += fmt::format("  {:<28} {:.1f} ({})\n", "largest joint torque", worst, m.jointName(JointId(worst_joint)));
}

bool isOsim(const std::string& model) { return model.size() > 5 && model.compare(model.size() - 5, 5, ".osim") == 0; }

}  // namespace

InverseDynamicsResult runInverseDynamics(const InverseDynamicsOptions& options, const Reporter& reporter,
                                         const InverseDynamicsMotion& motion, const Model* loaded) {
  const auto start = Clock::now();
  InverseDynamicsResult r;
  r.motion = !options.motion.empty() ? options.motion : "motion";
  if (options.motion.empty() && !motion.coordinates && !motion.joints)
    throw InvalidArgument("--motion is required (or a motion in memory)");
  if (loaded == nullptr && isOsim(options.model.model))
    openSimId(options, reporter, motion, r);
  else
    rigidBodyId(options, reporter, motion, loaded, r);
  r.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

std::string closingLines(const InverseDynamicsResult& r, const InverseDynamicsOptions& o) {
  return fmt::format("  {:<{}} {:.2f} s\nwrote {} ({} rows)\n", "wall time", r.opensim ? 26 : 28, r.wall_seconds, o.out,
                     r.times.size());
}

}  // namespace kinetrack::app
