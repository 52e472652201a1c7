// `kinetrack demo`: the main job on an embedded default, with no files: a procedurally generated
// walk of the built-in human model (23 Xsens segment poses at 120 Hz) tracked with DYN from the
// model's zero pose, with the same summary as `kinetrack track` and the joint error against the
// walk's own configuration.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"

namespace kinetrack::cli {
namespace {

int runDemoCommand(const app::DemoOptions& o) {
  const app::DemoResult d = app::runDemo(o, cliReporter(false));
  fmt::print("{}", app::summaryText(d.track));
  fmt::print("  (joint RMS: angle between the true and the tracked rotation of each segment relative to its parent)\n");
  if (!o.out.empty()) fmt::print("wrote {} ({} rows)\n", o.out, d.track.rows_written);
  fmt::print("{}", d.checkLine());
  return d.check_ok ? kExitOk : kExitFailure;
}

}  // namespace

void addDemoCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<app::DemoOptions>();
  CLI::App* cmd =
      app.add_subcommand("demo", "track a built-in synthetic walk on a built-in human model (no files needed)");
  cmd->add_option("--model", cfg->model, "built-in model")
      ->check(CLI::IsMember({"human66", "human48"}))
      ->capture_default_str();
  cmd->add_option("--height", cfg->height, "body height (m, 0.5 to 2.5)")->capture_default_str();
  cmd->add_option("--mass", cfg->mass, "body mass (kg, 20 to 300)")->capture_default_str();
  cmd->add_option("--duration", cfg->duration, "length of the walk (s)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_option("--rate", cfg->rate, "frame rate (Hz)")->check(CLI::Range(1.0, 10000.0))->capture_default_str();
  cmd->add_option("--transient", cfg->transient, "seconds excluded from the statistics")->capture_default_str();
  cmd->add_option("--out", cfg->out, "also write the joint trajectory CSV");
  cmd->callback([&action, cfg] { action = [cfg] { return runDemoCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
