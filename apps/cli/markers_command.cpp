// `kinetrack markers ik`: marker-based IK of a trial (TRC or C3D) on an OpenSim model (.osim, with
// an optional Setup_IK.xml: marker and coordinate tasks, time range, accuracy) — the problem
// OpenSim's IK tool solves — writing the coordinates as an OpenSim .mot (same columns and order,
// degrees), OpenSim's marker-error table (.sto) and a summary (table and JSON).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/label_job.hpp"
#include "kinetrack/app/marker_ik_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

/// Registers `kinetrack markers label` (label_command.cpp) under `markers`.
void addMarkersLabelCommand(CLI::App& markers_group, Action& action);

namespace {

struct MarkersIkConfig {
  app::MarkerIkOptions job;
  std::string plot, reference;
  bool quiet = false;
};

int runMarkersIkCommand(MarkersIkConfig cfg) {
  app::MarkerIkOptions& o = cfg.job;
  const std::string errors = o.errors;
  // The plot reads the error table and a .mot: written beside the PNG when not asked for.
  if (!cfg.plot.empty()) {
    if (o.errors.empty()) o.errors = cfg.plot + ".errors.sto";
    o.mot_copy = cfg.plot + ".mot";
  }
  const app::MarkerIkResult r = app::runMarkerIk(o, cliReporter(!cfg.quiet));
  out("{}", app::summaryText(r));
  out("wrote {} ({} rows){}\n", r.out_path, r.summary.frames, errors.empty() ? "" : " and " + errors);
  if (!cfg.plot.empty()) {
    std::vector<std::string> args = {app::hasSuffix(r.out_path, ".mot") ? r.out_path : o.mot_copy, o.errors, cfg.plot};
    if (!cfg.reference.empty()) args.insert(args.end(), {"--reference", cfg.reference});
    runPlot(findScript("", "plot_markers_ik.py"), "plot_markers_ik.py", args, cfg.plot);
  }
  return r.exitStatus();
}

}  // namespace

void addMarkersCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand(
      "markers", "marker-based motion capture: inverse kinematics from markers, labelling of unlabelled markers");
  group->require_subcommand(1);
  addMarkersLabelCommand(*group, action);
  auto cfg = std::make_shared<MarkersIkConfig>();
  CLI::App* cmd = group->add_subcommand(
      "ik", "marker IK of a TRC/C3D trial on an OpenSim model, as OpenSim's IK tool (Setup_IK.xml tasks), to .mot");
  cmd->add_option(
      "--model", cfg->job.model,
      "OpenSim model (.osim; default: the setup's <model_file>), or a built-in model / URDF with --markerset");
  cmd->add_option("--markers", cfg->job.markers, "marker trial (.trc or .c3d); default: the setup's <marker_file>");
  cmd->add_option("--setup", cfg->job.setup,
                  "OpenSim IK setup (Setup_IK.xml): marker/coordinate tasks, time range, accuracy; files given on the "
                  "command line override the paths inside it");
  cmd->add_option("--out", cfg->job.out,
                  "output: a name ending in .csv gets the joint CSV of `kinetrack track` (what `view` and "
                  "`dynamics id` read), any other OpenSim's .mot layout (degrees); for a built-in model the joint "
                  "CSV unless the name ends in .mot");
  cmd->add_option("--markerset", cfg->job.markerset,
                  "built-in models: marker set (built-in name, e.g. human66_plugin_gait, or a JSON file)");
  cmd->add_option("--static", cfg->job.static_trial,
                  "built-in models: static trial (.c3d/.trc) to calibrate the marker offsets on first");
  cmd->add_option("--vsk", cfg->job.vsk, "built-in models: Vicon subject file (.vsk) giving Height and Bodymass");
  cmd->add_option("--height", cfg->job.height, "built-in models: body height (m; default the .vsk's, else 1.75)");
  cmd->add_option("--mass", cfg->job.mass, kMassHelp);
  cmd->add_option("--errors", cfg->job.errors, "marker-error table (.sto: total squared error, RMS, max per frame)");
  cmd->add_option("--summary-json", cfg->job.summary_json, "write the run's summary as JSON");
  cmd->add_option("--start", cfg->job.time_start, "first time (s); default: the setup's time range, else the trial's");
  cmd->add_option("--end", cfg->job.time_end, "last time (s)");
  cmd->add_option("--marker-axes", cfg->job.marker_axes,
                  "axes of the marker file: auto (TRC y-up, C3D z-up), y-up, z-up")
      ->check(CLI::IsMember({"auto", "y-up", "z-up"}));
  cmd->add_option("--plot", cfg->plot, "PNG of the marker errors per frame and the main joint angles");
  cmd->add_option("--reference", cfg->reference, "a reference .mot (e.g. OpenSim's IK result) drawn in the plot");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] { action = [cfg] { return runMarkersIkCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
