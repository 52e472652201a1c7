#pragma once
// Private to the C3D reader: the analog channels and the force platforms' parameters.
#include <cstddef>
#include <string>
#include <vector>

#include "c3d_format.hpp"
#include "kinetrack/io/capture/c3d.hpp"

namespace kinetrack::io::detail {

/// Where the data section's frames are and what each holds.
struct C3dDataLayout {
  std::size_t data_at = 0;      ///< byte of frame 0
  std::size_t frame_bytes = 0;  ///< bytes per frame
  std::size_t frames = 0;
  std::size_t points = 0;          ///< points stored per frame (4 words each)
  std::size_t analog_stride = 0;   ///< values per analog sample in the file
  std::size_t analog_samples = 0;  ///< analog samples per point frame
  bool float_data = false;
};

/// Reads the analog channels (labels, units, scales, offsets) into out.analog.
void readC3dAnalog(const C3dBytes& bytes, const C3dParameters& params, const C3dDataLayout& layout, C3dFile& out);

/// Reads the FORCE_PLATFORM group into out.force_plates (lengths × `metres`, corners in the
/// markers' axes: (x, y, z) → (z, x, y) when the file is Y up, i.e. `z_up` false).
void readC3dForcePlates(const C3dParameters& params, double metres, bool z_up, C3dFile& out);

}  // namespace kinetrack::io::detail
