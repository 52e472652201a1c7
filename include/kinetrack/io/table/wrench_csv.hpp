#pragma once
// External-wrench CSV: world-frame wrenches (force plates, a hand on a bar) acting on named bodies
// of a model over time, the external load of `kinetrack dynamics id` (docs/formats.md):
//
//   time,<body>.fx,<body>.fy,<body>.fz,<body>.px,<body>.py,<body>.pz[,<body>.mx,<body>.my,<body>.mz],…
//
// Units: s; force F in N, its point of application P in m, free moment T in N m, all in
// kinetrack's world frame (Z up). <body> is a link or frame name of the model; the wrench acts on
// that body's link as the spatial force (T + P × F; F) about the world origin. A body has the
// six F and P columns, optionally the three T columns (T = 0 otherwise); columns in any order.
// Every value is a finite number; lines starting with '#' are comments.
#include <span>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// The wrench of one body at every sample of a WrenchTrajectory (world frame).
struct BodyWrenches {
  std::string body;              ///< link or frame name of the model
  bool has_moment = false;       ///< the file has <body>.mx, .my, .mz (moment is 0 otherwise)
  std::vector<Vector3d> force;   ///< F per sample (N)
  std::vector<Vector3d> point;   ///< P per sample, where F acts (m)
  std::vector<Vector3d> moment;  ///< free moment T per sample (N m)
};

/// External wrenches over time, as read from a wrench CSV.
struct WrenchTrajectory {
  std::string source;                ///< file it was read from (for messages)
  int header_line = 0;               ///< 1-based line of the header in `source` (0 when built in memory)
  std::vector<double> times;         ///< s, strictly increasing
  std::vector<BodyWrenches> bodies;  ///< in the order of their first column

  [[nodiscard]] int numSamples() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numBodies() const { return static_cast<int>(bodies.size()); }
};

/// Reads a wrench CSV (format above; blank lines and '#' comments skipped, CRLF and spaces
/// around fields accepted). Throws ParseError(file, line, "column 'name': …") for a missing file;
/// a header whose first column is not "time", a column not named <body>.fx|fy|fz|px|py|pz|mx|my|mz,
/// a repeated column, a body without all of fx, fy, fz, px, py, pz, or with only part of mx, my, mz;
/// a row with the wrong number of fields; an empty, non-numeric, NaN or infinite value; a time
/// that does not increase; no header or no data row.
WrenchTrajectory readWrenchCsv(const std::string& path);
/// Same as readWrenchCsv for text in memory; `source` is used in error messages.
WrenchTrajectory parseWrenchCsv(const std::string& text, const std::string& source);

/// The wrench CSV text of `wrenches` (a '#' line stating the units, then header and rows; the
/// moment columns of the bodies with has_moment; numbers in shortest round-trip form).
/// Throws InvalidArgument for sizes that differ from the sample count, a body name that cannot be
/// a column name (empty, or with ',', '"' or a line break), non-finite values or times that do not
/// increase.
std::string toWrenchCsv(const WrenchTrajectory& wrenches);
/// Writes toWrenchCsv(wrenches) atomically; ParseError(path, 0, …) when it cannot be written.
void writeWrenchCsv(const std::string& path, const WrenchTrajectory& wrenches);

/// The link each body's wrench acts on: the link of the model frame named `body` (every link has a
/// body frame of the same name). Throws ParseError(source, header_line, "column '<body>.fx': …")
/// naming the unknown body and listing the model's link and frame names.
std::vector<LinkId> bindWrenchBodies(const WrenchTrajectory& wrenches, const Model& model);

/// Times this close to the ends of a wrench file's range count as inside it (s): round-off
/// between two files that sample the same clock.
inline constexpr double kWrenchTimeTolerance = 1e-9;

/// What resampleWrenches does with a time outside [times.front(), times.back()] of the wrenches.
enum class WrenchOutside {
  Error,  ///< throw InvalidArgument
  Zero,   ///< no external load there (F = T = 0, P = 0)
};

/// The wrenches at `times` (s, non-decreasing), every body interpolated linearly in time as a
/// spatial force: F and the moment about the world origin T + P × F are interpolated between the
/// two samples around t, P is interpolated linearly and T recovered as the moment minus P × F (so
/// a load linear in time is reproduced exactly; at a sample time the sample is copied). Times
/// within kWrenchTimeTolerance of the range count as inside (and take the end sample). The result
/// has `times` as its times and keeps source, header_line, body names and has_moment. Throws
/// InvalidArgument for times that are not finite or decrease, no samples, or
/// (WrenchOutside::Error) a time outside the range, naming it.
WrenchTrajectory resampleWrenches(const WrenchTrajectory& wrenches, std::span<const double> times,
                                  WrenchOutside outside = WrenchOutside::Error);

}  // namespace kinetrack::io
