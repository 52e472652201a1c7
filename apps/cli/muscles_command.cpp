// `kinetrack muscles static-opt|qp|lp`: muscle activations and forces that realise a motion of an
// OpenSim model (docs/muscles.md): OpenSim's static optimisation (min Σ a², Thelen 2003 muscle
// physiology) or the Nakamura Eq. 13 QP (min Σ f²) / LP (min Σ f). Writes activation.sto,
// force.sto and residuals.sto in OpenSim's layout, a summary table and, with --reference, the
// RMS against an OpenSim activation file and a plot.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/muscles_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct MusclesConfig {
  app::MusclesOptions job;
  std::vector<std::string> reserves;
  double lowpass = -1.0, start = -INFINITY, end = INFINITY;
  std::string plot_script;
  bool no_plot = false;
};

int runMusclesCommand(MusclesConfig cfg, bool lowpass_given, bool start_given, bool end_given) {
  if (lowpass_given) cfg.job.lowpass = cfg.lowpass;
  if (start_given) cfg.job.start = cfg.start;
  if (end_given) cfg.job.end = cfg.end;
  for (const std::string& r : cfg.reserves) cfg.job.reserves.push_back(app::parseReserve(r));
  app::prepareDirectory(cfg.job.out);
  const app::MusclesResult r = app::runMuscles(cfg.job, cliReporter(true));
  fmt::print("{}", r.text);
  const std::filesystem::path dir(cfg.job.out);
  if (!cfg.job.reference.empty() && !cfg.no_plot) {
    const std::filesystem::path png = dir / "activation.png";
    runPlot(findScript(cfg.plot_script, "plot_muscles.py"), "plot_muscles.py",
            {(dir / "activation.sto").string(), cfg.job.reference, png.string()}, png);
  }
  fmt::print("  {:<28} {:.2f} s ({} threads)\n", "wall time", r.wall_seconds, r.threads);
  fmt::print("wrote {}/activation.sto, force.sto, residuals.sto ({} rows)\n", cfg.job.out, r.trial.times.size());
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
    cfg->job.method = k.method;
    CLI::App* sub = muscles->add_subcommand(k.name, k.help);
    sub->add_option("--model", cfg->job.model, "OpenSim model (.osim) with muscles");
    sub->add_option("--motion", cfg->job.motion, "coordinates (.mot/.sto, e.g. IK output)");
    sub->add_option("--setup", cfg->job.setup, "OpenSim AnalyzeTool setup with a StaticOptimization analysis");
    sub->add_option("--loads", cfg->job.loads,
                    "OpenSim ExternalLoads (.xml, e.g. ground reactions) or a C3D (its plates on the feet): then "
                    "OpenSim's ID pipeline gives tau");
    sub->add_option("--reserve", cfg->reserves, "reserve actuator COORDINATE=OPTIMAL_FORCE (repeatable)");
    sub->add_option("--force-set", cfg->job.force_sets, "force-set file(s) with CoordinateActuators (reserves)");
    CLI::Option* lp =
        sub->add_option("--lowpass", cfg->lowpass, "low-pass cut-off for the coordinates (Hz; <= 0: none)");
    CLI::Option* st = sub->add_option("--start", cfg->start, "first time (s)");
    CLI::Option* en = sub->add_option("--end", cfg->end, "last time (s)");
    sub->add_option("--reference", cfg->job.reference, "OpenSim activation .sto to compare with (RMS + plot)");
    sub->add_option("--plot-script", cfg->plot_script, "path of scripts/plot_muscles.py");
    sub->add_flag("--no-plot", cfg->no_plot, "do not draw activation.png");
    sub->add_option("--out", cfg->job.out, "output directory")->required();
    sub->add_option("--threads", cfg->job.threads,
                    "threads the frames are split across (0 = one per hardware thread; output identical for any N)")
        ->capture_default_str();
    sub->callback([&action, cfg, lp, st, en] {
      action = [cfg, lp = lp->count() > 0, st = st->count() > 0, en = en->count() > 0] {
        return runMusclesCommand(*cfg, lp, st, en);
      };
    });
  }
}

}  // namespace kinetrack::cli
