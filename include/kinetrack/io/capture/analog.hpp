#pragma once
// Analog channels sampled at one rate: force-plate signals, EMG, anything a lab's A/D board
// records beside the cameras. From a C3D file (C3dFile::analog) or a Motion Analysis .anc file
// (readAnc). Values are in the file's units after its offsets and scales; a sample the file holds
// as NaN stays NaN (a gap, never a guess).
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

struct AnalogData {
  std::string source;                     ///< the file read
  double rate = 0.0;                      ///< Hz; sample s is at time s / rate (from 0)
  std::vector<std::string> labels;        ///< unique, trimmed
  std::vector<std::string> units;         ///< per channel, "" when the file gives none
  std::vector<std::string> descriptions;  ///< per channel, "" when absent
  /// Sample s of channel c: values[s * labels.size() + c].
  std::vector<double> values;
  [[nodiscard]] int numChannels() const { return static_cast<int>(labels.size()); }
  [[nodiscard]] int numSamples() const { return labels.empty() ? 0 : static_cast<int>(values.size() / labels.size()); }
  [[nodiscard]] double value(int sample, int channel) const {
    return values[static_cast<std::size_t>(sample) * labels.size() + static_cast<std::size_t>(channel)];
  }
  /// The channel of that label (exact, then case-insensitive), or −1.
  [[nodiscard]] int channel(std::string_view label) const;
};

/// The channels as an OpenSim storage table (`time` then one column per channel, named by its
/// label), as OpenSim's C3DFileAdapter writes its analog table.
MotTable analogTable(const AnalogData& analog);

/// The named channels only, in the order asked. Throws InvalidArgument naming the source and the
/// first label it lacks, with the labels it has.
AnalogData selectChannels(const AnalogData& analog, const std::vector<std::string>& labels);

/// Reads a Motion Analysis ASCII analog file (.anc): the header (BitDepth, PreciseRate, Polarity),
/// the Name, Rate and Range rows, then one row per sample (time, then one integer count per
/// channel). Counts become volts: count × Range (mV) / 1000 / 2^(BitDepth − 1) for a bipolar
/// board, / 2^BitDepth for a unipolar one. Throws ParseError(file, line, …) for a missing file, no
/// Name/Rate/Range rows, a channel rate other than the file's, a Range that is not a positive
/// number, a row with a missing or extra value or one that is not a number (naming the channel),
/// times that do not increase.
AnalogData readAnc(const std::string& path);
AnalogData parseAnc(const std::string& text, const std::string& source);

}  // namespace kinetrack::io
