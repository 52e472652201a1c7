#pragma once
// Qualisys Track Manager (QTM) TSV exports of 3-D marker trajectories: a header of "KEY\tvalue…"
// lines (NO_OF_FRAMES, NO_OF_MARKERS, FREQUENCY, MARKER_NAMES, TRAJECTORY_TYPES, TIME_STAMP,
// DATA_INCLUDED, …), an optional "Frame\tTime\t<marker> X\t…" column row, then one row per frame:
// frame number, time (s), and X Y Z per marker in mm. A missing marker is written as three empty
// fields, three "nan" or three zeros (QTM's convention for a gap): it becomes NaN. CRLF accepted.
// Errors name the file, line and column (kinetrack::ParseError).
#include <string>
#include <vector>

#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

struct QtmTsv {
  MarkerTrajectories markers;  ///< metres, QTM's axes kept (usually Z up); NaN when missing
  double frequency = 0.0;      ///< Hz (FREQUENCY)
  int cameras = 0;             ///< NO_OF_CAMERAS (0 when absent)
  std::string time_stamp;      ///< TIME_STAMP as written ("" when absent)
  std::string description;     ///< DESCRIPTION
  /// Per marker: "Measured", "Mixed", "Gap-filled", … (TRAJECTORY_TYPES; empty when absent).
  std::vector<std::string> trajectory_types;
  int missing_samples = 0;  ///< (frame, marker) pairs read as missing
};

/// Reads a QTM TSV file. Throws ParseError for a missing file, a header without
/// NO_OF_FRAMES / NO_OF_MARKERS / FREQUENCY / MARKER_NAMES, counts that disagree with the names
/// or the rows, DATA_INCLUDED other than 3D, a row with the wrong number of fields, a value that
/// is not a number (naming the marker and axis), a triple with only some coordinates missing,
/// an infinite value, or times that do not increase.
QtmTsv readQtmTsv(const std::string& path);
QtmTsv parseQtmTsv(const std::string& text, const std::string& source);

}  // namespace kinetrack::io
