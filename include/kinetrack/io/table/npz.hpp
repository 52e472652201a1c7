#pragma once
// NumPy's .npz files (numpy.load reads them): a ZIP archive, entries stored without
// compression, one .npy file (format version 1.0, little-endian, C order) per named array.
// Robot-learning pipelines read their reference motions this way.
#include <cstdint>
#include <string>
#include <vector>

namespace kinetrack::io {

/// One array of an .npz file: float64 values (shape rows × cols, or a scalar or 1-D array with
/// `shape` of size 0 or 1), or strings (a 1-D array of fixed-width unicode, dtype '<U…').
struct NpyArray {
  std::string name;                  ///< entry name without ".npy" (a Python identifier)
  std::vector<std::size_t> shape;    ///< empty: a scalar
  std::vector<double> values;        ///< row-major; empty for a string array
  std::vector<std::string> strings;  ///< a string array (shape = {strings.size()})
};

/// The .npy bytes of one array. Throws InvalidArgument when values do not fill the shape or a
/// string is not valid ASCII (names of joints and frames are).
std::string npyBytes(const NpyArray& array);

/// Writes the arrays as an .npz file (atomically: ".part" then renamed). Throws InvalidArgument
/// for an empty or duplicate name, ParseError when the file cannot be written.
void writeNpz(const std::string& path, const std::vector<NpyArray>& arrays);

/// The .npz bytes (for tests and in-memory use).
std::string npzBytes(const std::vector<NpyArray>& arrays);

}  // namespace kinetrack::io
