// `kinetrack dynamics id`: inverse dynamics of a joint trajectory (the CSV `kinetrack track`
// writes): optionally a zero-lag Butterworth low-pass of the motion, velocities and
// accelerations by finite differences on the configuration manifold, RNEA per frame with the
// external wrenches of a wrench CSV matched by time, the generalised forces per input row (the
// floating base's residual first), and a summary of the base residual against the body weight
// with and without the external load.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/inverse_dynamics_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct IdConfig {
  app::InverseDynamicsOptions job;
  double cutoff = 6.0;
  std::string plot, plot_script;
  bool quiet = false;
};

int runInverseDynamicsCommand(const IdConfig& cfg) {
  if (cfg.job.out.empty()) throw UsageError("--out is required");
  const app::InverseDynamicsResult r = app::runInverseDynamics(cfg.job, cliReporter(!cfg.quiet));
  out("{}", r.text);
  if (!cfg.plot.empty() && !cfg.job.reference.empty())
    runPlot(findScript(cfg.plot_script, "plot_opensim_id.py"), "plot_opensim_id.py",
            {cfg.job.out, cfg.job.reference, cfg.plot}, cfg.plot);
  out("  {:<{}} {:.2f} s\n", "wall time", r.opensim ? 26 : 28, r.wall_seconds);
  out("wrote {} ({} rows)\n", cfg.job.out, r.times.size());
  return kExitOk;
}

}  // namespace

void addDynamicsCommand(CLI::App& app, Action& action) {
  CLI::App* dynamics = app.add_subcommand("dynamics", "rigid-body dynamics of a model and a motion");
  dynamics->require_subcommand(1);
  addDynamicsFilterCommand(*dynamics, action);
  auto cfg = std::make_shared<IdConfig>();
  CLI::App* id = dynamics->add_subcommand(
      "id", "inverse dynamics of a joint trajectory CSV: generalised forces per row (base residual first)");
  id->add_option("--model", cfg->job.model.model,
                 "URDF with inertials, a built-in model with masses, or an OpenSim model (.osim: OpenSim's ID "
                 "pipeline on a .mot/.sto coordinate file, writes OpenSim's .sto)")
      ->required();
  id->add_option("--height", cfg->job.model.height, "body height of a built-in model (m)");
  id->add_option("--mass", cfg->job.model.mass, "body mass of a built-in model (kg)");
  id->add_option(
        "--motion", cfg->job.motion,
        "joint trajectory CSV (as `kinetrack track` writes it); for an .osim model a .mot/.sto or its joint CSV "
        "(`markers ik --out x.csv`)")
      ->required();
  id->add_option("--out", cfg->job.out, "generalised forces CSV: time, base force and moment, joint torques, valid")
      ->required();
  id->add_option("--gravity", cfg->job.gravity, "gravity along -z (m/s^2)")->capture_default_str();
  id->add_option("--wrench-file", cfg->job.wrench_file,
                 "external wrenches CSV (world frame; time,<body>.fx,fy,fz,px,py,pz[,mx,my,mz]; docs/formats.md), "
                 "matched to the motion rows by linear interpolation in time");
  id->add_option("--wrench-outside", cfg->job.wrench_outside,
                 "motion rows outside the wrench file's time range: error, or zero (no external load there)")
      ->check(CLI::IsMember({"error", "zero"}))
      ->capture_default_str();
  id->add_option("--derivatives", cfg->job.derivatives,
                 "velocities and accelerations: fd (finite differences of the motion as given) or butterworth "
                 "(zero-lag 4th-order low-pass at --cutoff first)")
      ->check(CLI::IsMember({"fd", "butterworth"}))
      ->capture_default_str();
  CLI::Option* cutoff = id->add_option("--cutoff", cfg->cutoff, "-3 dB frequency of the butterworth low-pass (Hz)")
                            ->capture_default_str();
  id->add_option("--loads", cfg->job.loads,
                 "OpenSim model only: ExternalLoads XML (*_grf.xml; its <datafile> is read relative to it)");
  id->add_option("--setup", cfg->job.setup,
                 "OpenSim model only: InverseDynamicsTool setup XML (time range, coordinate low-pass cut-off, "
                 "external loads file)");
  id->add_option("--reference", cfg->job.reference,
                 "OpenSim model only: an ID result .sto to compare with (per-column RMS table)");
  id->add_option("--com-offset", cfg->job.com_offset,
                 "OpenSim model only: BODY:X,Y,Z moves the body's mass centre by (X, Y, Z) m in its frame (the offset "
                 "`dynamics filter --adjust-com` reports)");
  id->add_option("--plot", cfg->plot, "OpenSim model only: PNG overlay of ours vs --reference");
  id->add_option("--degrees", cfg->job.degrees, "OpenSim model only: motion angles in degrees: auto (header), yes, no")
      ->check(CLI::IsMember({"auto", "yes", "no"}))
      ->capture_default_str();
  id->add_option("--start", cfg->job.time_start, "OpenSim model only: first time (s) when no setup gives the range");
  id->add_option("--end", cfg->job.time_end, "OpenSim model only: last time (s) when no setup gives the range");
  id->add_flag("--quiet", cfg->quiet, "OpenSim model only: no progress bar");
  id->callback([&action, cfg, cutoff] {
    if (cutoff->count() > 0) cfg->job.cutoff = cfg->cutoff;
    action = [cfg] { return runInverseDynamicsCommand(*cfg); };
  });
}

}  // namespace kinetrack::cli
