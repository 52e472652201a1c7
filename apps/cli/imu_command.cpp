// `kinetrack imu place` and `kinetrack imu ik`: OpenSense's IMUPlacer (IMUs fixed to an OpenSim
// model's bodies from a calibration sample, heading corrected, written into the .osim) and
// IMUInverseKinematicsTool (the coordinates from the IMUs' orientations, to .mot), as jobs of the
// library (app::runImuPlace, app::runImuIk; options in app/command_options; docs/imu.md).
#include <memory>
#include <string>

#include "app/command_options.hpp"
#include "cli_common.hpp"
#include "kinetrack/app/imu_job.hpp"
#include "kinetrack/app/label_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {

void addImuCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand(
      "imu",
      "inertial sensors on OpenSim models, as OpenSense: place IMUs (calibration), then track their orientations");
  group->require_subcommand(1);
  auto place = std::make_shared<app::ImuPlaceOptions>();
  auto place_quiet = std::make_shared<bool>(false);
  CLI::App* p = group->add_subcommand(
      "place", "OpenSense's IMUPlacer: fix each <body>_imu to its body from a calibration sample, heading corrected");
  app::addImuPlaceOptions(*p, *place, *place_quiet);
  p->callback([place, place_quiet, &action] {
    action = [place, place_quiet] {
      app::Reporter reporter = cliReporter(false);
      if (*place_quiet) reporter.note = nullptr;
      out("{}", app::summaryText(app::runImuPlace(*place, reporter)));
      return kExitOk;
    };
  });

  auto ik = std::make_shared<app::ImuIkOptions>();
  auto plot = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* k = group->add_subcommand(
      "ik", "OpenSense's IMU inverse kinematics: the coordinates whose IMU frames match the measured orientations");
  app::addImuIkOptions(*k, *ik, *quiet, [plot](CLI::App& c) {
    c.add_option("--plot", *plot, "PNG of the main joint angles and the orientation errors per IMU");
  });
  k->callback([ik, plot, quiet, &action] {
    action = [ik, plot, quiet] {
      if (!plot->empty() && ik->errors.empty()) ik->errors = *plot + ".errors.sto";  // what the plot reads
      const app::ImuIkResult r = app::runImuIk(*ik, cliReporter(!*quiet));
      out("{}{}", app::summaryText(r), app::wroteLine(r, *ik));
      if (plot->empty()) return r.exitStatus();
      if (!app::hasSuffix(r.out_path, ".mot") && !app::hasSuffix(r.out_path, ".sto"))
        throw UsageError("--plot reads the coordinates as .mot: give --out with a name ending in .mot");
      runPlot(findScript("", "plot_imu_ik.py"), "plot_imu_ik.py", {r.out_path, ik->errors, *plot}, *plot);
      return r.exitStatus();
    };
  });
}

}  // namespace kinetrack::cli
