// `kinetrack c3d info|export`: what a C3D file holds (markers, analog channels, force plates and
// the foot on each), and the file as OpenSim's inputs: TRC markers, the ground reactions as a GRF
// .mot in OpenSim's column names with its ExternalLoads XML, the analog channels as an .sto.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/c3d_job.hpp"

namespace kinetrack::cli {
namespace {

struct C3dConfig {
  app::C3dExportOptions job;
  std::string location = "origin";
  bool no_zero = false;
  bool quiet = false;
};

int runC3dCommand(C3dConfig cfg) {
  cfg.job.location = io::parseForceLocation(cfg.location);
  cfg.job.zero = !cfg.no_zero;
  const app::C3dExportResult r = app::runC3dExport(cfg.job, cliReporter(!cfg.quiet));
  out("{}", r.text);
  for (const std::string& w : r.written) out("wrote {}\n", w);
  return kExitOk;
}

void addInput(CLI::App& cmd, C3dConfig& cfg) {
  cmd.add_option("input", cfg.job.input, "C3D file")->required();
  cmd.add_option("--force-location", cfg.location,
                 "where the plate forces act: origin (the plate's surface centre, with the moment about it; "
                 "OpenSim's default) or cop (the centre of pressure, with the free moment)")
      ->check(CLI::IsMember({"origin", "cop"}))
      ->capture_default_str();
  cmd.add_option("--threshold", cfg.job.threshold,
                 "N: samples with a smaller vertical force get zero force and moment (0: none, as OpenSim)")
      ->capture_default_str();
  cmd.add_flag("--no-zero", cfg.no_zero, "do not subtract the FORCE_PLATFORM:ZERO baseline");
  cmd.add_option("--right-body", cfg.job.right_body, "body a plate under the right foot is applied to")
      ->capture_default_str();
  cmd.add_option("--left-body", cfg.job.left_body, "body a plate under the left foot is applied to")
      ->capture_default_str();
  cmd.add_option("--apply-to", cfg.job.apply_to, "PLATE=BODY: the body a plate's force is applied to (repeatable)");
  cmd.add_flag("--quiet", cfg.quiet, "no progress notes");
}

}  // namespace

void addC3dCommand(CLI::App& app, Action& action) {
  CLI::App* c3d = app.add_subcommand("c3d", "C3D files: what they hold, and as OpenSim's TRC, GRF .mot and .sto");
  c3d->require_subcommand(1);

  auto info = std::make_shared<C3dConfig>();
  CLI::App* i = c3d->add_subcommand("info", "markers, analog channels and force plates (type, place, peak load, foot)");
  addInput(*i, *info);
  i->callback([&action, info] { action = [info] { return runC3dCommand(*info); }; });

  auto cfg = std::make_shared<C3dConfig>();
  CLI::App* e = c3d->add_subcommand(
      "export", "write the markers (TRC), ground reactions (GRF .mot + ExternalLoads XML) and analog channels (.sto)");
  addInput(*e, *cfg);
  e->add_option("--trc", cfg->job.trc, "markers as TRC (mm)");
  e->add_option("--grf", cfg->job.grf,
                "ground reactions as an OpenSim .mot: P_ground_force_vx/vy/vz (N), P_ground_force_px/py/pz (m), "
                "P_ground_torque_x/y/z (N m) per plate P from 1");
  e->add_option("--external-loads", cfg->job.external_loads,
                "ExternalLoads XML applying each loaded plate of --grf to the foot that stood on it");
  e->add_option("--analog", cfg->job.analog, "analog channels as an .sto (the file's units)");
  e->add_option("--channels", cfg->job.channels, "analog channels to write (labels; default all)")->delimiter(',');
  e->add_option("--rotate", cfg->job.rotate,
                "lab → output axes: y-up (Z-up lab to OpenSim's Y up, (x,y,z) → (y,z,x)) or AXIS:DEG,... "
                "(e.g. x:-90); default: the C3D's lab frame");
  e->callback([&action, cfg] {
    action = [cfg] {
      if (cfg->job.trc.empty() && cfg->job.grf.empty() && cfg->job.analog.empty())
        throw UsageError("nothing to write: give --trc, --grf or --analog");
      return runC3dCommand(*cfg);
    };
  });
}

}  // namespace kinetrack::cli
