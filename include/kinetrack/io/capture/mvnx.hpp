#pragma once
// Xsens MVN XML export (MVNX) reading, versions 3 and 4: frame rate, segments with their points,
// calibration frames (identity, N-pose, T-pose, …) kept apart, and per frame the segment
// orientation (quaternion w,x,y,z, segment to global), position, velocity, angular velocity,
// acceleration and angular acceleration (SI units, Z up: no conversion needed), and the segment
// tree its <joints> describe; the IMUs' own orientations (<sensors>, <sensorOrientation>: issue 41,
// as an OpenSense orientation table by mvnxSensorTable). Other sensor data and joint angles are
// ignored. Errors name the file, line and field
// (kinetrack::ParseError).
#include <map>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/io/table/orientation_table.hpp"

namespace kinetrack::io {

struct MvnxSegment {
  std::string label;
  int id = 0;
  /// Named points in the segment frame (m): pos_b (v4) or pos_s (v3).
  std::map<std::string, Vector3d> points;
};

/// One frame: per segment, in <segments> order. Vectors empty when the file lacks the field.
struct MvnxFrame {
  double time = 0.0;                         ///< s (index / frame rate for normal frames; 0 for calibration frames)
  int index = 0;                             ///< the file's index (negative for v3 calibration frames)
  int line = 0;                              ///< line of the <frame> element, for messages
  std::string type;                          ///< "normal", "identity", "npose", "tpose", "tpose-isb", …
  std::vector<Eigen::Vector4d> orientation;  ///< quaternion (w, x, y, z)
  std::vector<Vector3d> position, velocity, acceleration, angular_velocity, angular_acceleration;
  /// Per sensor (MvnxFile::sensors order): its orientation (w, x, y, z, sensor to global); empty
  /// when the frame has no <sensorOrientation>.
  std::vector<Eigen::Vector4d> sensor_orientation;
};

struct MvnxFile {
  std::string source;
  int version = 0;
  double frame_rate = 0.0;    ///< Hz
  std::string configuration;  ///< e.g. "FullBody", "UpperBody"
  std::vector<MvnxSegment> segments;
  std::vector<std::string> sensors;  ///< <sensors> labels, file order (the segment each IMU is on)
  /// Per segment, its parent's index from <joints> (connector1 "Parent/point" → connector2
  /// "Child/point"); −1 for the root and for every segment of a file without <joints>.
  std::vector<int> parents;
  std::map<std::string, MvnxFrame> calibration;  ///< by type ("identity", "npose", "tpose", …)
  std::vector<MvnxFrame> frames;                 ///< "normal" frames, increasing time
};

/// Reads an MVNX file. Throws ParseError: missing file, malformed XML (tinyxml2's line), missing
/// <subject> / frameRate / <segments>, a frame whose field holds the wrong count of numbers
/// (naming frame index, field and expected count), a non-numeric value, non-increasing indices.
MvnxFile readMvnx(const std::string& path);
MvnxFile parseMvnx(const std::string& xml, const std::string& source);

/// The normal frames as a MotionClip (segment labels as names, the segment tree of <joints>, the
/// velocities of the file).
/// A segment whose quaternion or position is missing or non-finite in a frame is a gap there.
MotionClip mvnxToClip(const MvnxFile& file);

/// One calibration frame (e.g. "tpose", "npose") as a one-frame MotionClip; throws
/// InvalidArgument listing the types present when `type` is absent.
MotionClip mvnxCalibrationPose(const MvnxFile& file, const std::string& type);

/// The IMUs' orientations of the normal frames as an OpenSense orientation table: each sensor a
/// column named after the OpenSim body it sits on, OpenSense's way ("<body>_imu": Pelvis →
/// pelvis_imu, T8 → torso_imu, RightUpperLeg → femur_r_imu, RightLowerLeg → tibia_r_imu,
/// RightFoot → calcn_r_imu, RightUpperArm → humerus_r_imu, RightForeArm → radius_r_imu,
/// RightHand → hand_r_imu, the left side alike); a sensor without an OpenSim body (Head, the
/// shoulders) keeps its label. The world is Xsens's (Z up): OpenSense's sensor_to_opensim_rotations
/// (−π/2, 0, 0) turn it to OpenSim's. A frame without <sensorOrientation> has every sample
/// missing. Throws InvalidArgument when the file has no <sensors>.
OrientationTable mvnxSensorTable(const MvnxFile& file);

/// IMU orientations from either file the IMU jobs take: an MVNX export (mvnxSensorTable) when the
/// name ends in .mvnx, else OpenSense's quaternion .sto (readOrientationTable).
OrientationTable readImuOrientations(const std::string& path);

}  // namespace kinetrack::io
