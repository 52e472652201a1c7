#pragma once
// A marker trial from any marker file kinetrack reads (C3D, else TRC), turned into a model's world
// frame, and its frame times.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

/// Axes of a marker file's lab frame.
enum class MarkerAxes : std::uint8_t {
  Auto,  ///< by format: TRC files Y up, C3D files Z up
  YUp,
  ZUp,
};
/// "auto", "y-up", "z-up" (the CLI's --marker-axes); throws InvalidArgument otherwise.
MarkerAxes parseMarkerAxes(std::string_view name);

/// Reads a marker trial (.c3d, else TRC) into a model's world: Y up for an OpenSim model
/// (`model_y_up`), Z up for kinetrack's models; Z up → Y up is (x, y, z) → (y, z, x), Y up → Z up
/// its inverse (x, y, z) → (z, x, y). Throws ParseError as the readers do.
MarkerTrajectories readMarkerTrial(const std::string& path, bool model_y_up, MarkerAxes axes = MarkerAxes::Auto);

/// The trial's frame times: the file's, or, when they lie within half a sample of the data rate's
/// grid, that grid (the rounded times of a TRC written with few digits).
std::vector<double> trialTimes(const MarkerTrajectories& trial);

}  // namespace kinetrack::io
