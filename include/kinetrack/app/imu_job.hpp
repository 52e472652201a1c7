#pragma once
// `kinetrack imu place` and `kinetrack imu ik` as jobs: OpenSense's IMUPlacer and
// IMUInverseKinematicsTool on an OpenSim model (track/imu_tracking.hpp; docs/imu.md). Placement
// reads the IMUPlacer setup, the model and the calibration orientations and writes the model with
// one PhysicalOffsetFrame per IMU; tracking reads the IMU IK setup, the calibrated model and the
// orientations and writes the coordinates (.mot, degrees), the orientation errors (.sto, rad) and
// the summary.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/track/imu_tracking.hpp"

namespace kinetrack::app {

// --- placement ------------------------------------------------------------------------------------

struct ImuPlaceOptions {
  std::string setup;         ///< IMUPlacer setup (optional when the rest is given)
  std::string model;         ///< .osim (4.0 format); default: the setup's <model_file>
  std::string orientations;  ///< calibration .sto; default: the setup's <orientation_file_for_calibration>
  std::string out;           ///< calibrated .osim; default: the setup's <output_model_file>
  /// Overrides of the setup (unset: the setup's, else none / zero).
  std::optional<std::string> base_imu, base_heading_axis;
  std::optional<Vector3d> sensor_to_opensim_rotations;  ///< rad, space-fixed X-Y-Z
  double time = std::nan("");                           ///< calibration sample (s); NaN: the first row
  /// With out empty: write the setup's <output_model_file> (the CLI: one of them is required);
  /// false: write nothing (Python: the calibrated model is the result).
  bool setup_output = true;
};

struct ImuPlaceResult {
  std::string model_path, orientations_path, out_path;
  track::ImuPlacement placement;
  io::OpenSimModel model;  ///< the calibrated model, read back from the written document
  std::string model_text;  ///< the calibrated .osim
  Vector3d sensor_to_opensim_rotations = Vector3d::Zero();
};

/// Runs `kinetrack imu place`. Throws InvalidArgument for missing options (naming what to give)
/// or a placement that cannot be made (track::placeImus), ParseError for bad files.
ImuPlaceResult runImuPlace(const ImuPlaceOptions& options, const Reporter& reporter = {});
/// The table `kinetrack imu place` prints: the heading correction and one line per IMU.
std::string summaryText(const ImuPlaceResult& r);

// --- tracking -------------------------------------------------------------------------------------

struct ImuIkOptions {
  std::string setup;         ///< IMUInverseKinematicsTool setup (optional when the rest is given)
  std::string model;         ///< calibrated .osim; default: the setup's <model_file>
  std::string orientations;  ///< .sto; default: the setup's <orientations_file>
  std::optional<Vector3d> sensor_to_opensim_rotations;        ///< default: the setup's
  std::vector<std::pair<std::string, double>> weights;        ///< added to the setup's orientation_weights
  std::optional<double> accuracy;                             ///< default: the setup's (1e-6)
  double time_start = std::nan(""), time_end = std::nan("");  ///< s; NaN: the setup's range, else all
  // Files (empty: not written).
  std::string out;           ///< coordinates .mot (degrees); ".csv": kinetrack's joint CSV
  std::string errors;        ///< orientation errors (.sto, rad)
  std::string summary_json;  ///< the summary
  /// With out empty: write the setup's <output_motion_file> (the CLI: one of them is required).
  bool setup_output = true;
};

struct ImuIkSummary {
  int frames = 0, gaps = 0, frames_with_missing = 0, failed_frames = 0, sensors = 0, coordinates = 0;
  double error_rms_deg = 0, error_max_deg = 0, worst_time = 0;
  std::string worst_sensor = "-";
  double frame_rms_median_deg = 0, frame_rms_p95_deg = 0;
  std::vector<double> sensor_rms_deg;  ///< per sensor, over its samples
  double solve_us_median = 0, solve_us_p95 = 0, iterations_median = 0, frames_per_second = 0, wall_seconds = 0;
};

struct ImuIkResult {
  std::string model_path, orientations_path, out_path;
  std::shared_ptr<const Model> model;
  track::ImuTrialResult trial;
  io::MotTable coordinates;  ///< OpenSim's columns, degrees
  ImuIkSummary summary;
  /// 0, or 1 when a frame failed (the CLI's exit status).
  [[nodiscard]] int exitStatus() const { return summary.failed_frames > 0 ? 1 : 0; }
};

/// Runs `kinetrack imu ik`. `loaded` (optional) replaces reading the model (Python passes the
/// calibrated model of imu_place). Throws InvalidArgument for missing options or a problem that
/// cannot be stated (track::imuIkSpec), ParseError for bad files.
ImuIkResult runImuIk(const ImuIkOptions& options, const Reporter& reporter = {},
                     const io::OpenSimModel* loaded = nullptr);
std::string summaryText(const ImuIkResult& r);
std::string summaryJson(const ImuIkResult& r, const ImuIkOptions& options);
/// "wrote OUT (N rows)[ and ERRORS]\n".
std::string wroteLine(const ImuIkResult& r, const ImuIkOptions& options);

}  // namespace kinetrack::app
