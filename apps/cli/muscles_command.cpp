// `kinetrack muscles static-opt|qp|lp`: muscle activations and forces that realise a motion of an
// OpenSim model (docs/muscles.md): OpenSim's static optimisation (min Σ a², Thelen 2003 muscle
// physiology) or the Nakamura Eq. 13 QP (min Σ f²) / LP (min Σ f). Writes activation.sto,
// force.sto and residuals.sto in OpenSim's layout, a summary table and, with --reference, the
// RMS against an OpenSim activation file and a plot.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/muscles/muscle_trial.hpp"
#include "plotting.hpp"
#include "text_table.hpp"

namespace kinetrack::cli {
namespace {

struct MusclesConfig {
  muscles::Method method = muscles::Method::StaticOptimization;
  std::string model, motion, setup, loads, out, reference, plot_script;
  std::vector<std::string> force_sets, reserves;
  double lowpass = -1.0, start = -INFINITY, end = INFINITY;
  int threads = 0;
  bool lowpass_given = false, start_given = false, end_given = false, no_plot = false;
};

std::string readText(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw kinetrack::ParseError(path, 0, "cannot open the file");
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

int runMuscles(MusclesConfig cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  io::StaticOptimizationSetup setup;
  if (!cfg.setup.empty()) {
    setup = io::readStaticOptimizationSetup(cfg.setup);
    if (cfg.loads.empty()) cfg.loads = setup.resolve(setup.external_loads_file);
    if (cfg.model.empty()) cfg.model = setup.resolve(setup.model_file);
    if (cfg.motion.empty()) cfg.motion = setup.resolve(setup.coordinates_file);
    if (!cfg.lowpass_given) cfg.lowpass = setup.lowpass_hz;
    if (!cfg.start_given) cfg.start = setup.time_start;
    if (!cfg.end_given) cfg.end = setup.time_end;
    for (const std::string& f : setup.force_set_files) cfg.force_sets.push_back(setup.resolve(f));
  }
  if (cfg.model.empty()) throw UsageError("--model is required (or a --setup naming its model_file)");
  if (cfg.motion.empty()) throw UsageError("--motion is required (or a --setup naming its coordinates_file)");
  if (cfg.start > cfg.end) throw UsageError("--start must not be after --end");

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
  o.lowpass_hz = cfg.lowpass;
  o.time_start = cfg.start;
  o.time_end = cfg.end;
  o.in_degrees = muscles::motInDegrees(motion_text);
  for (const std::string& r : cfg.reserves) {
    const auto eq = r.find('=');
    if (eq == std::string::npos) throw UsageError("--reserve '" + r + "': expected COORDINATE=OPTIMAL_FORCE");
    io::OpenSimCoordinateActuator a;
    a.coordinate = r.substr(0, eq);
    a.name = a.coordinate + "_reserve";
    a.optimal_force = parseFiniteDouble(r.substr(eq + 1), "--reserve optimal force");
    if (!(a.optimal_force > 0.0)) throw UsageError("--reserve '" + r + "': the optimal force must be > 0");
    if (!osim->findCoordinate(a.coordinate))
      throw UsageError("--reserve '" + r + "': unknown coordinate '" + a.coordinate + "' of " + cfg.model);
    o.forces.actuators.push_back(a);
  }
  std::unique_ptr<io::ExternalLoads> loads;
  if (!cfg.loads.empty()) {
    loads = std::make_unique<io::ExternalLoads>(io::readExternalLoads(cfg.loads));
    o.loads = loads.get();
  }

  if (cfg.threads < 0) throw UsageError("--threads: expected ≥ 0 (0 = one per hardware thread)");
  o.threads = cfg.threads;
  ProgressBar bar(static_cast<int>(motion.times.size()), true);
  const muscles::MuscleTrialResult r =
      muscles::solveMuscleTrial(paths, motion, cfg.motion, o, [&](int done, int) { bar.update(done); });

  prepareOutputDirectory(cfg.out);
  const std::filesystem::path dir(cfg.out);
  const int nm = paths->numMuscles();
  const bool forces_are_variables = cfg.method != muscles::Method::StaticOptimization;
  io::MotTable activation = muscles::toTable(r, false, "Static Optimization");
  if (forces_are_variables)  // activation column: f / F_max
    for (int i = 0; i < nm; ++i) activation.values.col(i) /= paths->set().muscles[i].max_isometric_force;
  io::writeMot(activation, (dir / "activation.sto").string());
  io::writeMot(muscles::toTable(r, true, "Static Optimization"), (dir / "force.sto").string());
  io::writeMot(muscles::residualTable(r), (dir / "residuals.sto").string());

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
        row.push_back(n ? fmt::format("{:.4f}", std::sqrt(sum / n)) : "no overlap");
      }
    }
    rows.push_back(std::move(row));
  }
  fmt::print("muscles {} of {} on {} ({} muscles, {} actuators, {} coordinates)\n", muscles::toString(cfg.method),
             cfg.motion, cfg.model, nm, r.names.size() - static_cast<std::size_t>(nm), r.coordinates.size());
  for (const std::string& n : r.notices) fmt::print("  note: {}\n", n);
  printTextTable(rows);
  const double max_residual = r.residual.size() ? r.residual.cwiseAbs().maxCoeff() : 0.0;
  fmt::print("  {:<28} {} of {}\n", "infeasible frames", r.infeasibleFrames(), r.times.size());
  fmt::print("  {:<28} {:.3g} (N m or N; residuals.sto per coordinate)\n", "largest residual", max_residual);
  if (r.infeasibleFrames() > 0) {
    fmt::print("  infeasible at t =");
    int shown = 0;
    for (std::size_t f = 0; f < r.times.size() && shown < 10; ++f)
      if (!r.feasible[f]) {
        fmt::print(" {:g}", r.times[f]);
        ++shown;
      }
    fmt::print("{}\n", r.infeasibleFrames() > shown ? " …" : "");
  }
  if (!ref.columns.empty() && !cfg.no_plot) {
    const std::filesystem::path png = dir / "activation.png";
    runPlot(findScript(cfg.plot_script, "plot_muscles.py"), "plot_muscles.py",
            {(dir / "activation.sto").string(), cfg.reference, png.string()}, png);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("  {:<28} {:.2f} s ({} threads)\n", "wall time", seconds,
             cfg.threads > 0 ? cfg.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  fmt::print("wrote {}/activation.sto, force.sto, residuals.sto ({} rows)\n", cfg.out, r.times.size());
  return kExitOk;
}

}  // namespace

void addMusclesCommand(CLI::App& app, Action& action) {
  CLI::App* muscles = app.add_subcommand("muscles", "muscle forces of an OpenSim model realising a motion");
  muscles->require_subcommand(1);
  struct Kind {
    const char* name;
    muscles::Method method;
    const char* help;
  };
  for (const Kind k : {Kind{"static-opt", muscles::Method::StaticOptimization,
                            "OpenSim static optimisation: min sum a^2, Thelen 2003 force-length-velocity"},
                       Kind{"qp", muscles::Method::QP, "Nakamura Eq. 13 QP: min sum f^2, 0 <= f <= F_max"},
                       Kind{"lp", muscles::Method::LP, "Nakamura Eq. 13 LP (GLPK): min sum f, 0 <= f <= F_max"}}) {
    auto cfg = std::make_shared<MusclesConfig>();
    cfg->method = k.method;
    CLI::App* sub = muscles->add_subcommand(k.name, k.help);
    sub->add_option("--model", cfg->model, "OpenSim model (.osim) with muscles");
    sub->add_option("--motion", cfg->motion, "coordinates (.mot/.sto, e.g. IK output)");
    sub->add_option("--setup", cfg->setup, "OpenSim AnalyzeTool setup with a StaticOptimization analysis");
    sub->add_option("--loads", cfg->loads,
                    "OpenSim ExternalLoads (.xml, e.g. ground reactions): then OpenSim's ID pipeline gives tau");
    sub->add_option("--reserve", cfg->reserves, "reserve actuator COORDINATE=OPTIMAL_FORCE (repeatable)");
    sub->add_option("--force-set", cfg->force_sets, "force-set file(s) with CoordinateActuators (reserves)");
    CLI::Option* lp =
        sub->add_option("--lowpass", cfg->lowpass, "low-pass cut-off for the coordinates (Hz; <= 0: none)");
    CLI::Option* st = sub->add_option("--start", cfg->start, "first time (s)");
    CLI::Option* en = sub->add_option("--end", cfg->end, "last time (s)");
    sub->add_option("--reference", cfg->reference, "OpenSim activation .sto to compare with (RMS + plot)");
    sub->add_option("--plot-script", cfg->plot_script, "path of scripts/plot_muscles.py");
    sub->add_flag("--no-plot", cfg->no_plot, "do not draw activation.png");
    sub->add_option("--out", cfg->out, "output directory")->required();
    sub->add_option("--threads", cfg->threads,
                    "threads the frames are split across (0 = one per hardware thread; output identical for any N)")
        ->capture_default_str();
    sub->callback([&action, cfg, lp, st, en] {
      cfg->lowpass_given = lp->count() > 0;
      cfg->start_given = st->count() > 0;
      cfg->end_given = en->count() > 0;
      action = [cfg] { return runMuscles(*cfg); };
    });
  }
}

}  // namespace kinetrack::cli
