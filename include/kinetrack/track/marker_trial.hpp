#pragma once
// Marker IK over a whole trial: bind a model's marker frames to a trial's marker columns, solve
// every frame warm-started from the previous one (ik::MarkerIk), and report OpenSim's per-frame
// marker errors. One result row per input frame in the time range: a frame with no weighted
// marker present is held at the previous solution and flagged (never silently dropped).
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/subject/marker_model.hpp"

namespace kinetrack::track {

/// The problem: the subject's marker model (which trial markers drive which model frames, the
/// couplers, the bounds, the first frame's start: MarkerModel::reference) and what marker IK adds.
struct MarkerIkSpec : subject::MarkerModel {
  struct CoordinateTask {
    std::string joint;
    double weight = 1.0;
    /// One value per trial frame (rad or m), or a single value for every frame.
    std::vector<double> values;
  };
  std::vector<CoordinateTask> coordinate_tasks;
  /// Floating base: place the base at the first frame by the rigid fit of the model markers at
  /// the reference pose to the measured ones (Kabsch), so the first solve starts near the subject.
  bool align_base = true;
  ik::MarkerIkOptions options;
};

/// The marker IK of a marker model: no coordinate task, the base aligned, default options.
MarkerIkSpec markerIkSpec(subject::MarkerModel model);

struct MarkerTrialOptions {
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  /// Called after each frame with (frames done, frames in range).
  std::function<void(int, int)> progress;
};

/// One output row: the solve's outcome (ik::Result; `gap`: no weighted marker present, the
/// previous solution is repeated) and the marker figures.
struct MarkerFrame : ik::Result {
  double time = 0.0;
  int markers_used = 0;                                                ///< weighted markers present
  int markers_missing = 0;                                             ///< weighted markers absent in this frame
  double total_squared_error = 0.0, rms_error = 0.0, max_error = 0.0;  ///< m², m, m
  int worst_marker = -1;                                               ///< index into spec markers
  double solve_microseconds = 0.0;
};

struct MarkerTrialResult {
  std::vector<MarkerFrame> frames;
  std::vector<Configuration> configurations;  ///< one per frame
  std::vector<std::string> marker_names;      ///< spec marker names, for worst_marker
  double solve_seconds = 0.0;                 ///< time in the solver, all frames
  [[nodiscard]] int gaps() const;             ///< frames with no weighted marker (held)
  [[nodiscard]] int framesWithMissingMarkers() const;
};

/// Marker IK frame by frame, as solveMarkerTrial runs it (which is built on it) and as the live
/// server runs it on a stream of marker frames: the solver set up from the spec, the floating
/// base placed once by the rigid fit of the model markers at `spec.reference` to the first frame
/// with three weighted markers present (when spec.align_base), then every frame warm-started
/// from the previous one. track() does not allocate after the alignment.
class MarkerStreamTracker {
 public:
  /// Throws InvalidArgument for a marker on a frame the model lacks (naming it) or bad bounds.
  explicit MarkerStreamTracker(const MarkerIkSpec& spec);
  /// Places the base on these measurements (one per spec marker, NaN components: missing) if not
  /// done yet; true once placed (or when there is nothing to place).
  bool align(std::span<const Vector3d> markers);
  /// One frame: aligns first if needed, then solves. The row's gap/markers_missing/errors as in
  /// solveMarkerTrial. Throws InvalidArgument on wrong sizes only.
  MarkerFrame track(double time, std::span<const Vector3d> markers, std::span<const double> coordinates = {});
  [[nodiscard]] const Configuration& state() const { return ik_.state(); }
  [[nodiscard]] const ik::MarkerIk& solver() const { return ik_; }
  [[nodiscard]] const Model& model() const { return ik_.model(); }

 private:
  ik::MarkerIk ik_;
  std::vector<std::string> frames_;
  std::vector<double> weights_;
  Configuration q0_;
  bool aligned_ = false;
};

/// Solves every trial frame within the time range. Times are those of the trial, except that
/// when the file's time column is the data rate's grid rounded (TRC files print 1/60 s as
/// 0.017), the exact grid t₀ + k/rate is used, as OpenSim does. Throws InvalidArgument for a
/// spec marker absent from the trial or the model (naming it and listing the valid names), a
/// coordinate task whose values do not match the trial length, or an empty time range.
MarkerTrialResult solveMarkerTrial(const MarkerIkSpec& spec, const io::MarkerTrajectories& trial,
                                   const MarkerTrialOptions& options = {});

}  // namespace kinetrack::track
