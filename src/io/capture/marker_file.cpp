#include "kinetrack/io/capture/marker_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"

namespace kinetrack::io {

std::vector<double> trialTimes(const MarkerTrajectories& trial) {
  std::vector<double> t = trial.times;
  if (trial.data_rate > 0.0 && !t.empty()) {
    const double dt = 1.0 / trial.data_rate;
    bool grid = true;
    for (std::size_t k = 0; k < t.size() && grid; ++k)
      grid = std::abs(t[k] - (t[0] + static_cast<double>(k) * dt)) < 0.5 * dt;
    if (grid)
      for (std::size_t k = 0; k < t.size(); ++k) t[k] = t[0] + static_cast<double>(k) * dt;
  }
  return t;
}

MarkerAxes parseMarkerAxes(std::string_view name) {
  if (name == "auto") return MarkerAxes::Auto;
  if (name == "y-up") return MarkerAxes::YUp;
  if (name == "z-up") return MarkerAxes::ZUp;
  throw InvalidArgument("marker axes: expected auto, y-up or z-up, got '" + std::string(name) + "'");
}

MarkerTrajectories readMarkerTrial(const std::string& path, bool model_y_up, MarkerAxes axes) {
  const bool c3d = path.size() >= 4 && std::equal(path.end() - 4, path.end(), ".c3d", [](char a, char b) {
                     return std::tolower(static_cast<unsigned char>(a)) == b;
                   });
  const bool file_y_up = axes == MarkerAxes::Auto ? !c3d : axes == MarkerAxes::YUp;
  MarkerTrajectories t = c3d ? readC3dMarkers(path, C3dOptions{}) : readTrc(path, {.y_up = false});
  if (file_y_up != model_y_up)
    for (Vector3d& p : t.positions) p = model_y_up ? Vector3d(p.y(), p.z(), p.x()) : Vector3d(p.z(), p.x(), p.y());
  t.up = model_y_up ? Vector3d::UnitY() : Vector3d::UnitZ();
  return t;
}

}  // namespace kinetrack::io
