// `kinetrack dynamics filter`: a motion (joint CSV, OpenSim coordinates with an .osim model, or a
// BVH clip tracked on the model first) through the Nakamura dynamics filter (NAK Eq. 1–5,
// kinetrack/dynamics/dynamics_filter.hpp), contacts detected from the motion, given by force
// plates (--grf: their wrenches applied by default, --grf-mode apply, or their intervals only) or, on
// a slope (--slope-deg, the seed's Fig. 6), scheduled from the level walk.
// Writes the filtered motion in the input's layout, torques, a summary, JSON, a per-frame report
// and a plot.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/dynamics_filter_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct FilterCliConfig {
  app::FilterJobOptions job;
  std::string plot, plot_script;
  bool quiet = false;
};

int runFilterCommand(FilterCliConfig cfg) {
  // The plot reads the per-frame report: written beside the PNG when not asked for.
  if (cfg.job.report_csv.empty() && !cfg.plot.empty())
    cfg.job.report_csv = std::filesystem::path(cfg.plot).replace_extension(".csv").string();
  const app::FilterJobResult r = app::runDynamicsFilter(cfg.job, cliReporter(!cfg.quiet));
  out("{}", app::summaryText(r, cfg.job));
  if (!cfg.plot.empty())
    runPlot(findScript(cfg.plot_script, "plot_dynamics_filter.py"), "plot_dynamics_filter.py",
            {cfg.job.report_csv, cfg.plot}, cfg.plot);
  out("wrote {} ({} rows)\n", cfg.job.out, r.motion.frames.size());
  return kExitOk;
}

}  // namespace

void addDynamicsFilterCommand(CLI::App& dynamics, Action& action) {
  auto cfg = std::make_shared<FilterCliConfig>();
  CLI::App* cmd = dynamics.add_subcommand(
      "filter", "Nakamura's dynamics filter: the motion made physically consistent (no residual base wrench)");
  cmd->add_option("--model", cfg->job.model.model, "built-in model with masses, URDF with inertials, or OpenSim .osim")
      ->required();
  cmd->add_option("--height", cfg->job.model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->job.model.mass, kMassHelp);
  cmd->add_option("--input", cfg->job.input,
                  "joint trajectory CSV, OpenSim coordinates (.mot/.sto, with an .osim model) or a BVH clip "
                  "(tracked on the model first)")
      ->required();
  cmd->add_option(
      "--grf", cfg->job.grf,
      "OpenSim ExternalLoads XML or a C3D (its force plates): contacts where a plate's normal force exceeds "
      "--grf-threshold, and the plates to compare with");
  cmd->add_option("--grf-mode", cfg->job.grf_mode,
                  "with --grf: apply = the plates' wrenches are applied as known loads and only the accelerations "
                  "change so that the pelvis/base balances (OpenSim RRA's adjustment); contacts = the plates give "
                  "contact intervals only and the filter solves its own contact forces (the seed's filter)")
      ->check(CLI::IsMember({"apply", "contacts"}))
      ->capture_default_str();
  cmd->add_option("--weighting", cfg->job.weighting,
                  "metric of the acceleration change: unit (every coordinate alike) or inertia (diag of the mass "
                  "matrix: heavy joints change less)")
      ->check(CLI::IsMember({"unit", "inertia"}))
      ->capture_default_str();
  cmd->add_option("--residual-softness", cfg->job.residual_softness,
                  "0: the base balances exactly; > 0: a residual of softness x mass x 1 m/s^2 costs as much as "
                  "1 m/s^2 of acceleration change (RRA's residual actuators; dimensionless; default 0, 0.03 with "
                  "--grf-mode apply)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--grf-threshold", cfg->job.grf_threshold, "plate normal force meaning contact (N)")
      ->capture_default_str();
  cmd->add_option("--slope-deg", cfg->job.slope_deg,
                  "put the (level) motion on a down slope of this angle along its walking direction (Fig. 6)")
      ->capture_default_str();
  cmd->add_option("--out", cfg->job.out, "filtered motion, in the input's layout (joint CSV, or .mot for OpenSim)")
      ->required();
  cmd->add_option("--torques", cfg->job.torques, "generalised forces per frame (CSV, or .sto for OpenSim)");
  cmd->add_option("--summary-json", cfg->job.summary_json, "summary as JSON");
  cmd->add_option("--report-csv", cfg->job.report_csv, "per-frame residuals and contact forces (CSV)");
  cmd->add_option("--plot", cfg->plot, "PNG: residuals before/after, contact forces (vs the plates)");
  cmd->add_option("--cutoff", cfg->job.cutoff, "zero-lag low-pass of the input before differentiating (Hz; 0: none)")
      ->capture_default_str();
  cmd->add_option("--start", cfg->job.time_start,
                  "first time filtered (s; the input is low-passed over its whole length)");
  cmd->add_option("--end", cfg->job.time_end, "last time filtered (s)");
  cmd->add_option("--adjust-com", cfg->job.adjust_com,
                  "with --grf: move this body's mass centre (e.g. torso) by the constant offset that removes the mean "
                  "residual moments of the input under the plates, as OpenSim RRA does, then filter on that model");
  cmd->add_option("--friction", cfg->job.friction, "friction coefficient of the pyramid")->capture_default_str();
  cmd->add_option("--contact-height", cfg->job.contact_height, "contact detection: sole height above ground (m)")
      ->capture_default_str();
  cmd->add_option("--contact-speed", cfg->job.contact_speed, "contact detection: sole speed (m/s)")
      ->capture_default_str();
  cmd->add_option("--kp", cfg->job.kp,
                  "feedback stiffness on every coordinate (1/s^2; default 100, 900 on the joints with --grf-mode "
                  "apply)");
  cmd->add_option("--kd", cfg->job.kd,
                  "feedback damping on every coordinate (1/s; default 20, 60 with --grf-mode apply)");
  cmd->add_option("--kp-base", cfg->job.kp_base,
                  "feedback stiffness on the base / unactuated (OpenSim pelvis) coordinates (1/s^2; default --kp, 10 "
                  "with --grf-mode apply)");
  cmd->add_option("--kd-base", cfg->job.kd_base,
                  "feedback damping on the base / unactuated coordinates (1/s; default --kd, 6 with --grf-mode apply)");
  cmd->add_option("--force-tracking", cfg->job.force_tracking,
                  "weight pulling the contact wrenches towards the plates (dimensionless; needs --grf)")
      ->capture_default_str();
  cmd->add_option("--ground-height", cfg->job.ground_height,
                  "ground height along up (m); default: from plates or feet");
  cmd->add_flag("--no-skyhook", cfg->job.no_skyhook, "no skyhook control of the head");
  cmd->add_flag("--no-pin", cfg->job.no_pin,
                "contacts approach their anchor by Baumgarte damping (40/s) instead of losing their velocity "
                "within the step (they may slide for a few frames after touch-down)");
  cmd->add_flag("--anchor-at-reference", cfg->job.anchor_at_reference,
                "anchor a new contact at the reference's foot pose (not the filtered one): capture feet that slide "
                "do not make the figure drift");
  cmd->add_option("--sole", cfg->job.sole,
                  "contact soles: stance (tilted to the reference's flat stances, fitSolesToStance), model (the "
                  "model's zero pose) or auto (stance for built-in humans, model for OpenSim models)")
      ->check(CLI::IsMember({"auto", "stance", "model"}))
      ->capture_default_str();
  cmd->add_option("--weight-base", cfg->job.weight_base,
                  "weight of the base's acceleration change, joints 1 (default: 100 for a floating base with solved "
                  "contacts, 1 for an OpenSim pelvis or with the plates applied)");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([&action, cfg] { action = [cfg] { return runFilterCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
