// `kinetrack markers label`: real-time labelling of unlabelled optical markers (issue 16). Reads
// a cloud of unnamed points per frame (a long CSV `frame,time,x,y,z`, a C3D whose labels are
// ignored, or a labelled TRC/C3D with --strip-labels), labels every frame causally with
// markers::Labeller (model prediction, gating, optimal assignment, rigid-segment check, marker
// IK), and writes the labelled TRC (the model's marker names and order, one row per input frame,
// the input points unchanged), a per-frame report, the joint angles (--ik-out), each label's
// confidence (--confidence; --drop-unsure leaves unsure labels out) and a summary.
#include <fmt/format.h>

#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/label_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct LabelConfig {
  app::LabelOptions job;
  std::string plot;
  bool quiet = false;
};

int runLabelCommand(LabelConfig cfg) {
  // The plot reads the per-frame report: written beside the plot when not asked for.
  if (cfg.job.report.empty() && !cfg.plot.empty()) cfg.job.report = cfg.plot + ".report.csv";
  const app::LabelResult r = app::runLabel(cfg.job, cliReporter(!cfg.quiet));
  out("{}", app::summaryText(r, cfg.job));
  if (!cfg.plot.empty())
    runPlot(findScript("", "plot_labelling.py"), "plot_labelling.py", {"report", cfg.job.report, cfg.plot}, cfg.plot);
  return kExitOk;
}

}  // namespace

void addMarkersLabelCommand(CLI::App& markers_group, Action& action) {
  auto cfg = std::make_shared<LabelConfig>();
  CLI::App* cmd = markers_group.add_subcommand(
      "label", "label unlabelled optical markers in real time (model prediction + assignment + marker IK)");
  cmd->add_option("--model", cfg->job.subject.model,
                  "OpenSim model (.osim, its markers), or a built-in model with --markerset")
      ->required();
  cmd->add_option("--input", cfg->job.input,
                  "points: long CSV frame,time,x,y,z (one point per row), a C3D (labels ignored), or a labelled "
                  ".trc/.c3d with --strip-labels")
      ->required();
  cmd->add_flag("--strip-labels", cfg->job.strip_labels,
                "input is a labelled TRC/C3D: drop its labels (they only restrict the set to the markers worn)");
  cmd->add_option("--static", cfg->job.subject.static_trial,
                  "labelled static trial (.trc/.c3d): calibrates the markers (an .osim model: uniform scale + "
                  "marker placement, or --scale-setup) and gives the start pose");
  cmd->add_option("--scale-setup", cfg->job.subject.scale_setup,
                  ".osim models: OpenSim Scale tool setup run on --static before labelling");
  cmd->add_option("--markerset", cfg->job.subject.markerset,
                  "built-in models: marker set (built-in name or JSON file); .osim: an OpenSim MarkerSet (.xml) "
                  "replacing its markers");
  cmd->add_option("--markers", cfg->job.marker_names, "only these markers of the set (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--vsk", cfg->job.subject.vsk, "built-in models: Vicon subject file (Height)");
  cmd->add_option("--height", cfg->job.subject.height, "built-in models: body height (m)");
  cmd->add_flag("!--no-joint-limits", cfg->job.subject.joint_limits,
                "human66: keep its continuous joints (default: clinical limits in the calibration and the IK)");
  cmd->add_option("--units", cfg->job.units, "units of a CSV input: mm or m")
      ->check(CLI::IsMember({"mm", "m"}))
      ->capture_default_str();
  cmd->add_option("--marker-axes", cfg->job.subject.marker_axes,
                  "axes of the input files: auto (TRC y-up, C3D z-up, CSV the model's), y-up, z-up")
      ->check(CLI::IsMember({"auto", "y-up", "z-up"}));
  cmd->add_option("--out", cfg->job.out, "labelled TRC (model's marker order; missing = empty)")->required();
  cmd->add_option("--ik-out", cfg->job.ik_out, "joint angles of the same frames (.mot)");
  cmd->add_option("--model-out", cfg->job.model_out, ".osim model as calibrated on --static (markers placed)");
  cmd->add_option("--report", cfg->job.report,
                  "per-frame report CSV (assigned, gaps, ghosts, state, IK, swaps corrected, unsure labels, lowest "
                  "confidence)");
  cmd->add_option("--confidence", cfg->job.confidence,
                  "CSV of each label's confidence in [0, 1]: frame,time,<marker>… (empty for a gap)");
  cmd->add_flag("--drop-unsure", cfg->job.labeller.drop_unsure,
                "leave labels below the confidence threshold out of the output (gaps; the pose still uses them)");
  cmd->add_option("--summary-json", cfg->job.summary_json, "write the run's summary as JSON");
  cmd->add_option("--plot", cfg->plot, "PNG of labelled markers, ghosts and IK RMS per frame");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] {
    cfg->job.subject.quiet = cfg->quiet;
    action = [cfg] { return runLabelCommand(*cfg); };
  });
}

}  // namespace kinetrack::cli
