#pragma once
// Unlabelled optical markers: per frame, a cloud of unnamed 3-D points (what a passive optical
// system reconstructs before labelling), read from a long CSV or made from a labelled trial by
// dropping its labels; and the labelled result written back as a TRC file.
//
// Long CSV (docs/labelling.md, "Inputs and outputs"):
//
//   frame,time,x,y,z          header, required (these five columns in this order)
//   1,0.000,617.2,1055.3,170.8   one point per row; rows of one frame together, any point order
//   1,0.000,639.6,1044.3,-88.9
//   2,0.017,,,                a frame with no point: empty x, y and z
//
// Frame numbers are integers that increase from one frame's rows to the next (they may skip);
// every row of a frame has the same time and times increase. A point with a NaN coordinate is
// not a point: it is dropped and counted in PointCloud::dropped (a recorded gap, never a silently
// lost frame). Blank lines and '#' comments are skipped.
#include <span>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

struct PointCloud {
  std::string source;
  std::vector<long> frame_numbers;   ///< per frame, as in the file (1-based index for trials)
  std::vector<double> times;         ///< s, per frame, strictly increasing
  std::vector<std::size_t> offsets;  ///< frame f holds points[offsets[f], offsets[f + 1])
  std::vector<Vector3d> points;      ///< m, in the file's axes
  std::vector<int> dropped;          ///< per frame: points dropped for a non-finite coordinate
  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] std::span<const Vector3d> frame(int f) const {
    return {points.data() + offsets[static_cast<std::size_t>(f)],
            offsets[static_cast<std::size_t>(f) + 1] - offsets[static_cast<std::size_t>(f)]};
  }
  /// Appends a frame (points copied; non-finite ones dropped and counted).
  void addFrame(long number, double time, std::span<const Vector3d> frame_points);
};

/// Parses the long CSV above; coordinates are multiplied by `scale` (0.001 for mm). Throws
/// ParseError(source, line, …) for a wrong header, a row without five fields, a field that is not
/// a number ("field 'x': 'abc' is not a number"), a non-integer frame, a frame number that does
/// not increase ("field 'frame': 3 after frame 5"), a time that differs inside a frame or does not
/// increase, or a non-positive / non-finite scale (InvalidArgument).
PointCloud parsePointCsv(const std::string& text, const std::string& source, double scale = 1.0);
PointCloud readPointCsv(const std::string& path, double scale = 1.0);

/// The points of a labelled trial without their labels: per frame, its present markers in column
/// order (missing ones are absent). Frame numbers count from 1.
PointCloud stripLabels(const MarkerTrajectories& trial);

struct TrcWriteOptions {
  std::string units = "mm";  ///< mm, cm or m; positions (m) are scaled to it
  /// Frame numbers written in the Frame# column (empty: 1, 2, …).
  std::vector<long> frame_numbers;
};

/// A TRC file (OpenSim's marker format, readable by readTrc): positions as they are (axes are not
/// changed; give Y-up positions for OpenSim), a missing (NaN) position written as empty fields.
/// Throws InvalidArgument for unknown units or mismatched sizes; ParseError when it cannot write.
std::string toTrc(const MarkerTrajectories& trial, const TrcWriteOptions& options = {});
void writeTrc(const MarkerTrajectories& trial, const std::string& path, const TrcWriteOptions& options = {});

}  // namespace kinetrack::io
