#pragma once
// OpenSense's orientation files (issue 41): an OpenSim storage table whose cells are unit
// quaternions "w,x,y,z" — one column per IMU, named "<body>_imu" by OpenSense's convention, each
// the sensor frame's orientation in the world of the capture (the IMU's own fixed frame), as
// OpenSim writes them (header "DataRate=…", "DataType=Quaternion", "endheader", then a
// tab-separated "time" + IMU columns table). A missing orientation is an empty cell or "nan".
#include <string>
#include <vector>

#include <Eigen/Geometry>

namespace kinetrack::io {

struct OrientationTable {
  std::string source;
  std::vector<std::string> names;  ///< IMU columns, file order ("pelvis_imu", …)
  std::vector<double> times;       ///< s, strictly increasing
  double data_rate = 0.0;          ///< Hz, the header's DataRate (0 when absent)
  /// Orientation of IMU i at frame f: orientations[f * names.size() + i], normalised; all four
  /// coefficients NaN when missing.
  std::vector<Eigen::Quaterniond> orientations;
  std::vector<int> lines;  ///< 1-based line of each row (empty for a table built in code)
  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numSensors() const { return static_cast<int>(names.size()); }
  [[nodiscard]] const Eigen::Quaterniond& orientation(int frame, int sensor) const {
    return orientations[static_cast<std::size_t>(frame) * names.size() + static_cast<std::size_t>(sensor)];
  }
  [[nodiscard]] bool isValid(int frame, int sensor) const { return orientation(frame, sensor).coeffs().allFinite(); }
  /// Index of the column `name`, or −1.
  [[nodiscard]] int find(const std::string& name) const;
};

/// Reads an OpenSense quaternion table. Throws ParseError naming the file, the line and the column
/// for: no "endheader", a DataType other than Quaternion, a first column other than "time", a
/// column named twice, a row with another number of cells than the header, a cell that is not
/// four comma-separated numbers, a quaternion whose norm is not 1 within 5 % (normalised
/// otherwise), a time that is not finite or does not increase, and no row.
OrientationTable readOrientationTable(const std::string& path);
OrientationTable parseOrientationTable(const std::string& text, const std::string& source);

/// The table as OpenSense writes it (17 significant digits, empty cell for a missing one), read
/// back by parseOrientationTable exactly. Throws InvalidArgument for orientations of the wrong size.
std::string toOrientationSto(const OrientationTable& table);
/// Writes toOrientationSto(table) atomically; ParseError when the file cannot be written.
void writeOrientationTable(const OrientationTable& table, const std::string& path);

}  // namespace kinetrack::io
