#include "kinetrack/app/muscles_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"

namespace kinetrack::app {
namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open the file");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Reference value of `column` at time t (linear interpolation), NaN outside its times.
double referenceAt(const io::MotTable& ref, Eigen::Index column, double t) {
  if (ref.times.empty() || t < ref.times.front() - 1e-6 || t > ref.times.back() + 1e-6) return NAN;
  std::size_t j = 1;
  while (j + 1 < ref.times.size() && ref.times[j] < t) ++j;
  if (ref.times.size() == 1) return ref.values(0, column);
  const double a = std::clamp((t - ref.times[j - 1]) / (ref.times[j] - ref.times[j - 1]), 0.0, 1.0);
  return (1 - a) * ref.values(static_cast<Eigen::Index>(j - 1), column) +
         a * ref.values(static_cast<Eigen::Index>(j), column);
}

}  // namespace

muscles::Method parseMuscleMethod(const std::string& name) {
  if (name == "static-opt") return muscles::Method::StaticOptimization;
  if (name == "qp") return muscles::Method::QP;
  if (name == "lp") return muscles::Method::LP;
  throw InvalidArgument("method must be 'static-opt', 'qp' or 'lp', not '" + name + "'");
}

std::pair<std::string, double> parseReserve(const std::string& r) {
  const auto eq = r.find('=');
  if (eq == std::string::npos) throw InvalidArgument("--reserve '" + r + "': expected COORDINATE=OPTIMAL_FORCE");
  const std::string text = r.substr(eq + 1);
  char* end = nullptr;
  const double force = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(force))
    throw InvalidArgument("--reserve optimal force: '" + text + "' is not a finite number");
  if (!(force > 0.0)) throw InvalidArgument("--reserve '" + r + "': the optimal force must be > 0");
  return {r.substr(0, eq), force};
}

MusclesResult runMuscles(const MusclesOptions& options, const Reporter& reporter) {
  const auto t0 = std::chrono::steady_clock::now();
  MusclesOptions cfg = options;
  io::StaticOptimizationSetup setup;
  double lowpass = -1.0, start = -INFINITY, end = INFINITY;
  if (!cfg.setup.empty()) {
    setup = io::readStaticOptimizationSetup(cfg.setup);
    if (cfg.loads.empty()) cfg.loads = setup.resolve(setup.external_loads_file);
    if (cfg.model.empty()) cfg.model = setup.resolve(setup.model_file);
    if (cfg.motion.empty()) cfg.motion = setup.resolve(setup.coordinates_file);
    lowpass = setup.lowpass_hz;
    start = setup.time_start;
    end = setup.time_end;
    for (const std::string& f : setup.force_set_files) cfg.force_sets.push_back(setup.resolve(f));
  }
  if (cfg.lowpass) lowpass = *cfg.lowpass;
  if (cfg.start) start = *cfg.start;
  if (cfg.end) end = *cfg.end;
  if (cfg.model.empty()) throw InvalidArgument("--model is required (or a --setup naming its model_file)");
  if (cfg.motion.empty()) throw InvalidArgument("--motion is required (or a --setup naming its coordinates_file)");
  if (start > end) throw InvalidArgument("--start must not be after --end");

  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(cfg.model));
  auto paths = std::make_shared<muscles::MusclePaths>(osim, io::readOpenSimMuscles(cfg.model));
  const std::string motion_text = readText(cfg.motion);
  const io::MotTable motion = io::parseMot(motion_text, cfg.motion);
  muscles::MuscleTrialOptions o;
  o.forces.method = cfg.method;
  o.forces.use_muscle_physiology = cfg.setup.empty() || setup.use_muscle_physiology;
  o.forces.use_model_actuators = cfg.setup.empty() || setup.use_model_force_set;
  o.forces.replace_actuators = !cfg.setup.empty() && setup.replace_force_set;
  for (const std::string& f : cfg.force_sets)
    for (io::OpenSimCoordinateActuator& a : io::readOpenSimActuators(f)) o.forces.actuators.push_back(a);
  o.lowpass_hz = lowpass;
  o.time_start = start;
  o.time_end = end;
  o.in_degrees = muscles::motInDegrees(motion_text);
  for (const auto& [coordinate, force] : cfg.reserves) {
    io::OpenSimCoordinateActuator a;
    a.coordinate = coordinate;
    a.name = a.coordinate + "_reserve";
    a.optimal_force = force;
    if (!(a.optimal_force > 0.0))
      throw InvalidArgument(fmt::format("--reserve '{}={}': the optimal force must be > 0", coordinate, force));
    if (!osim->findCoordinate(a.coordinate))
      throw InvalidArgument(
          fmt::format("--reserve '{}={}': unknown coordinate '{}' of {}", coordinate, force, a.coordinate, cfg.model));
    o.forces.actuators.push_back(a);
  }
  std::unique_ptr<io::ExternalLoads> loads;
  if (!cfg.loads.empty()) {
    loads = std::make_unique<io::ExternalLoads>(readLoads(cfg.loads, osim->model->up(), reporter));
    o.loads = loads.get();
  }
  if (cfg.threads < 0) throw InvalidArgument("--threads: expected ≥ 0 (0 = one per hardware thread)");
  o.threads = cfg.threads;

  MusclesResult result;
  result.model = cfg.model;
  result.motion = cfg.motion;
  result.trial = muscles::solveMuscleTrial(paths, motion, cfg.motion, o,
                                           [&](int done, int total) { reporter.report(done, total); });
  const muscles::MuscleTrialResult& r = result.trial;
  const int nm = paths->numMuscles();
  result.muscles = nm;
  const bool forces_are_variables = cfg.method != muscles::Method::StaticOptimization;
  io::MotTable& activation = result.activation;
  activation = muscles::toTable(r, false, "Static Optimization");
  if (forces_are_variables)  // activation column: f / F_max
    for (int i = 0; i < nm; ++i) activation.values.col(i) /= paths->set().muscles[i].max_isometric_force;
  if (!cfg.out.empty()) {
    const std::filesystem::path dir(cfg.out);
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
      throw ParseError(cfg.out, 0, "--out exists and is not a directory");
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir, ec))
      throw ParseError(cfg.out, 0, "cannot create output directory: " + ec.message());
    io::writeMot(activation, (dir / "activation.sto").string());
    io::writeMot(muscles::toTable(r, true, "Static Optimization"), (dir / "force.sto").string());
    io::writeMot(muscles::residualTable(r), (dir / "residuals.sto").string());
  }

  // Summary per muscle / actuator.
  io::MotTable ref;
  if (!cfg.reference.empty()) ref = io::readMot(cfg.reference);
  std::vector<std::vector<std::string>> rows{{"name", "mean act", "max act", "max force (N)"}};
  if (!ref.columns.empty()) rows[0].push_back("RMS vs reference");
  for (std::size_t c = 0; c < r.names.size(); ++c) {
    // Solver round-off (−1e-17 at a zero bound) is shown as 0.
    const VectorXd col = activation.values.col(static_cast<Eigen::Index>(c)).unaryExpr([](double v) {
      return std::abs(v) < 5e-7 ? 0.0 : v;
    });
    std::vector<std::string> row{
        r.names[c], fmt::format("{:.4f}", col.mean()), fmt::format("{:.4f}", col.maxCoeff()),
        fmt::format("{:.1f}", r.force.col(static_cast<Eigen::Index>(c)).cwiseAbs().maxCoeff())};
    double rms = NAN;
    if (!ref.columns.empty()) {
      const auto it = std::find(ref.columns.begin(), ref.columns.end(), r.names[c]);
      if (it == ref.columns.end()) {
        row.push_back("-");
      } else {
        double sum = 0.0;
        int n = 0;
        for (std::size_t f = 0; f < r.times.size(); ++f) {
          const double v = referenceAt(ref, it - ref.columns.begin(), r.times[f]);
          if (std::isnan(v)) continue;
          sum += std::pow(activation.values(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(c)) - v, 2);
          ++n;
        }
        if (n) rms = std::sqrt(sum / n);
        row.push_back(n ? fmt::format("{:.4f}", rms) : "no overlap");
      }
    }
    result.reference_rms.push_back(rms);
    rows.push_back(std::move(row));
  }
  std::string& t = result.text;
  t = fmt::format("muscles {} of {} on {} ({} muscles, {} actuators, {} coordinates)\n", muscles::toString(cfg.method),
                  cfg.motion, cfg.model, nm, r.names.size() - static_cast<std::size_t>(nm), r.coordinates.size());
  for (const std::string& n : r.notices) t += fmt::format("  note: {}\n", n);
  t += textTable(rows);
  const double max_residual = r.residual.size() ? r.residual.cwiseAbs().maxCoeff() : 0.0;
  t += fmt::format("  {:<28} {} of {}\n", "infeasible frames", r.infeasibleFrames(), r.times.size());
  t += fmt::format("  {:<28} {:.3g} (N m or N; residuals.sto per coordinate)\n", "largest residual", max_residual);
  if (r.infeasibleFrames() > 0) {
    t += "  infeasible at t =";
    int shown = 0;
    for (std::size_t f = 0; f < r.times.size() && shown < 10; ++f)
      if (!r.feasible[f]) {
        t += fmt::format(" {:g}", r.times[f]);
        ++shown;
      }
    t += fmt::format("{}\n", r.infeasibleFrames() > shown ? " …" : "");
  }
  result.threads = cfg.threads > 0 ? cfg.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace kinetrack::app
