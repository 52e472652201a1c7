// `kinetrack imu place` and `kinetrack imu ik`: OpenSense's IMUPlacer (IMUs fixed to an OpenSim
// model's bodies from a calibration sample, with heading correction, written into the .osim) and
// IMUInverseKinematicsTool (the model's coordinates from the IMUs' orientations, to .mot), as
// jobs of the library (app::runImuPlace, app::runImuIk; docs/imu.md).
#include <fmt/format.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/command_options.hpp"
#include "cli_common.hpp"
#include "kinetrack/app/imu_job.hpp"
#include "kinetrack/app/label_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

namespace {

struct ImuIkConfig {
  app::ImuIkOptions job;
  std::string plot;
  bool quiet = false;
};

int runImuIkCommand(const ImuIkConfig& cfg) {
  app::ImuIkOptions o = cfg.job;
  if (!cfg.plot.empty() && o.errors.empty()) o.errors = cfg.plot + ".errors.sto";
  const app::ImuIkResult r = app::runImuIk(o, cliReporter(!cfg.quiet));
  out("{}{}", app::summaryText(r), app::wroteLine(r, o));
  if (!cfg.plot.empty()) {
    if (!app::hasSuffix(r.out_path, ".mot") && !app::hasSuffix(r.out_path, ".sto"))
      throw UsageError("--plot reads the coordinates as .mot: give --out with a name ending in .mot");
    runPlot(findScript("", "plot_imu_ik.py"), "plot_imu_ik.py", {r.out_path, o.errors, cfg.plot}, cfg.plot);
  }
  return r.exitStatus();
}

}  // namespace

void addImuCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand(
      "imu",
      "inertial sensors on OpenSim models, as OpenSense: place IMUs (calibration), then track their orientations");
  group->require_subcommand(1);

  auto place = std::make_shared<app::ImuPlaceOptions>();
  auto place_quiet = std::make_shared<bool>(false);
  CLI::App* p = group->add_subcommand(
      "place", "OpenSense's IMUPlacer: fix each <body>_imu to its body from a calibration sample, heading corrected");
  p->add_option("--setup", place->setup,
                "IMUPlacer setup (.xml): rotations, base IMU and heading axis, calibration file");
  p->add_option("--model", place->model, "OpenSim model (.osim, 4.0 format); default: the setup's <model_file>");
  p->add_option("--orientations", place->orientations,
                "calibration orientations (.sto); default: the setup's <orientation_file_for_calibration>");
  p->add_option("--out", place->out,
                "calibrated model (.osim); default: the setup's <output_model_file>, else <model>_calibrated.osim");
  p->add_option("--time", place->time, "calibration sample: the row nearest this time (s); default the first row");
  p->add_option_function<std::string>(
      "--base-imu", [place](const std::string& v) { place->base_imu = v; },
      "IMU whose heading axis is turned to the model's forward (X) direction; \"\" for none; default: the setup's");
  p->add_option_function<std::string>(
       "--base-heading-axis", [place](const std::string& v) { place->base_heading_axis = v; },
       "the base IMU's heading axis: x, -x, y, -y, z or -z; default: the setup's")
      ->check(CLI::IsMember({"x", "-x", "y", "-y", "z", "-z"}));
  p->add_option_function<std::string>(
      "--rotations",
      [place](const std::string& v) {
        std::istringstream in(v);
        Vector3d r;
        std::string rest;
        if (!(in >> r.x() >> r.y() >> r.z()) || (in >> rest) || !r.allFinite())
          throw CLI::ValidationError("--rotations", "'" + v + "' is not three angles in rad (\"X Y Z\")");
        place->sensor_to_opensim_rotations = r;
      },
      "sensor_to_opensim_rotations: space-fixed X-Y-Z angles (rad); default: the setup's");
  p->add_flag("--quiet", *place_quiet, "no stage notes");
  p->callback([place, place_quiet, &action] {
    action = [place, place_quiet] {
      app::Reporter reporter = cliReporter(false);
      if (*place_quiet) reporter.note = nullptr;
      const app::ImuPlaceResult r = app::runImuPlace(*place, reporter);
      out("{}", app::summaryText(r));
      return kExitOk;
    };
  });

  auto cfg = std::make_shared<ImuIkConfig>();
  CLI::App* ik = group->add_subcommand(
      "ik", "OpenSense's IMU inverse kinematics: the coordinates whose IMU frames match the measured orientations");
  app::addImuIkOptions(*ik, cfg->job, cfg->quiet, [&cfg](CLI::App& c) {
    c.add_option("--plot", cfg->plot, "PNG of the main joint angles and the orientation errors per IMU");
  });
  ik->callback([cfg, &action] { action = [cfg] { return runImuIkCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
