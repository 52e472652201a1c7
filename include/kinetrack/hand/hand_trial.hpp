#pragma once
// A whole glove recording tracked frame by frame, by the FABRIK hand tracker or, on the same hand
// model and the same targets, by bounded Levenberg–Marquardt marker IK (ik::MarkerIk), with the
// figures `kinetrack hand track` reports (docs/hand.md).
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "kinetrack/hand/hand_calibration.hpp"
#include "kinetrack/hand/hand_tracker.hpp"
#include "kinetrack/model/configuration.hpp"

namespace kinetrack::hand {

enum class HandSolver : std::uint8_t { Fabrik, Lm };
const char* toString(HandSolver s);

struct HandTrialRow {
  double time = 0.0;
  bool gap = false;
  Configuration q;  ///< the hand model's configuration (buildHandModel joint order)
  std::array<DigitResult, kDigits> digits{};
  double seconds = 0.0;  ///< wall time of this frame's solve
};

struct HandTrial {
  HandSolver solver = HandSolver::Fabrik;
  bool use_middle_markers = false;
  std::vector<HandTrialRow> rows;
};

/// Tracks every frame of `recording`. `progress(done, total)` is called now and then.
HandTrial trackHandRecording(const io::MarkerTrajectories& recording, const HandMarkerIndex& markers,
                             const HandGeometry& geometry, HandSolver solver, const TrackerOptions& options,
                             const std::function<void(int, int)>& progress = {});

struct DigitSummary {
  int tip_samples = 0, middle_samples = 0, held = 0;
  double tip_p50_mm = 0.0, tip_p95_mm = 0.0;
  double middle_median_mm = 0.0, middle_p95_mm = 0.0;
};

struct HandSummary {
  HandSolver solver = HandSolver::Fabrik;
  bool use_middle_markers = false;
  int frames = 0;
  int gaps = 0;
  std::array<DigitSummary, kDigits> digits{};
  double tip_error_mm_p50 = 0.0, tip_error_mm_p95 = 0.0;
  double middle_error_mm_median = 0.0, middle_error_mm_p95 = 0.0;
  double constraint_violation_max_rad = 0.0;
  double bone_length_drift_max_m = 0.0;
  double us_per_frame_p50 = 0.0, us_per_frame_p95 = 0.0;
  double iterations_mean = 0.0;  ///< per solved digit (FABRIK iterations or LM iterations)
  int not_converged = 0;         ///< solved digits whose status is not Converged (out of reach, stalled, cap)
  int planes_clamped = 0;
};

/// Summary over every row of `trial`, or over the rows outside [exclude_first, exclude_end) (the
/// frames a calibration used, for errors on frames it never saw); `frames` counts the rows summarised.
HandSummary summarize(const HandTrial& trial, int exclude_first = 0, int exclude_end = 0);

}  // namespace kinetrack::hand
