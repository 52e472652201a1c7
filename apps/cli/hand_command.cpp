// `kinetrack hand track`: the FABRIK hand tracker (FAB §3.4) on a Qualisys glove recording, with
// held-out middle-marker validation and an optional side-by-side run of marker IK (bounded
// Levenberg–Marquardt) on the same hand model (docs/hand.md).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/hand/hand_trial.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/io/qtm_tsv.hpp"
#include "kinetrack/io/urdf.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct HandTrackConfig {
  std::string input, out, summary_json, urdf, errors, plot, backend = "euclid", calibration_frames;
  bool use_middle = false, compare_lm = false, quiet = false;
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

std::string mm(double v) { return std::isfinite(v) ? fmt::format("{:.2f}", v) : "-"; }

nlohmann::json summaryJson(const hand::HandSummary& s) {
  nlohmann::json j;
  j["solver"] = hand::toString(s.solver);
  j["use_middle_markers"] = s.use_middle_markers;
  j["frames"] = s.frames;
  j["gaps"] = s.gaps;
  j["tip_error_mm_p50"] = s.tip_error_mm_p50;
  j["tip_error_mm_p95"] = s.tip_error_mm_p95;
  j["middle_error_mm_median"] = s.middle_error_mm_median;
  j["middle_error_mm_p95"] = s.middle_error_mm_p95;
  j["constraint_violation_max_rad"] = s.constraint_violation_max_rad;
  j["bone_length_drift_max_m"] = s.bone_length_drift_max_m;
  j["us_per_frame_p50"] = s.us_per_frame_p50;
  j["us_per_frame_p95"] = s.us_per_frame_p95;
  j["iterations_mean"] = s.iterations_mean;
  j["not_converged"] = s.not_converged;
  j["planes_clamped"] = s.planes_clamped;
  nlohmann::json digits = nlohmann::json::object();
  for (int d = 0; d < hand::kDigits; ++d) {
    const hand::DigitSummary& ds = s.digits[static_cast<std::size_t>(d)];
    digits[hand::digitName(d)] = {{"held_frames", ds.held},
                                  {"tip_error_mm_p50", ds.tip_p50_mm},
                                  {"tip_error_mm_p95", ds.tip_p95_mm},
                                  {"middle_error_mm_median", ds.middle_median_mm},
                                  {"middle_error_mm_p95", ds.middle_p95_mm}};
  }
  j["digits"] = digits;
  return j;
}

void printSummary(const std::vector<hand::HandSummary>& runs) {
  fmt::print("  {:<34}", "");
  for (const auto& s : runs) fmt::print(" {:>12}", hand::toString(s.solver));
  fmt::print("\n");
  auto row = [&](const std::string& label, auto get) {
    fmt::print("  {:<34}", label);
    for (const auto& s : runs) fmt::print(" {:>12}", get(s));
    fmt::print("\n");
  };
  const std::string held_out = runs.front().use_middle_markers ? "" : " (held out)";
  row("tip error p50 / p95 (mm)",
      [](const hand::HandSummary& s) { return mm(s.tip_error_mm_p50) + "/" + mm(s.tip_error_mm_p95); });
  row("middle-marker error med / p95" + held_out,
      [](const hand::HandSummary& s) { return mm(s.middle_error_mm_median) + "/" + mm(s.middle_error_mm_p95); });
  for (int d = 0; d < hand::kDigits; ++d) {
    row(fmt::format("  {} tip p95 | middle median", hand::digitName(d)), [d](const hand::HandSummary& s) {
      const auto& ds = s.digits[static_cast<std::size_t>(d)];
      return mm(ds.tip_p95_mm) + "|" + mm(ds.middle_median_mm);
    });
  }
  row("constraint violation max (rad)",
      [](const hand::HandSummary& s) { return fmt::format("{:.1e}", s.constraint_violation_max_rad); });
  row("bone-length drift max (m)",
      [](const hand::HandSummary& s) { return fmt::format("{:.1e}", s.bone_length_drift_max_m); });
  row("time per frame p50 / p95 (µs)",
      [](const hand::HandSummary& s) { return fmt::format("{:.1f}/{:.1f}", s.us_per_frame_p50, s.us_per_frame_p95); });
  row("iterations (mean) | not converged",
      [](const hand::HandSummary& s) { return fmt::format("{:.1f}|{}", s.iterations_mean, s.not_converged); });
  row("gaps (triad) | planes clamped",
      [](const hand::HandSummary& s) { return fmt::format("{}|{}", s.gaps, s.planes_clamped); });
}

// Per-frame errors of every run, for the plot: time, gap, then per run and digit tip and middle (mm).
void writeErrors(const std::string& path, const std::vector<const hand::HandTrial*>& trials) {
  std::ostringstream out;
  out << "time,gap";
  for (const auto* t : trials) {
    for (int d = 0; d < hand::kDigits; ++d) {
      out << ',' << hand::toString(t->solver) << '_' << hand::digitName(d) << "_tip_mm," << hand::toString(t->solver)
          << '_' << hand::digitName(d) << "_middle_mm";
    }
  }
  out << '\n';
  const auto& rows = trials.front()->rows;
  for (std::size_t f = 0; f < rows.size(); ++f) {
    out << fmt::format("{:.4f},{}", rows[f].time, rows[f].gap ? 1 : 0);
    for (const auto* t : trials) {
      for (const auto& d : t->rows[f].digits) {
        out << ',' << (std::isfinite(d.tip_error) ? fmt::format("{:.4f}", d.tip_error * 1e3) : "");
        out << ',' << (std::isfinite(d.middle_error) ? fmt::format("{:.4f}", d.middle_error * 1e3) : "");
      }
    }
    out << '\n';
  }
  io::writeFileAtomically(path, out.str());
}

int runHandTrack(const HandTrackConfig& cfg) {
  const auto wall0 = std::chrono::steady_clock::now();
  fmt::print("[1/4] reading {}\n", cfg.input);
  std::fflush(stdout);
  const io::QtmTsv tsv = io::readQtmTsv(cfg.input);
  const hand::HandMarkerIndex idx = hand::findHandMarkers(tsv.markers, {});
  fmt::print("  {} frames at {:g} Hz, {} markers, {} missing samples\n", tsv.markers.numFrames(), tsv.frequency,
             tsv.markers.numMarkers(), tsv.missing_samples);

  fmt::print("[2/4] calibrating the hand model from the recording\n");
  std::fflush(stdout);
  hand::CalibrationOptions cal_options;
  if (!cfg.calibration_frames.empty()) {
    std::tie(cal_options.first_frame, cal_options.end_frame) = parseFrameRange(cfg.calibration_frames);
  }
  const hand::HandCalibration cal = hand::calibrateHand(tsv.markers, idx, cal_options);
  const int cal_end = cal_options.end_frame < 0 ? tsv.markers.numFrames() : cal_options.end_frame;
  fmt::print("  triad rigid to {:.3f} mm RMS over {} frames\n", cal.triad_rms * 1e3, cal.triad_frames);
  fmt::print("  {:<7} {:>7} {:>22} {:>7} {:>16}\n", "digit", "frames", "bones (mm)", "scale", "fit RMS mid/tip");
  for (int d = 0; d < hand::kDigits; ++d) {
    const auto& g = cal.geometry.digits[static_cast<std::size_t>(d)];
    const auto& r = cal.digits[static_cast<std::size_t>(d)];
    fmt::print("  {:<7} {:>7} {:>22} {:>7.3f} {:>16}\n", hand::digitName(d), r.frames,
               fmt::format("{:.1f} {:.1f} {:.1f}", g.length[0] * 1e3, g.length[1] * 1e3, g.length[2] * 1e3), r.scale,
               fmt::format("{:.2f}/{:.2f} mm", r.middle_rms * 1e3, r.tip_rms * 1e3));
  }
  const Model model = hand::buildHandModel(cal.geometry);
  if (!cfg.urdf.empty()) io::writeFileAtomically(cfg.urdf, io::toUrdf(model));

  hand::TrackerOptions options;
  options.use_middle_markers = cfg.use_middle;
  options.backend = cfg.backend == "cga" ? hand::Backend::Cga : hand::Backend::Euclid;
  const int n = tsv.markers.numFrames();
  fmt::print("[3/4] FABRIK hand tracking ({} backend, {})\n", cfg.backend,
             cfg.use_middle ? "tip and middle markers" : "tip markers; middle markers held out");
  std::fflush(stdout);
  std::vector<hand::HandTrial> trials;
  {
    ProgressBar bar(n, !cfg.quiet);
    trials.push_back(hand::trackHandRecording(tsv.markers, idx, cal.geometry, hand::HandSolver::Fabrik, options,
                                              [&](int done, int) { bar.update(done); }));
  }
  if (cfg.compare_lm) {
    fmt::print("[4/4] marker IK (bounded Levenberg–Marquardt) on the same model and targets\n");
    std::fflush(stdout);
    ProgressBar bar(n, !cfg.quiet);
    trials.push_back(hand::trackHandRecording(tsv.markers, idx, cal.geometry, hand::HandSolver::Lm, options,
                                              [&](int done, int) { bar.update(done); }));
  } else {
    fmt::print("[4/4] summary (add --compare-lm for marker IK on the same model)\n");
  }
  {
    io::JointCsvWriter out(model, cfg.out);
    for (const hand::HandTrialRow& r : trials.front().rows) out.write(r.time, r.q, r.gap);
    out.commit();
  }
  std::vector<hand::HandSummary> summaries, unseen;
  for (const auto& t : trials) summaries.push_back(hand::summarize(t));
  printSummary(summaries);
  const bool split = !cfg.calibration_frames.empty() && cal_end - cal_options.first_frame < n;
  if (split) {
    // The same runs on the frames the calibration never saw (its middle markers included).
    for (const auto& t : trials) unseen.push_back(hand::summarize(t, cal_options.first_frame, cal_end));
    fmt::print("  frames not used for calibration ({} of {}):\n", unseen.front().frames, n);
    for (const auto& s : unseen) {
      fmt::print("    {:<8} tip p50/p95 {}/{} mm, middle median/p95 {}/{} mm\n", hand::toString(s.solver),
                 mm(s.tip_error_mm_p50), mm(s.tip_error_mm_p95), mm(s.middle_error_mm_median),
                 mm(s.middle_error_mm_p95));
    }
  }
  std::vector<const hand::HandTrial*> ptrs;
  for (const auto& t : trials) ptrs.push_back(&t);
  const std::string errors_path = !cfg.errors.empty() ? cfg.errors : (cfg.plot.empty() ? "" : cfg.plot + ".errors.csv");
  if (!errors_path.empty()) writeErrors(errors_path, ptrs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  fmt::print("  {:<34} {:.2f} s\n", "wall time (all stages)", wall);
  fmt::print("wrote {} ({} rows){}\n", cfg.out, n, cfg.urdf.empty() ? "" : " and " + cfg.urdf);
  if (!cfg.summary_json.empty()) {
    nlohmann::json j = summaryJson(summaries.front());
    j["input"] = cfg.input;
    j["backend"] = cfg.backend;
    j["triad_rms_m"] = cal.triad_rms;
    if (summaries.size() > 1) j["lm"] = summaryJson(summaries[1]);
    j["calibration_frames"] = {cal_options.first_frame, cal_end};
    if (split) {
      j["unseen"] = summaryJson(unseen.front());
      if (unseen.size() > 1) j["unseen"]["lm"] = summaryJson(unseen[1]);
    }
    io::writeFileAtomically(cfg.summary_json, j.dump(2) + "\n");
  }
  if (!cfg.plot.empty()) runPlot(findScript("", "plot_hand.py"), "plot_hand.py", {errors_path, cfg.plot}, cfg.plot);
  return kExitOk;
}

}  // namespace

void addHandCommand(CLI::App& app, Action& action) {
  CLI::App* group = app.add_subcommand("hand", "hand tracking from a marker glove (FABRIK, FAB §3.4)");
  group->require_subcommand(1);
  auto cfg = std::make_shared<HandTrackConfig>();
  CLI::App* cmd = group->add_subcommand(
      "track", "calibrate a 20-DoF hand model from a Qualisys TSV glove recording and track it with FABRIK");
  cmd->add_option("--input", cfg->input, "Qualisys QTM TSV export (hand triad, per digit a tip and a middle marker)")
      ->required();
  cmd->add_option("--out", cfg->out, "joint CSV of the hand model, one row per frame (gap = 1 when the triad is lost)")
      ->required();
  cmd->add_option("--summary-json", cfg->summary_json, "write the summary as JSON");
  cmd->add_flag("--use-middle-markers", cfg->use_middle,
                "also target the middle markers (default: tips only, middle markers held out for validation)");
  cmd->add_flag("--compare-lm", cfg->compare_lm, "also run marker IK (bounded LM) on the same model and targets");
  cmd->add_option("--backend", cfg->backend, "geometry backend: euclid (plain vectors) or cga (conformal GA)")
      ->check(CLI::IsMember({"euclid", "cga"}));
  cmd->add_option("--calibration-frames", cfg->calibration_frames,
                  "calibrate on frames FIRST:END only (0-based, END excluded, empty END = last); the summary "
                  "adds the errors on the other frames");
  cmd->add_option("--urdf", cfg->urdf, "write the calibrated hand model as URDF");
  cmd->add_option("--errors", cfg->errors, "per-frame tip and middle-marker errors (CSV, mm)");
  cmd->add_option("--plot", cfg->plot, "PNG of the per-digit errors (with --compare-lm: FABRIK against LM)");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] { action = [cfg] { return runHandTrack(*cfg); }; });
}

}  // namespace kinetrack::cli
