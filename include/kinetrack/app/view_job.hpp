#pragma once
// `kinetrack view` as a job (docs/viewer.md): a tracked result as a self-contained browser viewer
// directory (index.html, the bundled page, data.js with every link's position per frame by our
// forward kinematics), with the capture it was tracked from overlaid and per-link target errors.
#include <optional>
#include <string>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::app {

struct ViewOptions {
  io::ModelSpec model;
  std::string result;  ///< joint CSV of the tracked result, or an OpenSim .mot/.sto on an .osim model
  std::string input;   ///< the capture it was tracked from (optional)
  std::string map, calibration, units = "auto";
  double rate = 0.0;
  std::string out;  ///< the viewer directory
  /// Meshes simplified for display by vertex clustering on cubes of this edge (m; 0: every
  /// triangle): viewer::viewerGeometry.
  double mesh_detail = viewer::kDefaultMeshCell;
  // Layers.
  bool muscles = true;        ///< an .osim model's muscle paths (when it has muscles)
  std::string muscle_values;  ///< .sto of activations or forces colouring them (static optimisation)
  std::string markers;        ///< marker trial (.trc/.c3d) against the model's markers
  std::string loads;          ///< OpenSim ExternalLoads .xml (ground reactions) as arrows
  /// With an input on a robot: the person, tracked onto this human model (e.g. human66), drawn
  /// beside the robot, `person_offset` m to its left (0 overlays them). "" draws no person.
  std::string person;
  double person_offset = 1.0;
  // A still of one frame (`kinetrack view --png`), rendered by a headless Chromium.
  std::optional<double> png_time;  ///< s: the frame nearest this time
  std::string png_file;            ///< default <out>/frame_<index>.png
  int width = 1280, height = 720;
  std::string layers;  ///< shown in the still: comma-separated (geometry, skeleton, input, muscles, markers, forces,
                       ///< com, contact, person); "" all
};

struct ViewResult {
  viewer::ViewerData data;
  std::string model_name;
  std::size_t data_bytes = 0, mesh_bytes = 0;  ///< data.js and meshes.js
  std::string png;                             ///< the still written, if any
  int png_frame = -1;
  double png_seconds = 0;
  double seconds = 0;
};

/// Writes the viewer directory. `model` and `result` (optional) replace loading options.model and
/// options.result. Progress counts the steps. Throws InvalidArgument when the viewer was not
/// bundled or the result does not match the model or the capture; ParseError for bad files.
ViewResult runView(const ViewOptions& options, const Reporter& reporter = {}, const Model* model = nullptr,
                   const io::JointTrajectory* result = nullptr);
/// The table `kinetrack view` prints (model, links, frames, geometry, layers, input, target error,
/// data sizes (and per minute of motion), the still, time, page).
std::string summaryText(const ViewResult& r, const ViewOptions& options);

}  // namespace kinetrack::app
