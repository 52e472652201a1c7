#pragma once
// Calibration of the hand model from the recording itself (docs/hand.md): the triad's shape, and
// per digit its root on the palm, plane axis, bone lengths and middle-marker placement, fitted to
// every sampled frame where the triad and both of the digit's markers are seen. One bundle
// adjustment per digit (Levenberg–Marquardt with the Schur complement: 8 digit parameters, 4 pose
// angles per frame), bone-length proportions fixed to adult averages and one scale fitted.
#include <array>
#include <string>
#include <vector>

#include "kinetrack/hand/hand_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::hand {

/// Marker names of the glove (defaults: the DFKI glove of ../shared/data/hand).
struct HandMarkerNames {
  std::array<std::string, 3> triad{"hand_top", "hand_left", "hand_right"};
  std::array<std::string, kDigits> tip{"thumb_tip", "index_tip", "middle_tip", "ring_tip", "little_tip"};
  std::array<std::string, kDigits> middle{"thumb_middle", "index_middle", "middle_middle", "ring_middle",
                                          "little_middle"};
};

/// Column indices of the glove's markers in a recording; throws InvalidArgument naming a missing
/// marker and listing the recording's.
struct HandMarkerIndex {
  std::array<int, 3> triad{};
  std::array<int, kDigits> tip{}, middle{};
};
HandMarkerIndex findHandMarkers(const io::MarkerTrajectories& recording, const HandMarkerNames& names);

struct CalibrationOptions {
  int max_frames = 400;      ///< frames sampled (evenly) per digit
  int iterations = 60;       ///< Levenberg–Marquardt iterations per digit
  double psi_margin = 0.35;  ///< plane-angle range: observed span plus this margin each side (rad)
  /// Frames [first_frame, end_frame) the calibration may use (end_frame < 0: to the last frame),
  /// so that its middle markers can be kept out of an evaluation on the other frames.
  int first_frame = 0;
  int end_frame = -1;
};

struct DigitCalibration {
  int frames = 0;           ///< frames used
  double middle_rms = 0.0;  ///< fit residual at the middle marker (m)
  double tip_rms = 0.0;     ///< fit residual at the tip marker (m)
  double scale = 1.0;       ///< fitted scale of the adult-average bone lengths
};

struct HandCalibration {
  HandGeometry geometry;
  std::array<DigitCalibration, kDigits> digits{};
  int triad_frames = 0;    ///< frames with the whole triad
  double triad_rms = 0.0;  ///< triad shape residual (m): how rigid the back-of-hand plate is
};

/// Calibrates from `recording` (metres). Throws InvalidArgument when the frame range is empty or
/// outside the recording, a digit has fewer than 20 usable frames or the triad is never complete.
HandCalibration calibrateHand(const io::MarkerTrajectories& recording, const HandMarkerIndex& markers,
                              const CalibrationOptions& options = {});

/// The adult-average bone lengths used as proportions (m): per digit, bones 1..3 (docs/hand.md).
std::array<double, 3> averageBoneLengths(int digit);

}  // namespace kinetrack::hand
