#include "kinetrack/app/view_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::app {

ViewResult runView(const ViewOptions& o, const Reporter& reporter, const Model* given_model,
                   const io::JointTrajectory* given_result) {
  const auto start = std::chrono::steady_clock::now();
  if (!viewer::bundled())
    throw InvalidArgument(
        "the browser viewer was not built into this kinetrack: install nodejs and npm (scripts/setup.sh), "
        "configure with -DKINETRACK_VIEWER=ON (the demo build turns it off) and rebuild (docs/viewer.md)");
  const int steps = o.input.empty() ? 3 : 4;
  reporter.report(0, steps, "model");
  std::optional<Model> loaded;
  if (given_model == nullptr) loaded = loadModel(o.model, reporter).model;
  const Model& model = given_model != nullptr ? *given_model : *loaded;
  reporter.report(1, steps, "result");
  std::optional<io::JointTrajectory> read;
  if (given_result == nullptr) read = io::readJointCsv(o.result);
  const io::JointTrajectory& result = given_result != nullptr ? *given_result : *read;
  ViewResult r;
  r.model_name = model.name();
  if (o.input.empty()) {
    reporter.report(2, steps, "forward kinematics");
    r.data = viewer::buildViewerData(model, result);
  } else {
    reporter.report(2, steps, "input");
    track::CaptureOptions co;
    co.units = io::parseBvhUnits(o.units);
    co.rate = o.rate;
    const track::Capture capture = track::loadCapture(o.input, co);
    track::PlanOptions po;
    po.calibration = o.calibration;
    // A human model takes the capture's segments on its own frames; a robot (no canonical
    // segment among its frames) through its robot map, planned as `kinetrack retarget` plans it,
    // so the person stands where the robot was retargeted from, at its scale.
    track::Retargeting plan;
    const bool human =
        capture.kind == track::CaptureKind::TargetCsv ||
        !track::segmentPairsOnModel(model, io::resolveSegmentMap(capture.clip.segment_names, o.map)).pairs.empty();
    if (human) {
      plan = track::setupOnModel(model, capture, o.map, po).plan;
    } else {
      const track::SegmentPairs pairs = track::resolveRobotPairs(model, capture, o.map, "");
      po.stand_on_ground = true;
      po.root_position_weight = RetargetOptions{}.root_weight;
      plan = track::planTracking(model, capture, pairs.pairs, po);
    }
    reporter.report(3, steps, "forward kinematics");
    r.data = viewer::buildViewerData(model, result, &capture, &plan);
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (o.out.empty()) throw InvalidArgument("--out: empty directory name");
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
    throw ParseError(o.out, 0, "--out exists and is not a directory");
  fs::create_directories(o.out, ec);
  if (ec || !fs::is_directory(o.out, ec)) throw ParseError(o.out, 0, "cannot create output directory: " + ec.message());
  viewer::writeViewerDirectory(o.out, r.data);
  reporter.report(steps, steps);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string summaryText(const ViewResult& r, const ViewOptions& o) {
  const viewer::ViewerData& data = r.data;
  const auto data_size = std::filesystem::file_size(std::filesystem::path(o.out) / "data.js");
  std::vector<std::vector<std::string>> rows = {
      {"model", r.model_name},
      {"links", std::to_string(data.numLinks())},
      {"frames", std::to_string(data.numFrames())},
      {"input", data.input.empty() ? "none" : data.input},
  };
  if (!data.errors.empty()) {
    double mean = 0.0;
    for (const double e : data.frame_error) mean += e;
    mean /= std::max(1, data.numFrames());
    rows.push_back({"target error", fmt::format("mean {:.3g}, p95 {:.3g}, max {:.3g} {}", mean, data.error_p95,
                                                data.error_max, data.error_unit)});
  }
  rows.push_back({"data.js", fmt::format("{:.1f} MiB", static_cast<double>(data_size) / (1024.0 * 1024.0))});
  rows.push_back({"time", fmt::format("{:.2f} s", r.seconds)});
  rows.push_back({"open", (std::filesystem::absolute(o.out) / "index.html").string()});
  return textTable(rows);
}

}  // namespace kinetrack::app
