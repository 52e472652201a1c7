// `kinetrack scale`: OpenSim's Scale tool from its setup (Setup_Scale.xml): the generic model
// scaled by the setup's measurements and manual scales, its masses to the subject's, its markers
// placed on the static trial; writes the scaled .osim and the static pose (.mot) and prints the
// factors per body (app::runScale, docs/scaling.md).
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/scale_job.hpp"

namespace kinetrack::cli {

void addScaleCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<app::ScaleOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "scale", "OpenSim's Scale tool: scale a generic .osim to a subject from a Setup_Scale.xml and a static trial");
  cmd->add_option("--setup", cfg->setup, "OpenSim ScaleTool setup (Setup_Scale.xml)")->required();
  cmd->add_option("--model", cfg->model, "generic OpenSim model (.osim, 4.0 format); default: the setup's model_file");
  cmd->add_option("--markers", cfg->markers, "static trial (.trc/.c3d); default: the setup's marker_file");
  cmd->add_option("--marker-set", cfg->marker_set, "marker set (.xml); default: the setup's marker_set_file");
  cmd->add_option("--out", cfg->out, "scaled model (.osim); default: the setup's output_model_file");
  cmd->add_option("--static-pose", cfg->static_pose,
                  "static pose (.mot, degrees); default (without --out): the setup's output_motion_file");
  cmd->add_option("--scale-file", cfg->scale_file,
                  "the factors as an OpenSim ScaleSet (.xml); default (without --out): output_scale_file");
  cmd->add_option(
      "--scaled-only", cfg->scaled_only,
      "the scaled model before marker placement (.osim); default (without --out): the ModelScaler's output_model_file");
  cmd->add_option("--marker-axes", cfg->marker_axes, "auto | y-up | z-up: the trial's vertical axis");
  cmd->add_flag("--strict", cfg->strict, "a body of the setup that the model lacks is an error (OpenSim ignores it)");
  cmd->add_flag("--quiet", *quiet, "no stage notes");
  cmd->callback([cfg, quiet, &action] {
    action = [cfg, quiet] {
      app::Reporter reporter = cliReporter(false);
      if (*quiet) reporter.note = nullptr;
      const app::ScaleResult r = app::runScale(*cfg, reporter);
      out("{}", app::summaryText(r));
      return kExitOk;
    };
  });
}

}  // namespace kinetrack::cli
