// `kinetrack markers ik`: marker-based IK of a trial (TRC or C3D) on an OpenSim model (.osim, with
// an optional Setup_IK.xml: marker and coordinate tasks, time range, accuracy) — the problem
// OpenSim's IK tool solves — writing the coordinates as an OpenSim .mot (same columns and order,
// degrees), OpenSim's marker-error table (.sto) and a summary (table and JSON).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "app/command_options.hpp"
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

int runMarkersIkCommand(const MarkersIkConfig& cfg) {
  app::MarkerIkOptions o = cfg.job;
  // The plot reads the error table and a .mot: written beside the PNG when not asked for.
  if (!cfg.plot.empty()) {
    if (o.errors.empty()) o.errors = cfg.plot + ".errors.sto";
    o.mot_copy = cfg.plot + ".mot";
  }
  const app::MarkerIkResult r = app::runMarkerIk(o, cliReporter(!cfg.quiet));
  out("{}{}", app::summaryText(r), app::wroteLine(r, cfg.job));
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
  app::addMarkerIkOptions(*cmd, cfg->job, cfg->quiet, [&cfg](CLI::App& c) {
    c.add_option("--plot", cfg->plot, "PNG of the marker errors per frame and the main joint angles");
    c.add_option("--reference", cfg->reference, "a reference .mot (e.g. OpenSim's IK result) drawn in the plot");
  });
  cmd->callback([cfg, &action] { action = [cfg] { return runMarkersIkCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
