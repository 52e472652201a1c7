#pragma once
// OpenSense's tool setups: the IMUPlacer (placing IMUs on a model from a calibration sample) and
// the IMUInverseKinematicsTool (tracking IMU orientations). Errors name the file, line and
// element (kinetrack::ParseError). File names are as written (resolve them against the setup's
// folder, as OpenSim does).
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::io {

/// An <IMUPlacer>.
struct ImuPlacerSetup {
  std::string source, directory;  ///< the setup file and its folder
  std::string model_file;         ///< "" when the setup names none (give the model yourself)
  std::string orientation_file_for_calibration;
  std::string output_model_file;  ///< "" when none: OpenSim writes "<model>_calibrated.osim"
  /// Space-fixed X-Y-Z Euler angles (rad) from the IMUs' space to OpenSim's (Y up):
  /// R = Rz(z)·Ry(y)·Rx(x), applied to every orientation (R·R_imu).
  Vector3d sensor_to_opensim_rotations = Vector3d::Zero();
  std::string base_imu_label;     ///< "" for no heading correction
  std::string base_heading_axis;  ///< "x", "-x", "y", "-y", "z" or "-z" ("" with no base IMU)

  [[nodiscard]] std::string resolve(const std::string& file) const;
};

/// One <OrientationWeight> of an <orientation_weights> set (OpenSim ≥ 4.2).
struct ImuWeightSpec {
  std::string name;  ///< the IMU's column (e.g. "pelvis_imu")
  double weight = 1.0;
  int line = 0;
};

/// An <IMUInverseKinematicsTool>.
struct ImuIkSetup {
  std::string source, directory;
  std::string model_file, orientations_file, output_motion_file, results_directory;
  Vector3d sensor_to_opensim_rotations = Vector3d::Zero();  ///< as ImuPlacerSetup's
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  double accuracy = 1e-6;  ///< OpenSim's default for this tool
  double constraint_weight = std::numeric_limits<double>::infinity();
  bool report_errors = true;
  std::vector<ImuWeightSpec> orientation_weights;  ///< empty: every IMU weight 1

  [[nodiscard]] std::string resolve(const std::string& file) const;
};

/// The rotation of sensor_to_opensim_rotations (space-fixed X, then Y, then Z).
Matrix3d sensorToOpenSimRotation(const Vector3d& xyz);

/// Reads an IMUPlacer setup. Throws ParseError for a missing file, malformed XML, no <IMUPlacer>,
/// rotations that are not three finite numbers, a base_heading_axis other than the six axes, or a
/// base IMU without an axis.
ImuPlacerSetup readImuPlacerSetup(const std::string& path);
ImuPlacerSetup parseImuPlacerSetup(const std::string& xml_text, const std::string& source);

/// Reads an IMUInverseKinematicsTool setup. Throws ParseError as readImuPlacerSetup and for a
/// time range that is not two numbers or starts after it ends, a non-positive accuracy, a
/// negative or non-finite weight, or an IMU weighted twice.
ImuIkSetup readImuIkSetup(const std::string& path);
ImuIkSetup parseImuIkSetup(const std::string& xml_text, const std::string& source);

}  // namespace kinetrack::io
