// `kinetrack hand track`: the FABRIK hand tracker (FAB §3.4) on a Qualisys glove recording, with
// held-out middle-marker validation and an optional side-by-side run of marker IK (bounded
// Levenberg–Marquardt) on the same hand model (docs/hand.md).
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/hand_job.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct HandTrackConfig {
  app::HandTrackOptions job;
  std::string plot, calibration_frames;
  bool quiet = false;
};

// "A:B" → frames [A, B) (B empty: to the end, as -1).
std::pair<int, int> parseFrameRange(const std::string& text) {
  const auto colon = text.find(':');
  auto whole = [&](std::string_view t, int empty) {
    if (t.empty()) return empty;
    const double v = parseFiniteDouble(t, "--calibration-frames");
    if (v != std::floor(v) || v < 0 || v > 1e9) {
      throw UsageError("--calibration-frames: '" + text + "' is not FIRST:END with whole frame numbers");
    }
    return static_cast<int>(v);
  };
  if (colon == std::string::npos) throw UsageError("--calibration-frames: '" + text + "' is not FIRST:END");
  const std::string_view t(text);
  return {whole(t.substr(0, colon), 0), whole(t.substr(colon + 1), -1)};
}

int runHandTrackCommand(HandTrackConfig cfg) {
  app::HandTrackOptions& o = cfg.job;
  if (!cfg.calibration_frames.empty()) o.calibration_frames = parseFrameRange(cfg.calibration_frames);
  // The plot reads the per-frame errors: written beside the PNG when not asked for.
  if (o.errors.empty() && !cfg.plot.empty()) o.errors = cfg.plot + ".errors.csv";
  const app::HandTrackResult r = app::runHandTrack(o, cliReporter(!cfg.quiet));
  out("{}", app::summaryText(r));
  out("wrote {} ({} rows){}\n", o.out, r.frames, o.urdf.empty() ? "" : " and " + o.urdf);
  if (!cfg.plot.empty()) runPlot(findScript("", "plot_hand.py"), "plot_hand.py", {o.errors, cfg.plot}, cfg.plot);
  return kExitOk;
}

}  // namespace

void addHandCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand("hand", "hand tracking from a marker glove (FABRIK, FAB §3.4)");
  group->require_subcommand(1);
  auto cfg = std::make_shared<HandTrackConfig>();
  CLI::App* cmd = group->add_subcommand(
      "track", "calibrate a 20-DoF hand model from a Qualisys TSV glove recording and track it with FABRIK");
  cmd->add_option("--input", cfg->job.input,
                  "Qualisys QTM TSV export (hand triad, per digit a tip and a middle marker)")
      ->required();
  cmd->add_option("--out", cfg->job.out,
                  "joint CSV of the hand model, one row per frame (gap = 1 when the triad is lost)")
      ->required();
  cmd->add_option("--summary-json", cfg->job.summary_json, "write the summary as JSON");
  cmd->add_flag("--use-middle-markers", cfg->job.use_middle,
                "also target the middle markers (default: tips only, middle markers held out for validation)");
  cmd->add_flag("--compare-lm", cfg->job.compare_lm, "also run marker IK (bounded LM) on the same model and targets");
  cmd->add_option("--backend", cfg->job.backend, "geometry backend: euclid (plain vectors) or cga (conformal GA)")
      ->check(CLI::IsMember({"euclid", "cga"}));
  cmd->add_option("--calibration-frames", cfg->calibration_frames,
                  "calibrate on frames FIRST:END only (0-based, END excluded, empty END = last); the summary "
                  "adds the errors on the other frames");
  cmd->add_option("--urdf", cfg->job.urdf, "write the calibrated hand model as URDF");
  cmd->add_option("--errors", cfg->job.errors, "per-frame tip and middle-marker errors (CSV, mm)");
  cmd->add_option("--plot", cfg->plot, "PNG of the per-digit errors (with --compare-lm: FABRIK against LM)");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] { action = [cfg] { return runHandTrackCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
