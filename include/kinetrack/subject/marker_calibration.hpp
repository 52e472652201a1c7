#pragma once
// Marker calibration: fit a marker set's offsets to a subject from a trial, like OpenSim's
// MarkerPlacer. Each round solves the pose(s) with ik::MarkerIk at the current offsets, then moves
// every non-fixed marker to where it was measured, expressed in its link frame:
//
//   o_i ← (Σ_k R_k,iᵀ (m̂_ik − p_k,i) + λ o_i⁰) / (n_i + λ)
//
// (R_k,i, p_k,i) the world placement of marker i's link at pose k, m̂_ik its measurement, n_i the
// poses where it is present, o_i⁰ the initial offset and λ ≥ 0 the regularisation. Rounds repeat
// until no offset moves by more than the tolerance.
//
// - One pose (poses = 1, a static trial): the mean marker positions of the frames in range; the
//   first round's pose is OpenSim's static pose, found with the initial offsets. With every marker
//   free and λ = 0 the placed markers fit that pose exactly and a second round changes nothing;
//   fixed markers keep pulling the pose in later rounds (the free ones follow them).
// - Several poses (a range-of-motion trial, or synthetic data): frames spread evenly over the
//   range, each with its own pose, sharing the offsets — block-coordinate descent on
//   Σ_k Σ_i w_i ‖m_i(q_k, o_i) − m̂_ik‖² + λ Σ_i ‖o_i − o_i⁰‖². Offsets are then determined by the
//   data up to a rotation of a link's markers about the line from its joint to its child joint
//   (no marker of a link can tell that rotation apart from the joint's), which the fixed markers or
//   λ settle.
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/subject/marker_model.hpp"

namespace kinetrack::subject {

struct MarkerCalibrationOptions {
  /// Frames of the trial used (s).
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  /// 1: one pose from the mean marker positions over the frames in range (a static trial).
  /// k > 1: k frames spread evenly over the range, each solved for its own pose.
  int poses = 1;
  /// Rounds of pose solve → marker placement (≥ 1); they stop early once no offset moves by
  /// more than `tolerance` (m).
  int max_rounds = 10;
  double tolerance = 1e-6;
  /// λ ≥ 0: pulls every placed offset towards its initial value (λ = 1 moves a marker measured in
  /// one pose half-way).
  double regularization = 0.0;
  /// First round only: each pose is solved with every joint also pulled towards its value in the
  /// start pose (the zero pose for the first: standing, arms out; then the previous pose) by a
  /// coordinate task of this weight (m² per rad²); later rounds solve without it. It picks the
  /// anatomically plausible solution among the many a 66-DoF model has for one frame of 39
  /// markers (clavicle against shoulder rotations, Euler-angle wraps), and the markers placed at
  /// that pose then fit it exactly. 0 disables it.
  double posture_weight = 1e-3;
  /// Bound the joints by the model's position limits (±infinity for human66's continuous joints).
  bool model_limits = true;
  ik::MarkerIkOptions ik;
};

/// What calibration did to one marker.
struct MarkerPlacement {
  std::string name, link;
  bool fixed = false;
  Vector3d initial_offset = Vector3d::Zero();  ///< link frame (m)
  Vector3d offset = Vector3d::Zero();          ///< calibrated, link frame (m)
  double moved = 0.0;                          ///< ‖offset − initial_offset‖ (m)
  /// RMS over the poses of the model-to-measured distance (m) at the first round's pose(s) with
  /// the initial offsets, and at the final pose(s) with the calibrated ones; NaN when the marker
  /// is never present.
  double error_before = 0.0, error_after = 0.0;
  int poses_present = 0;
};

struct MarkerCalibration {
  io::MarkerSet markers;                    ///< the set with the calibrated offsets
  std::vector<Configuration> poses;         ///< final pose of each calibration pose
  std::vector<double> pose_times;           ///< time of each pose (mean time for a static trial)
  std::vector<MarkerPlacement> placements;  ///< per marker, in set order
  int frames_used = 0;                      ///< trial frames averaged (static) or solved (poses)
  int rounds = 0;                           ///< rounds run
  /// Marker RMS (m) over every present marker of every pose: first round with the initial
  /// offsets, and at the end; largest single error at the end.
  double rms_before = 0.0, rms_after = 0.0, max_after = 0.0;
  std::vector<double> rms_per_round;  ///< after each round's pose solve, before its placement
};

/// Calibrates `initial` on `model` (without the markers: they are added with io::withMarkers)
/// from `trial`. Markers of the set absent from the trial keep their offsets (reported with
/// poses_present = 0). Throws InvalidArgument for a set that does not fit the model (see
/// withMarkers), no frame in the time range, fewer than 3 weighted markers present, or bad
/// options.
MarkerCalibration calibrateMarkers(std::shared_ptr<const Model> model, const io::MarkerSet& initial,
                                   const io::MarkerTrajectories& trial, const MarkerCalibrationOptions& options = {});

/// Per marker, the mean position over the frames of `trial` within [time_start, time_end] where
/// it is present (NaN when never); `frames` receives the number of frames in range.
std::vector<Vector3d> meanMarkerPositions(const io::MarkerTrajectories& trial, double time_start, double time_end,
                                          int* frames = nullptr);

/// The subject `kinetrack markers ik`, `markers label` and `serve --markers` prepare on a kinetrack
/// model (built-in or URDF) with a marker set: the set calibrated on `static_trial` first when one
/// is given (calibrateMarkers, default options; the reference is then the calibrated static pose,
/// else the zero pose), its markers added to the model (markerModel). With a `trial`, only the set
/// markers present in it are kept (the others listed in `absent`: they would never count).
struct MarkerSetProblem {
  MarkerModel model;  ///< on the model with the (calibrated) set's markers
  std::optional<MarkerCalibration> calibration;
  std::vector<std::string> absent;  ///< set markers the trial lacks, left out (none without a trial)
};
/// Throws InvalidArgument as calibrateMarkers and markerModel do, and when no marker of the set is
/// in the trial.
MarkerSetProblem markerSetProblem(std::shared_ptr<const Model> model, const io::MarkerSet& set,
                                  const io::MarkerTrajectories* static_trial = nullptr,
                                  const io::MarkerTrajectories* trial = nullptr);

}  // namespace kinetrack::subject
