#pragma once
// IMUs on an OpenSim model, as OpenSense does it (docs/imu.md):
//
// Placement (OpenSense's IMUPlacer). The IMUs' orientations R_i in their own world are first
// turned into OpenSim's (Y up): R_S·R_i, R_S the setup's sensor_to_opensim_rotations. Heading
// correction: the base IMU's heading axis h (e.g. +z of "pelvis_imu") and the model's forward
// direction, the X axis of the base IMU's body in the default pose, are projected on the
// horizontal plane; the rotation about the vertical that takes h onto X, R_h, is applied to every
// orientation too. Then, with the model in its default pose, each IMU "<body>_imu" is fixed to its
// body by R_BI = R_GBᵀ · R_h·R_S·R_i (the calibration sample), at the body's centre of mass, as a
// PhysicalOffsetFrame named after the IMU. (OpenSense measures the heading angle as acos(X·h)
// without the projection; the two agree when X and h are horizontal.)
//
// Tracking (OpenSense's IMUInverseKinematicsTool): every frame, the model pose whose IMU frames
// best match the measured orientations R_S·R_i (no heading correction: the model turns with the
// subject), min Σ w_i θ_i² with θ_i the angle between model and measured orientation, inside the
// clamped coordinates' ranges, locked coordinates held, couplers exact — ik::MarkerIk with
// orientation targets, warm-started frame to frame. One output row per input frame: a frame with
// no IMU sample is held at the previous pose and flagged (gap).
#include <chrono>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/io/table/orientation_table.hpp"
#include "kinetrack/subject/marker_model.hpp"

namespace kinetrack::track {

// --- placement ----------------------------------------------------------------------------------

struct ImuPlacementOptions {
  Matrix3d sensor_to_opensim = Matrix3d::Identity();  ///< R_S (io::sensorToOpenSimRotation)
  std::string base_imu;                               ///< "" for no heading correction
  std::string base_heading_axis;                      ///< "x", "-x", "y", "-y", "z", "-z"
  /// The calibration sample: the row nearest this time (s); NaN: the first row (OpenSense's).
  double time = std::numeric_limits<double>::quiet_NaN();
};

struct ImuPlacement {
  /// One per placed IMU, in the table's column order: name, body, X_BF (R_BI; the body's centre
  /// of mass). `frame` is unset (they are not frames of the model yet).
  std::vector<io::OpenSimOffsetFrame> frames;
  double heading_correction = 0.0;                ///< rad, about the model's up (0 without a base IMU)
  Matrix3d data_rotation = Matrix3d::Identity();  ///< R_h·R_S, applied to the calibration sample
  double time = 0.0;                              ///< of the sample used
  int row = 0;                                    ///< of the sample used
  /// Columns left out ("'hand_imu': the model has no body 'hand'"; a missing sample).
  std::vector<std::string> warnings;
};

/// The body an IMU column names: "<body>_imu" → "<body>"; "" when the name has no such suffix.
std::string imuBody(const std::string& column);

/// Places the IMUs of `calibration` on `model` (rules above). Throws InvalidArgument for a base
/// IMU that is not a column, or whose sample or body is missing; no IMU of the table on a body of
/// the model; a heading axis not one of the six; a base heading axis that is vertical; a rotation
/// that is not one.
ImuPlacement placeImus(const io::OpenSimModel& model, const io::OrientationTable& calibration,
                       const ImuPlacementOptions& options = {});

// --- tracking -----------------------------------------------------------------------------------

/// The IMU IK problem: the model's couplers, bounds and default pose (a subject::MarkerModel
/// without markers) and the IMU frames with their weights.
struct ImuIkSpec {
  subject::MarkerModel base;
  struct Sensor {
    std::string name;   ///< the table's column
    std::string frame;  ///< the model frame (the IMU's offset frame)
    double weight = 1.0;
  };
  std::vector<Sensor> sensors;
  /// Applied to every measured orientation: R_S (sensor_to_opensim_rotations).
  Matrix3d data_rotation = Matrix3d::Identity();
  ik::MarkerIkOptions options;
};

/// The spec for the columns of a table on an OpenSim model with IMU frames: each column that is a
/// frame of the model (its offset frame) becomes a sensor with weight 1, or with its weight in
/// `weights` (name, weight; a name not among the sensors throws). Accuracy 1e-6 (OpenSense's).
/// Throws InvalidArgument when no column is a frame of the model (naming the columns and the
/// model's offset frames).
ImuIkSpec imuIkSpec(const io::OpenSimModel& model, const std::vector<std::string>& columns,
                    const std::vector<std::pair<std::string, double>>& weights = {});

/// One output row.
struct ImuFrame : ik::Result {
  double time = 0.0;
  int sensors_used = 0;     ///< weighted sensors with a sample
  int sensors_missing = 0;  ///< weighted sensors without one
  double rms_error = 0.0;   ///< rad, √(mean θ²) over the sensors used
  double max_error = 0.0;   ///< rad
  int worst_sensor = -1;    ///< index into spec sensors
  double solve_microseconds = 0.0;
};

/// IMU IK frame by frame (the trial solve and the live server run it). track() does not allocate.
class ImuStreamTracker {
 public:
  /// Throws InvalidArgument for a sensor on a frame the model lacks, a negative weight or bad bounds.
  explicit ImuStreamTracker(const ImuIkSpec& spec);
  /// One frame: `orientations` one per spec sensor in the IMUs' own world (data_rotation is
  /// applied here); a non-finite one is a missing sample. Throws InvalidArgument on a wrong size
  /// or a finite matrix that is not a rotation.
  ImuFrame track(double time, std::span<const Matrix3d> orientations);
  /// The same from unit quaternions (NaN coefficients: missing), as OrientationTable holds them.
  ImuFrame track(double time, std::span<const Eigen::Quaterniond> orientations);
  /// Angle (rad) between sensor i's model frame and its sample after the last frame (NaN: missing).
  [[nodiscard]] double error(int sensor) const;
  [[nodiscard]] int numSensors() const { return static_cast<int>(targets_.size()); }
  [[nodiscard]] const Configuration& state() const { return ik_.state(); }
  [[nodiscard]] const ik::MarkerIk& solver() const { return ik_; }
  [[nodiscard]] const Model& model() const { return ik_.model(); }
  /// The next frame starts from `q` as a first solve (OpenSim assembles its first frame).
  void reset(const Configuration& q);

 private:
  /// Sets every target from sample(i, R) (false: missing), then solves (finish).
  template <class Sample>
  ImuFrame trackWith(double time, std::size_t count, const Sample& sample);
  ImuFrame finish(double time, int used, int missing, std::chrono::steady_clock::time_point start);
  ik::MarkerIk ik_;
  std::vector<TargetId> targets_;
  std::vector<double> weights_;
  Matrix3d data_rotation_;
  bool held_ = false;
};

struct ImuTrialOptions {
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  /// Called after each frame with (frames done, frames in range).
  std::function<void(int, int)> progress;
};

struct ImuTrialResult {
  std::vector<ImuFrame> frames;
  std::vector<Configuration> configurations;  ///< one per frame
  std::vector<std::string> sensor_names;
  /// Angle per frame and sensor (rad): errors[frame * sensors + sensor], NaN for a missing sample.
  std::vector<double> errors;
  double solve_seconds = 0.0;
  [[nodiscard]] int gaps() const;  ///< frames with no sample (held)
  [[nodiscard]] std::vector<double> times() const;
};

/// Solves every frame of the table within the time range. Throws InvalidArgument for a spec
/// sensor that is not a column of the table (listing the columns) or an empty time range.
ImuTrialResult solveImuTrial(const ImuIkSpec& spec, const io::OrientationTable& table,
                             const ImuTrialOptions& options = {});

/// OpenSense's orientation-error table: time and one column per sensor, the angle (rad) between
/// model and measured orientation; NaN for a missing sample.
io::MotTable orientationErrorTable(const ImuTrialResult& result);

}  // namespace kinetrack::track
