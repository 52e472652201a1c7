#pragma once
// The browser viewer (web/, docs/viewer.md): the page and its bundle, embedded into the library at
// build time, and the data a tracked result shows in it. Every link position is computed here with
// kinetrack's forward kinematics, so the page draws without kinematics of its own.
//
//   const auto data = viewer::buildViewerData(model, io::readJointCsv("walk_q.csv"), &capture, &plan);
//   viewer::writeViewerDirectory("walk_view", data);   // open walk_view/index.html
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::viewer {

/// One file of the page (index.html, viewer.js).
struct Asset {
  std::string_view name;
  std::string_view text;
};

/// False when the library was built without node/npm: the page was not bundled and assets() is
/// empty.
bool bundled();
/// The page's files, embedded at build time (web/build.mjs).
std::vector<Asset> assets();

/// A tracked result ready to draw.
struct ViewerData {
  std::string model_name;
  std::string result;                   ///< the joint CSV it came from
  std::vector<std::string> link_names;  ///< every link, model order
  std::vector<int> link_parent;         ///< parent index or −1
  std::vector<double> times;            ///< s, one per frame
  std::vector<std::uint8_t> gap;        ///< per frame (joint CSV gap flag)
  std::vector<double> positions;        ///< world origin of every link: (frame · links + link) · 3
  // The input capture, in the model's world (the tracker's alignment), when given: with a plan,
  // its targeted segments (parent = nearest targeted ancestor), else every segment.
  std::string input;  ///< capture file, empty when none
  std::vector<std::string> segment_names;
  std::vector<int> segment_parent;
  std::vector<double> input_positions;    ///< (frame · segments + segment) · 3
  std::vector<std::uint8_t> input_valid;  ///< frame · segments + segment
  /// Target error per link and frame (frame · links + link), −1 for links without a target:
  /// the angle between target and tracked orientation (deg) when the targets carry orientations,
  /// else the position distance (mm). Empty without an input.
  std::vector<double> errors;
  std::vector<double> frame_error;  ///< mean over the targeted links, per frame
  std::string error_unit;           ///< "deg" or "mm"
  double error_p95 = 0.0;           ///< 95th percentile of errors over links and frames
  double error_max = 0.0;
  double error_scale = 0.0;  ///< colour scale top: error_p95, at least 1

  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numLinks() const { return static_cast<int>(link_names.size()); }
};

/// The result's link positions per frame (forward kinematics of each row) and, with a capture
/// and the plan it was tracked with (track::setupOnModel), its segments and per-link target
/// errors. Throws InvalidArgument when the result's joints do not match the model (naming the
/// file and the missing or unknown columns) or when the capture's frame count differs from the
/// result's.
ViewerData buildViewerData(const Model& model, const io::JointTrajectory& result,
                           const track::Capture* capture = nullptr, const track::Retargeting* plan = nullptr);

/// data.js: `window.KINETRACK_DATA = {...};` (positions rounded to 0.1 mm, errors to 0.01).
std::string dataScript(const ViewerData& data);

/// Writes index.html, viewer.js and data.js into `dir` (created with its parents). Throws
/// InvalidArgument when the viewer was not bundled (build it with node and npm installed: see
/// docs/viewer.md), ParseError when a file cannot be written.
void writeViewerDirectory(const std::string& dir, const ViewerData& data);

}  // namespace kinetrack::viewer
