#pragma once
// C3D motion-capture files (read): the 3-D points as MarkerTrajectories in metres, Z up, plus the
// file's metadata, the analog channels (C3dFile::analog) and the force platforms' description
// (C3dFile::force_plates; io/capture/force_plates.hpp turns them into ground reactions). Intel,
// DEC (VAX floats) and MIPS (big-endian) files, integer and float data, label continuation
// parameters (POINT:LABELS2, ANALOG:LABELS2, …). Errors name the file, the byte offset and the field
// (kinetrack::ParseError with line 0): "walk.c3d: byte 1192: parameter POINT:LABELS: dimensions 255×255 of 1-byte
// elements run past the parameter section (ends at byte 50176)". docs/formats.md describes the rules.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/io/capture/analog.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

struct C3dOptions {
  /// C3D lab frames are usually Z up: the axes are kept. False: the file is Y up and is
  /// converted to Z up as for TRC, (x, y, z) → (z, x, y).
  bool z_up = true;
  /// Keep the points that are not markers (Vicon model outputs: joint angles, forces, moments,
  /// powers, modelled markers such as CentreOfMass, Plug-in Gait segment frame points PELO, PELA,
  /// …). Positional ones (segment frame points, modelled markers) are converted to metres like the
  /// markers; angles, forces, moments, powers and other outputs keep the file's values (in
  /// angle_units, force_units, …) and axes.
  bool keep_virtual_points = false;
  /// Keep unlabelled trajectories (Vicon names them "*115", "*116", …).
  bool keep_unlabeled = false;
};

/// What a POINT entry of the file holds.
enum class C3dPointKind {
  Marker,         ///< a labelled marker
  Unlabeled,      ///< "*<digits>": an unlabelled trajectory
  SegmentFrame,   ///< Plug-in Gait segment origin/axis point: PELO, PELA, PELL, PELP, LFEO, …
  ModeledMarker,  ///< listed in POINT:MODELED_MARKERS (CentreOfMass, …): a position
  Angle,          ///< listed in POINT:ANGLES (degrees, POINT:ANGLE_UNITS)
  Force,          ///< listed in POINT:FORCES
  Moment,         ///< listed in POINT:MOMENTS
  Power,          ///< listed in POINT:POWERS
  Other,          ///< listed in another group named by POINT:TYPE_GROUPS (or REACTIONS)
};
const char* toString(C3dPointKind kind);
/// True for the kinds whose values are positions (converted to metres and Z up).
bool isPositional(C3dPointKind kind);

/// One FORCE_PLATFORM entry, as the file describes it (read leniently: groundReactions checks it).
struct C3dForcePlate {
  int type = 0;  ///< FORCE_PLATFORM:TYPE (1–4 are computed)
  /// FORCE_PLATFORM:CHANNEL: 0-based indices into C3dFile::analog (6 for types 1, 2 and 4, 8 for
  /// type 3); −1 where the file names channel 0 or one beyond ANALOG:USED.
  std::vector<int> channels;
  std::vector<int> channel_numbers;  ///< as written (1-based), for messages
  /// FORCE_PLATFORM:CORNERS in the lab frame (metres, the markers' axes), in the file's order.
  std::array<Vector3d, 4> corners{};
  /// FORCE_PLATFORM:ORIGIN (metres, plate axes): the sensor origin's offset as the file gives it
  /// (types 1, 2, 4: from the sensor origin to the surface centre; type 3: a, b, az0).
  Vector3d origin = Vector3d::Zero();
  /// FORCE_PLATFORM:CAL_MATRIX of this plate (rows × columns as dimensioned), empty when absent.
  Eigen::MatrixXd calibration;
};

struct C3dFile {
  /// The kept points: names trimmed, a "SUBJECT:" prefix stripped, duplicate or empty labels made
  /// unique ("Point12": 1-based point index in the file); times k / point rate from 0.
  MarkerTrajectories markers;
  std::vector<C3dPointKind> marker_kinds;  ///< per markers.names entry
  std::vector<int> marker_point_index;     ///< per markers.names entry: its index in all_point_labels
  /// Residual of each kept point (frames × markers, like markers.positions): metres for positional
  /// points, NaN where the point is missing.
  std::vector<double> residuals;

  // Every POINT entry of the file, in file order (raw labels, trailing spaces trimmed).
  std::vector<std::string> all_point_labels;
  std::vector<std::string> point_descriptions;  ///< "" where absent
  std::vector<C3dPointKind> all_point_kinds;

  std::string processor;                                            ///< "Intel", "DEC" or "MIPS"
  bool float_data = true;                                           ///< POINT:SCALE < 0
  std::string point_units;                                          ///< POINT:UNITS ("mm", "cm", "m", …)
  double point_scale = 0;                                           ///< POINT:SCALE (negative for float data)
  std::string angle_units, force_units, moment_units, power_units;  ///< POINT:*_UNITS, "" when absent
  int first_frame = 1;  ///< 1-based number of the first frame (header or TRIAL:ACTUAL_START_FIELD)
  int last_frame = 0;   ///< first_frame + frames − 1
  int max_interpolation_gap = 0;
  /// Analog channels: ANALOG:USED channels, (raw − ANALOG:OFFSET) × ANALOG:SCALE × GEN_SCALE
  /// (offsets unsigned when ANALOG:FORMAT is UNSIGNED), at ANALOG:RATE, sample 0 at time 0.
  /// Labels from ANALOG:LABELS (and LABELS2, …): an empty one is named "Channel<n>" (1-based), a
  /// repeated one "<label>_2", "_3", ….
  AnalogData analog;
  std::vector<C3dForcePlate> force_plates;  ///< FORCE_PLATFORM:USED entries
  /// FORCE_PLATFORM:ZERO: the 1-based frames whose mean is each plate's baseline ({0, 0} when
  /// absent; a range with a 0 end means no zeroing).
  std::array<int, 2> force_plate_zero{0, 0};
  double analog_rate = 0;   ///< Hz, ANALOG:RATE (0 without analog data)
  int analog_channels = 0;  ///< ANALOG:USED
  int analog_samples_per_frame = 0;
  std::vector<std::string> subjects;  ///< SUBJECTS:NAMES
  std::string manufacturer;           ///< MANUFACTURER:COMPANY and SOFTWARE, "" when absent
  /// Everything the reader repaired or found doubtful: renamed labels, coordinates that were NaN
  /// or infinite (read as missing), header and parameters that disagree, …
  std::vector<std::string> warnings;
};

/// Reads a C3D file. Throws ParseError for a missing file, a file that is not C3D (byte 1 is not
/// 0x50), an unknown processor type, a parameter section or a parameter running past its end, a
/// missing or non-positive point rate, unknown POINT:UNITS, or a data section holding fewer
/// frames than the file declares (the message gives both counts). Never reads out of bounds.
C3dFile readC3d(const std::string& path, const C3dOptions& options = {});
/// The same on the file's bytes; `source` names the file in errors.
C3dFile parseC3d(std::span<const std::uint8_t> bytes, const std::string& source, const C3dOptions& options = {});
/// readC3d(path, options).markers.
MarkerTrajectories readC3dMarkers(const std::string& path, const C3dOptions& options = {});

}  // namespace kinetrack::io
