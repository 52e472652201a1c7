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
  std::string result;  ///< joint CSV of the tracked result (unless given in memory)
  std::string input;   ///< the capture it was tracked from (optional)
  std::string map, calibration, units = "auto";
  double rate = 0.0;
  std::string out;  ///< the viewer directory
};

struct ViewResult {
  viewer::ViewerData data;
  std::string model_name;
  double seconds = 0;
};

/// Writes the viewer directory. `model` and `result` (optional) replace loading options.model and
/// options.result. Progress counts the steps. Throws InvalidArgument when the viewer was not
/// bundled or the result does not match the model or the capture; ParseError for bad files.
ViewResult runView(const ViewOptions& options, const Reporter& reporter = {}, const Model* model = nullptr,
                   const io::JointTrajectory* result = nullptr);
/// The table `kinetrack view` prints (model, links, frames, input, target error, data.js size, time, page).
std::string summaryText(const ViewResult& r, const ViewOptions& options);

}  // namespace kinetrack::app
