#pragma once
// Test-only C3D writer and walker: small C3D files built in memory (Intel, DEC or MIPS; integer or
// float data; labels split into LABELS, LABELS2, …; analog data interleaved) to read back with
// kinetrack::io::parseC3d, and a minimal walk of an existing file's parameter section (to shrink
// the real fixtures and aim binary mutations at its fields). Independent of the library's reader.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::testing {

enum class C3dCpu { Intel = 84, Dec = 85, Mips = 86 };

/// One extra parameter to write, already encoded by the helpers below.
struct C3dExtraParameter {
  std::string group;  ///< POINT, ANALOG, TRIAL, SUBJECTS, MANUFACTURER or a new group
  std::string name;
  int type = -1;  ///< −1 char, 1 byte, 2 int16, 4 float
  std::vector<int> dims;
  std::vector<std::uint8_t> data;  ///< encoded for the file's processor
};

struct C3dSpec {
  C3dCpu cpu = C3dCpu::Intel;
  bool float_data = false;
  float scale = 0.5f;  ///< |POINT:SCALE|: written negative for float data
  float rate = 100.0f;
  int first_frame = 1;
  std::string units = "mm";
  std::vector<std::string> labels;  ///< one per point
  std::vector<std::string> descriptions;
  int labels_per_parameter = 255;  ///< LABELS holds this many, then LABELS2, LABELS3, …
  /// frames[f][p]: point p of frame f in file units (for integer data, the value ÷ scale must be
  /// an int16). A point with a NaN coordinate is written missing (zeros, residual word −1).
  std::vector<std::vector<Vector3d>> frames;
  int residual_word = 0x0305;  ///< of every present point: camera mask 3, residual 5 × scale
  int analog_channels = 0;
  int analog_samples = 0;  ///< per point frame; the values written are (frame, sample, channel) codes
  /// When not empty: the analog values to write instead of codes, one row per analog sample
  /// (frames × analog_samples rows of analog_channels raw values: int16 for integer data).
  std::vector<std::vector<double>> analog;
  bool point_frames_as_float = false;  ///< POINT:FRAMES as a float instead of an int16
  bool write_point_frames = true;
  bool trial_fields = false;      ///< TRIAL:ACTUAL_START_FIELD / END_FIELD (32-bit frame numbers)
  bool last_offset_zero = false;  ///< end the parameters with offset 0 instead of an end marker
  std::vector<std::pair<std::string, std::vector<std::string>>> point_lists;  ///< {"ANGLES", {…}}, …
  std::vector<std::string> subjects;
  std::vector<C3dExtraParameter> extra;
};

/// The file's bytes.
std::string writeC3d(const C3dSpec& spec);

/// Numbers encoded for a processor (the writer's encoders): int16 and float32.
std::vector<std::uint8_t> c3dInt16(C3dCpu cpu, int v);
std::vector<std::uint8_t> c3dFloat(C3dCpu cpu, float v);

/// A parameter of an existing file, as found by walking its parameter section.
struct C3dItem {
  std::string group, name;    ///< as stored
  std::size_t at = 0;         ///< byte of the name length
  std::size_t offset_at = 0;  ///< byte of the offset to the next item
  int type = 0;               ///< 0 for a group
  std::vector<int> dims;
  std::size_t data_at = 0;
};

/// Groups and parameters of a well-formed file, in file order (stops at the first oddity).
std::vector<C3dItem> c3dItems(const std::string& file);
/// The parameter GROUP:NAME of c3dItems(file); throws std::logic_error when absent.
C3dItem c3dItem(const std::string& file, const std::string& group, const std::string& name);
/// Byte offset of the first frame of the data section (header word 9).
std::size_t c3dDataStart(const std::string& file);
/// A well-formed file cut to its first `frames` frames: header last frame, POINT:FRAMES and
/// TRIAL:ACTUAL_END_FIELD rewritten, the data section cut (Intel files only).
std::string shrinkC3d(const std::string& file, int frames);

}  // namespace kinetrack::testing
