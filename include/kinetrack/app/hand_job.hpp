#pragma once
// `kinetrack hand track` as a job (docs/hand.md): a Qualisys glove recording read, the 20-DoF hand
// model calibrated from it, every frame tracked with FABRIK (FAB §3.4) and optionally with marker
// IK (bounded Levenberg–Marquardt) on the same model and targets, middle markers held out for
// validation unless used; the joint CSV, the calibrated URDF, per-frame errors and the summary.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/hand/hand_calibration.hpp"
#include "kinetrack/hand/hand_trial.hpp"

namespace kinetrack::app {

struct HandTrackOptions {
  std::string input;  ///< Qualisys QTM TSV export (hand triad, per digit a tip and a middle marker)
  hand::HandSolver solver = hand::HandSolver::Fabrik;  ///< the tracker of the joint CSV
  bool compare_lm = false;                             ///< also run marker IK (LM) on the same model and targets
  bool use_middle = false;         ///< also target the middle markers (default: held out for validation)
  std::string backend = "euclid";  ///< FABRIK's geometry: euclid or cga
  /// Calibrate on frames [first, end) only (end −1: the last); the summary adds the other frames'.
  std::optional<std::pair<int, int>> calibration_frames;
  // Files (empty: not written).
  std::string out;  ///< joint CSV of the hand model (gap = 1 when the triad is lost)
  std::string summary_json;
  std::string urdf;    ///< the calibrated hand model
  std::string errors;  ///< per-frame tip and middle-marker errors (CSV, mm)
};

struct HandTrackResult {
  std::shared_ptr<const Model> model;  ///< the calibrated hand model
  hand::HandCalibration calibration;
  int calibration_first = 0, calibration_end = 0;  ///< the frames calibrated on
  std::vector<hand::HandTrial> trials;             ///< the tracker's, then LM's with compare_lm
  std::vector<hand::HandSummary> summaries;        ///< one per trial
  std::vector<hand::HandSummary> unseen;           ///< per trial, the frames not calibrated on (when split)
  int frames = 0;
  double wall_seconds = 0;
};

/// Runs `kinetrack hand track`: notes its four stages, reports progress per frame. Throws
/// InvalidArgument for bad options or a recording it cannot calibrate on, ParseError for a bad file.
HandTrackResult runHandTrack(const HandTrackOptions& options, const Reporter& reporter = {});
/// The summary as printed: one column per solver, the unseen frames' errors, the wall time.
std::string summaryText(const HandTrackResult& r);
/// The summary as JSON text (the tracker's figures; "lm" and "unseen" when run).
std::string summaryJson(const HandTrackResult& r, const HandTrackOptions& options);
/// The line `kinetrack hand track` closes with: "wrote OUT (N rows)[ and URDF]\n".
std::string wroteLine(const HandTrackResult& r, const HandTrackOptions& options);
/// The per-frame errors of every trial: time, gap, then per solver and digit tip and middle (mm).
std::string handErrorsCsv(const HandTrackResult& r);

}  // namespace kinetrack::app
