#include "kinetrack/app/hand_job.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/hand/hand_model.hpp"
#include "kinetrack/io/capture/qtm_tsv.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/io/table/joint_csv.hpp"

namespace kinetrack::app {
namespace {

std::string mm(double v) { return std::isfinite(v) ? fmt::format("{:.2f}", v) : "-"; }

nlohmann::json handJson(const hand::HandSummary& s) {
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

}  // namespace

HandTrackResult runHandTrack(const HandTrackOptions& o, const Reporter& reporter) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (o.backend != "euclid" && o.backend != "cga")
    throw InvalidArgument("--backend: expected euclid or cga, got '" + o.backend + "'");
  reporter.say(fmt::format("[1/4] reading {}\n", o.input));
  const io::QtmTsv tsv = io::readQtmTsv(o.input);
  const hand::HandMarkerIndex idx = hand::findHandMarkers(tsv.markers, {});
  reporter.say(fmt::format("  {} frames at {:g} Hz, {} markers, {} missing samples\n", tsv.markers.numFrames(),
                           tsv.frequency, tsv.markers.numMarkers(), tsv.missing_samples));

  reporter.say("[2/4] calibrating the hand model from the recording\n");
  hand::CalibrationOptions cal_options;
  if (o.calibration_frames) std::tie(cal_options.first_frame, cal_options.end_frame) = *o.calibration_frames;
  HandTrackResult r;
  r.calibration = hand::calibrateHand(tsv.markers, idx, cal_options);
  const hand::HandCalibration& cal = r.calibration;
  r.frames = tsv.markers.numFrames();
  const int n = r.frames;
  r.calibration_first = cal_options.first_frame;
  r.calibration_end = cal_options.end_frame < 0 ? n : cal_options.end_frame;
  std::string table =
      fmt::format("  triad rigid to {:.3f} mm RMS over {} frames\n", cal.triad_rms * 1e3, cal.triad_frames);
  table +=
      fmt::format("  {:<7} {:>7} {:>22} {:>7} {:>16}\n", "digit", "frames", "bones (mm)", "scale", "fit RMS mid/tip");
  for (int d = 0; d < hand::kDigits; ++d) {
    const auto& g = cal.geometry.digits[static_cast<std::size_t>(d)];
    const auto& c = cal.digits[static_cast<std::size_t>(d)];
    table += fmt::format("  {:<7} {:>7} {:>22} {:>7.3f} {:>16}\n", hand::digitName(d), c.frames,
                         fmt::format("{:.1f} {:.1f} {:.1f}", g.length[0] * 1e3, g.length[1] * 1e3, g.length[2] * 1e3),
                         c.scale, fmt::format("{:.2f}/{:.2f} mm", c.middle_rms * 1e3, c.tip_rms * 1e3));
  }
  reporter.say(table);
  auto model = std::make_shared<const Model>(hand::buildHandModel(cal.geometry));
  r.model = model;
  if (!o.urdf.empty()) writeTextFile(o.urdf, io::toUrdf(*model));

  hand::TrackerOptions options;
  options.use_middle_markers = o.use_middle;
  options.backend = o.backend == "cga" ? hand::Backend::Cga : hand::Backend::Euclid;
  const auto progress = [&](int done, int total) { reporter.report(done, total); };
  const char* targets = o.use_middle ? "tip and middle markers" : "tip markers; middle markers held out";
  if (o.solver == hand::HandSolver::Fabrik)
    reporter.say(fmt::format("[3/4] FABRIK hand tracking ({} backend, {})\n", o.backend, targets));
  else
    reporter.say(fmt::format("[3/4] marker IK (bounded Levenberg–Marquardt) hand tracking ({})\n", targets));
  r.trials.push_back(hand::trackHandRecording(tsv.markers, idx, cal.geometry, o.solver, options, progress));
  if (o.compare_lm && o.solver != hand::HandSolver::Lm) {
    reporter.say("[4/4] marker IK (bounded Levenberg–Marquardt) on the same model and targets\n");
    r.trials.push_back(
        hand::trackHandRecording(tsv.markers, idx, cal.geometry, hand::HandSolver::Lm, options, progress));
  } else {
    reporter.say("[4/4] summary (add --compare-lm for marker IK on the same model)\n");
  }
  if (!o.out.empty()) {
    io::JointCsvWriter w(*model, o.out);
    for (const hand::HandTrialRow& row : r.trials.front().rows) w.write(row.time, row.q, row.gap);
    w.commit();
  }
  for (const auto& t : r.trials) r.summaries.push_back(hand::summarize(t));
  if (o.calibration_frames && r.calibration_end - r.calibration_first < n)
    // The same runs on the frames the calibration never saw (its middle markers included).
    for (const auto& t : r.trials) r.unseen.push_back(hand::summarize(t, r.calibration_first, r.calibration_end));
  if (!o.errors.empty()) writeTextFile(o.errors, handErrorsCsv(r));
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!o.summary_json.empty()) writeTextFile(o.summary_json, summaryJson(r, o));
  return r;
}

std::string summaryText(const HandTrackResult& r) {
  const std::vector<hand::HandSummary>& runs = r.summaries;
  std::string t = fmt::format("  {:<34}", "");
  for (const auto& s : runs) t += fmt::format(" {:>12}", hand::toString(s.solver));
  t += "\n";
  auto row = [&](const std::string& label, auto get) {
    t += fmt::format("  {:<34}", label);
    for (const auto& s : runs) t += fmt::format(" {:>12}", get(s));
    t += "\n";
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
  if (!r.unseen.empty()) {
    t += fmt::format("  frames not used for calibration ({} of {}):\n", r.unseen.front().frames, r.frames);
    for (const auto& s : r.unseen)
      t += fmt::format("    {:<8} tip p50/p95 {}/{} mm, middle median/p95 {}/{} mm\n", hand::toString(s.solver),
                       mm(s.tip_error_mm_p50), mm(s.tip_error_mm_p95), mm(s.middle_error_mm_median),
                       mm(s.middle_error_mm_p95));
  }
  t += fmt::format("  {:<34} {:.2f} s\n", "wall time (all stages)", r.wall_seconds);
  return t;
}

std::string summaryJson(const HandTrackResult& r, const HandTrackOptions& o) {
  nlohmann::json j = handJson(r.summaries.front());
  j["input"] = o.input;
  j["backend"] = o.backend;
  j["triad_rms_m"] = r.calibration.triad_rms;
  if (r.summaries.size() > 1) j["lm"] = handJson(r.summaries[1]);
  j["calibration_frames"] = {r.calibration_first, r.calibration_end};
  if (!r.unseen.empty()) {
    j["unseen"] = handJson(r.unseen.front());
    if (r.unseen.size() > 1) j["unseen"]["lm"] = handJson(r.unseen[1]);
  }
  return j.dump(2) + "\n";
}

std::string handErrorsCsv(const HandTrackResult& r) {
  std::ostringstream out;
  out << "time,gap";
  for (const auto& t : r.trials) {
    for (int d = 0; d < hand::kDigits; ++d) {
      out << ',' << hand::toString(t.solver) << '_' << hand::digitName(d) << "_tip_mm," << hand::toString(t.solver)
          << '_' << hand::digitName(d) << "_middle_mm";
    }
  }
  out << '\n';
  const auto& rows = r.trials.front().rows;
  for (std::size_t f = 0; f < rows.size(); ++f) {
    out << fmt::format("{:.4f},{}", rows[f].time, rows[f].gap ? 1 : 0);
    for (const auto& t : r.trials) {
      for (const auto& d : t.rows[f].digits) {
        out << ',' << (std::isfinite(d.tip_error) ? fmt::format("{:.4f}", d.tip_error * 1e3) : "");
        out << ',' << (std::isfinite(d.middle_error) ? fmt::format("{:.4f}", d.middle_error * 1e3) : "");
      }
    }
    out << '\n';
  }
  return out.str();
}

std::string wroteLine(const HandTrackResult& r, const HandTrackOptions& o) {
  return fmt::format("wrote {} ({} rows){}\n", o.out, r.frames, o.urdf.empty() ? "" : " and " + o.urdf);
}

}  // namespace kinetrack::app
