#pragma once
// OpenSim text formats: TRC marker trajectories (read) and MOT/STO coordinate tables (read and
// write). Errors name the file, line and field (kinetrack::ParseError).
#include <string>
#include <vector>

#include <Eigen/Core>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// Marker trajectories in kinetrack's world: metres, Z up (TRC files are usually Y up, mm).
struct MarkerTrajectories {
  std::string source;
  std::vector<std::string> names;
  std::vector<double> times;  ///< s, strictly increasing
  /// Position of marker m at frame f: positions[f * names.size() + m]; NaN when missing.
  std::vector<Vector3d> positions;
  double data_rate = 0.0;  ///< Hz, from the header
  /// The lab's up direction in these positions: +Z once converted (readTrc with y_up, C3D), +Y for
  /// a TRC read as it is (OpenSim's convention). A model must have the same (Model::up).
  Vector3d up = Vector3d::UnitZ();
  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numMarkers() const { return static_cast<int>(names.size()); }
  [[nodiscard]] const Vector3d& position(int frame, int marker) const {
    return positions[static_cast<std::size_t>(frame) * names.size() + static_cast<std::size_t>(marker)];
  }
  [[nodiscard]] bool isValid(int frame, int marker) const { return position(frame, marker).allFinite(); }
};

struct TrcOptions {
  /// Convert a Y-up file to Z up: (x, y, z) → (z, x, y), as for BVH.
  bool y_up = true;
};

/// Reads a TRC file (header keys DataRate, NumFrames, NumMarkers, Units in mm/cm/m; empty fields
/// for missing markers become NaN). Throws ParseError for a missing file, a malformed header, a
/// row with too many values or a non-numeric value (naming the marker and axis), fewer rows than
/// NumFrames, or non-increasing times.
MarkerTrajectories readTrc(const std::string& path, const TrcOptions& options = {});
MarkerTrajectories parseTrc(const std::string& text, const std::string& source, const TrcOptions& options = {});

/// "+Z", "-Y", … for an axis-aligned direction, else "(x, y, z)".
std::string upName(const Vector3d& up);
/// Throws InvalidArgument unless the markers' up direction is the model's (Model::up), saying
/// which is which and how to read the markers in the model's axes.
void checkSameUp(const Model& model, const MarkerTrajectories& markers);
/// The markers in axes whose up is `up`: the cyclic axis permutation between +Y and +Z up
/// ((x, y, z) → (z, x, y) from Y up to Z up, the inverse back), nothing when the same. Throws
/// InvalidArgument for other directions.
MarkerTrajectories withUp(MarkerTrajectories markers, const Vector3d& up);

/// An OpenSim storage table (.mot/.sto): a time column and named columns.
struct MotTable {
  std::string name = "Coordinates";
  std::vector<std::string> columns;  ///< without "time"
  std::vector<double> times;
  Eigen::MatrixXd values;  ///< (rows × columns)
  bool in_degrees = false;
  /// The header has an inDegrees line (legacy SIMM-era .mot files do not; OpenSim reads those
  /// as degrees).
  bool in_degrees_declared = false;
  /// 1-based line of each row in the file it was read from (empty for a table built in code).
  std::vector<int> lines;
  /// The line of `row`, or 0 when unknown (for ParseError).
  [[nodiscard]] int line(int row) const {
    return row >= 0 && static_cast<std::size_t>(row) < lines.size() ? lines[static_cast<std::size_t>(row)] : 0;
  }
};

/// Reads a MOT/STO file (header up to "endheader", inDegrees, then a tab-separated table with a
/// "time" first column). Throws ParseError with file, line and column name on bad input.
MotTable readMot(const std::string& path);
MotTable parseMot(const std::string& text, const std::string& source);
/// Writes a MOT file readable by OpenSim and by readMot (17 significant digits). Throws
/// ParseError when the file cannot be written; writes to a temporary file and renames it.
void writeMot(const MotTable& table, const std::string& path);
std::string toMot(const MotTable& table);

}  // namespace kinetrack::io
