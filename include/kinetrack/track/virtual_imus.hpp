#pragma once
// Virtual IMUs (docs/imu.md, "Virtual IMUs"): the orientations of body-fixed frames through a
// model along a motion, as an OpenSense orientation table, with what real IMUs add: white noise,
// a heading drift (the gyroscope's bias integrated about the vertical) per sensor, and a world of
// their own (Z up, any heading). Used to prove the IMU placement and tracking against a known
// motion: OpenSim's own IK result of a recorded walk.
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/io/table/orientation_table.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::track {

struct VirtualImuOptions {
  /// R_W: OpenSim's ground into the IMUs' world (a measured orientation is R_W · R_GI).
  Matrix3d world = Matrix3d::Identity();
  double noise_deg = 0.0;  ///< white noise: a rotation by N(0, σ²) about each axis, every sample
  /// Heading drift: each sensor's orientation turns about the vertical (the model's up) at a rate
  /// drawn per sensor from ±[0.5, 1.5] × this (deg/min), from the first sample on.
  double drift_deg_per_min = 0.0;
  std::uint64_t seed = 1;
};

/// The orientations of model frames `frames` (the IMUs, named as the table's columns) at each
/// configuration. Throws InvalidArgument for an unknown frame, sizes that differ, or times that
/// do not increase.
io::OrientationTable virtualImuTable(const Model& model, const std::vector<std::string>& frames,
                                     const std::vector<double>& times, const std::vector<Configuration>& configurations,
                                     const VirtualImuOptions& options = {});

/// The configurations of an OpenSim coordinates table (.mot; degrees when it says so) on the model:
/// each coordinate from its column, the default value for a coordinate without one. Throws
/// InvalidArgument when no column is a coordinate of the model.
std::vector<Configuration> openSimConfigurations(const io::OpenSimModel& model, const io::MotTable& motion);

}  // namespace kinetrack::track
