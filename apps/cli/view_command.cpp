// `kinetrack view`: a tracked result (the joint CSV of `kinetrack track`) as a self-contained
// browser viewer directory: index.html, the bundled page and data.js with every link's position
// per frame (kinetrack's forward kinematics), the input capture and per-link target errors.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/viewer/viewer.hpp"
#include "text_table.hpp"

namespace kinetrack::cli {
namespace {

struct ViewConfig {
  ModelSpec model;
  std::string result, input, map, calibration, out, units = "auto";
  double rate = 0.0;
  bool quiet = false;
};

int runView(const ViewConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (!viewer::bundled()) {
    throw UsageError(
        "the browser viewer was not built into this kinetrack: install nodejs and npm (scripts/setup.sh), "
        "configure with -DKINETRACK_VIEWER=ON (the demo build turns it off) and rebuild (docs/viewer.md)");
  }
  ProgressBar bar(cfg.input.empty() ? 3 : 4, !cfg.quiet, "step");
  bar.update(0, "model");
  const Model model = loadModelAndWarn(cfg.model).model;
  bar.update(1, "result");
  const io::JointTrajectory result = io::readJointCsv(cfg.result);
  viewer::ViewerData data;
  if (cfg.input.empty()) {
    bar.update(2, "forward kinematics");
    data = viewer::buildViewerData(model, result);
  } else {
    bar.update(2, "input");
    track::CaptureOptions co;
    co.units = io::parseBvhUnits(cfg.units);
    co.rate = cfg.rate;
    const track::Capture capture = track::loadCapture(cfg.input, co);
    track::PlanOptions po;
    po.calibration = cfg.calibration;
    const track::TrackSetup setup = track::setupOnModel(model, capture, cfg.map, po);
    bar.update(3, "forward kinematics");
    data = viewer::buildViewerData(model, result, &capture, &setup.plan);
  }
  prepareOutputDirectory(cfg.out);
  viewer::writeViewerDirectory(cfg.out, data);
  bar.update(cfg.input.empty() ? 3 : 4);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto data_size = std::filesystem::file_size(std::filesystem::path(cfg.out) / "data.js");
  std::vector<std::vector<std::string>> rows = {
      {"model", model.name()},
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
  rows.push_back({"time", fmt::format("{:.2f} s", seconds)});
  rows.push_back({"open", (std::filesystem::absolute(cfg.out) / "index.html").string()});
  printTextTable(rows);
  return kExitOk;
}

}  // namespace

void addViewCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<ViewConfig>();
  CLI::App* cmd = app.add_subcommand(
      "view",
      "write a browser viewer of a tracked result (index.html + data; open it, or serve it with kinetrack serve)");
  cmd->add_option("--model", cfg->model.model, "the result's model: a built-in name or a URDF file")->required();
  cmd->add_option("--height", cfg->model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->model.mass, kMassHelp);
  cmd->add_option("--result", cfg->result, "joint CSV written by kinetrack track --out")->required();
  cmd->add_option("--input", cfg->input, "the capture the result was tracked from (overlaid, target errors)");
  cmd->add_option("--map", cfg->map, "with --input: segment map, as for kinetrack track");
  cmd->add_option("--calibration", cfg->calibration, "with --input: calibration, as for kinetrack track");
  cmd->add_option("--units", cfg->units, "with --input: BVH length unit, as for kinetrack track")
      ->capture_default_str();
  cmd->add_option("--rate", cfg->rate, "with --input: frame rate replacing the file's, as for kinetrack track");
  cmd->add_option("--out", cfg->out, "output directory (created)")->required();
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([cfg, &action] { action = [cfg] { return runView(*cfg); }; });
}

}  // namespace kinetrack::cli
