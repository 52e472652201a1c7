// `kinetrack gait`: a gait lab's day in one command (scale → marker IK → inverse dynamics →
// muscles → EMG), OpenSim's files in one directory and a table of the stages.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/gait_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

void addGaitCommand(CLI::App& app, Action& action) {
  struct Config {
    app::GaitOptions job;
    std::vector<std::string> reserves;
    std::string report;  // PNG drawn by scripts/plot_gait.py from the output directory
    bool quiet = false;
  };
  auto cfg = std::make_shared<Config>();
  CLI::App* cmd = app.add_subcommand(
      "gait", "a lab's trial end to end: scale, marker IK, inverse dynamics with the plates, muscle forces, EMG");
  cmd->add_option("--model", cfg->job.model, "generic .osim (with --scale-setup) or the subject's")->required();
  cmd->add_option("--scale-setup", cfg->job.scale_setup, "OpenSim Setup_Scale.xml: scale on the static trial first");
  cmd->add_option("--static", cfg->job.static_trial, "static trial .trc/.c3d (default: the scale setup's)");
  cmd->add_option("--marker-set", cfg->job.marker_set, "marker-set file for the generic model (default: the setup's)");
  cmd->add_option("--trial", cfg->job.trial, "the trial's markers: .trc/.c3d")->required();
  cmd->add_option("--ik-setup", cfg->job.ik_setup,
                  "OpenSim Setup_IK.xml (marker weights, coordinate tasks, time range)");
  cmd->add_option("--loads", cfg->job.loads,
                  "ExternalLoads XML or a C3D with force plates (default: the trial when it is such a C3D)");
  cmd->add_option("--muscles", cfg->job.muscles, "static-opt, qp, lp or none")
      ->check(CLI::IsMember({"static-opt", "qp", "lp", "none"}))
      ->capture_default_str();
  cmd->add_option("--reserve", cfg->reserves,
                  "reserve actuator COORDINATE=OPTIMAL_FORCE (repeatable; default: 1 on every coordinate)");
  cmd->add_option("--force-set", cfg->job.force_sets, "force-set file with CoordinateActuators (repeatable)");
  cmd->add_option("--cutoff", cfg->job.cutoff, "low-pass of the coordinates for ID and muscles (Hz)")
      ->capture_default_str();
  cmd->add_option("--start", cfg->job.time_start, "first time (s; default the IK setup's, else the trial's)");
  cmd->add_option("--end", cfg->job.time_end, "last time (s)");
  cmd->add_option("--emg", cfg->job.emg, "EMG file .c3d/.anc (default: the trial when it is a C3D)");
  cmd->add_option("--emg-channels", cfg->job.emg_channels, "EMG channel labels (e.g. SOL,GAS,TA)")->delimiter(',');
  cmd->add_option("--emg-side", cfg->job.emg_side, "side of the EMG electrodes (r or l)")
      ->check(CLI::IsMember({"r", "l"}))
      ->capture_default_str();
  cmd->add_option("--emg-map", cfg->job.emg_map,
                  "CHANNEL=MUSCLE (repeatable): the model muscle a channel records (default: by abbreviation)");
  cmd->add_option(
      "--report", cfg->report,
      "one-page PNG: joint angles, moments, activations with the EMG and its on/off, residuals, stage times");
  cmd->add_option("--threads", cfg->job.threads, "muscles: frames across threads (0: all cores)")
      ->capture_default_str();
  cmd->add_option("--out", cfg->job.out, "output directory")->required();
  cmd->add_flag("--quiet", cfg->quiet, "no progress notes");
  cmd->callback([&action, cfg] {
    action = [cfg] {
      for (const std::string& r : cfg->reserves) {
        const auto eq = r.find('=');
        if (eq == std::string::npos) throw UsageError("--reserve '" + r + "': expected COORDINATE=OPTIMAL_FORCE");
        cfg->job.reserves.emplace_back(r.substr(0, eq), parseFiniteDouble(r.substr(eq + 1), "--reserve force"));
      }
      const app::GaitResult r = app::runGait(cfg->job, cliReporter(!cfg->quiet));
      out("{}", r.text);
      if (!cfg->report.empty())
        runPlot(findScript("", "plot_gait.py"), "plot_gait.py", {cfg->job.out, cfg->report}, cfg->report);
      return kExitOk;
    };
  });
}

}  // namespace kinetrack::cli
