#include "kinetrack/app/view_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "headless_browser.hpp"
#include "kinetrack/app/label_job.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "kinetrack/track/virtual_imus.hpp"

namespace kinetrack::app {

namespace {

// The result file: a joint CSV (kinetrack track, retarget, markers ik --out), or an OpenSim
// coordinates table (.mot/.sto: OpenSim's IK, `kinetrack markers ik --mot`) on an .osim model,
// read as OpenSim reads it (degrees when the header says so, couplers applied).
viewer::Motion readMotion(const ViewOptions& o, const Model& model, const io::OpenSimModel* osim) {
  if (!hasSuffix(o.result, ".mot") && !hasSuffix(o.result, ".sto"))
    return viewer::motionOf(io::readJointCsv(o.result), model);
  if (osim == nullptr)
    throw InvalidArgument(o.result +
                          ": an OpenSim coordinates table needs the OpenSim model it belongs to (--model "
                          "X.osim); model '" +
                          o.model.model + "' is not one");
  const io::MotTable table = io::readMot(o.result);
  viewer::Motion m;
  m.source = o.result;
  m.times = table.times;
  try {
    m.configurations = track::openSimConfigurations(*osim, table);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(o.result + ": " + e.what());
  }
  if (m.configurations.empty()) throw ParseError(o.result, 0, "the table has no rows");
  if (m.configurations.front().joints.size() != model.numJoints())
    throw InvalidArgument(o.result + ": the OpenSim model read for the table differs from the model shown");
  return m;
}

// The capture's plan on the model (human: its segments; robot: its robot map, planned as
// `kinetrack retarget` plans it, so the person stands where the robot was retargeted from).
track::Retargeting planOn(const Model& model, const track::Capture& capture, const ViewOptions& o) {
  track::PlanOptions po;
  po.calibration = o.calibration;
  const bool human =
      capture.kind == track::CaptureKind::TargetCsv ||
      !track::segmentPairsOnModel(model, io::resolveSegmentMap(capture.clip.segment_names, o.map)).pairs.empty();
  if (human) return track::setupOnModel(model, capture, o.map, po).plan;
  const track::SegmentPairs pairs = track::resolveRobotPairs(model, capture, o.map, "");
  po.stand_on_ground = true;
  static const double kRootWeight = RetargetOptions{}.root_weight;
  po.root_position_weight = kRootWeight;
  return track::planTracking(model, capture, pairs.pairs, po);
}

// The person of a retargeting: the capture tracked onto a human model as `kinetrack track` does.
viewer::ViewerData::Companion personOf(const ViewOptions& o, const Model& robot, const track::Capture& capture,
                                       const viewer::ViewerData* robot_data) {
  TrackOptions to;
  to.model.model = o.person;
  to.input = o.input;
  to.calibration = o.calibration;
  to.units = o.units;
  to.rate = o.rate;
  const TrackResult tracked = runTrack(to, {}, nullptr, &capture);
  viewer::Motion motion;
  motion.source = o.input;
  motion.times = tracked.record.times;
  motion.configurations = tracked.q;
  motion.gap = tracked.record.gap;
  viewer::ViewerData::Companion c;
  c.label = "person (" + tracked.model->name() + ")";
  const Vector3d up = robot.up();
  Vector3d side = up.cross(Vector3d::UnitX());
  if (side.norm() < 1e-6) side = up.cross(Vector3d::UnitY());
  auto person = std::make_shared<viewer::ViewerData>(viewer::buildViewerData(*tracked.model, motion));
  // Beside the robot: the person's root over the robot's at the first frame (horizontally), its
  // lowest link origin of the clip at the robot's, then `person_offset` to the robot's left.
  const auto lowest = [&](const viewer::ViewerData& d) {
    double h = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i + 2 < d.positions.size(); i += 3)
      h = std::min(h, Vector3d(d.positions[i], d.positions[i + 1], d.positions[i + 2]).dot(up));
    return std::isfinite(h) ? h : 0.0;
  };
  const viewer::ViewerData& scene = *robot_data;
  Vector3d shift = Vector3d::Zero();
  if (!scene.positions.empty() && !person->positions.empty()) {
    const Vector3d a(scene.positions[0], scene.positions[1], scene.positions[2]);
    const Vector3d b(person->positions[0], person->positions[1], person->positions[2]);
    shift = (a - b) - (a - b).dot(up) * up + (lowest(scene) - lowest(*person)) * up;
  }
  c.offset = shift + o.person_offset * side.normalized();
  c.data = std::move(person);
  return c;
}

void addLayers(viewer::ViewerData& data, const ViewOptions& o, const Model& model, const viewer::Motion& motion,
               const std::shared_ptr<const io::OpenSimModel>& osim) {
  if (osim && (o.muscles || !o.muscle_values.empty())) {
    io::OpenSimMuscleSet set = io::readOpenSimMuscles(o.model.model);
    if (!set.muscles.empty()) {
      const muscles::MusclePaths paths(osim, std::move(set));
      std::optional<io::MotTable> values;
      if (!o.muscle_values.empty()) values = io::readMot(o.muscle_values);
      viewer::addMuscles(data, paths, motion, values ? &*values : nullptr, o.muscle_values);
    } else if (!o.muscle_values.empty()) {
      throw InvalidArgument("--muscle-values: model " + o.model.model + " has no muscles");
    }
  } else if (!o.muscle_values.empty()) {
    throw InvalidArgument("--muscle-values needs an OpenSim model (--model X.osim) with muscles");
  }
  if (!o.markers.empty()) {
    const bool y_up = model.up().y() > 0.5;
    viewer::addMarkers(data, model, motion, io::readMarkerTrial(o.markers, y_up));
  }
  if (!o.loads.empty()) viewer::addForces(data, model, motion, io::readExternalLoads(o.loads));
  viewer::addBody(data, model, motion);
}

std::string stillUrl(const std::string& dir, int frame, const std::string& layers) {
  // The path percent-encoded where a URL would misread it (spaces, '#', '?', '%').
  std::string url = "file://";
  for (const char c : std::filesystem::absolute(std::filesystem::path(dir) / "index.html").string()) {
    if (c == ' ' || c == '#' || c == '?' || c == '%')
      url += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      url += c;
  }
  url += "?clean=1&frame=" + std::to_string(frame);
  if (!layers.empty()) url += "&layers=" + layers;
  return url;
}

}  // namespace

ViewResult runView(const ViewOptions& o, const Reporter& reporter, const Model* given_model,
                   const io::JointTrajectory* given_result) {
  const auto start = std::chrono::steady_clock::now();
  if (!viewer::bundled())
    throw InvalidArgument(
        "the browser viewer was not built into this kinetrack: install nodejs and npm (scripts/setup.sh), "
        "configure with -DKINETRACK_VIEWER=ON (the demo build turns it off) and rebuild (docs/viewer.md)");
  if (o.out.empty()) throw InvalidArgument("--out: empty directory name");
  if (!o.person.empty() && o.input.empty()) throw InvalidArgument("--person needs --input (the capture to track)");
  if (o.width < 16 || o.height < 16 || o.width > 8192 || o.height > 8192)
    throw InvalidArgument("--size: " + std::to_string(o.width) + "x" + std::to_string(o.height) +
                          " is out of range (16 to 8192 pixels a side)");
  const int steps = 5 + (o.png_time ? 1 : 0);
  reporter.report(0, steps, "model");
  std::optional<Model> loaded;
  if (given_model == nullptr) loaded = loadModel(o.model, reporter).model;
  const Model& model = given_model != nullptr ? *given_model : *loaded;
  reporter.report(1, steps, "result");
  // An OpenSim model as OpenSim reads it (its coordinates, couplers, muscles), read once for a .mot
  // result and the muscles.
  std::shared_ptr<const io::OpenSimModel> osim;
  if (hasSuffix(o.model.model, ".osim"))
    osim = std::make_shared<const io::OpenSimModel>(io::readOpenSimModel(o.model.model));
  const viewer::Motion motion =
      given_result != nullptr ? viewer::motionOf(*given_result, model) : readMotion(o, model, osim.get());
  ViewResult r;
  r.model_name = model.name();
  reporter.report(2, steps, o.input.empty() ? "forward kinematics" : "input and forward kinematics");
  if (o.input.empty()) {
    r.data = viewer::buildViewerData(model, motion, nullptr, nullptr, o.mesh_detail);
  } else {
    track::CaptureOptions co;
    co.units = io::parseBvhUnits(o.units);
    co.rate = o.rate;
    const track::Capture capture = track::loadCapture(o.input, co);
    const track::Retargeting plan = planOn(model, capture, o);
    r.data = viewer::buildViewerData(model, motion, &capture, &plan, o.mesh_detail);
    if (!o.person.empty()) r.data.companions.push_back(personOf(o, model, capture, &r.data));
  }
  reporter.report(3, steps, "layers");
  addLayers(r.data, o, model, motion, osim);
  reporter.report(4, steps, "write");
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
    throw ParseError(o.out, 0, "--out exists and is not a directory");
  fs::create_directories(o.out, ec);
  if (ec || !fs::is_directory(o.out, ec)) throw ParseError(o.out, 0, "cannot create output directory: " + ec.message());
  viewer::writeViewerDirectory(o.out, r.data);
  r.data_bytes = fs::file_size(fs::path(o.out) / "data.js", ec);
  r.mesh_bytes = fs::file_size(fs::path(o.out) / "meshes.js", ec);
  if (o.png_time) {
    reporter.report(5, steps, "still (headless chromium)");
    const std::vector<double>& T = r.data.times;
    if (T.empty()) throw InvalidArgument("--png: the result has no frames");
    int best = 0;
    for (int f = 1; f < static_cast<int>(T.size()); ++f)
      if (std::abs(T[static_cast<std::size_t>(f)] - *o.png_time) <
          std::abs(T[static_cast<std::size_t>(best)] - *o.png_time))
        best = f;
    r.png_frame = best;
    r.png = !o.png_file.empty() ? o.png_file : (fs::path(o.out) / fmt::format("frame_{}.png", best)).string();
    const auto shot_start = std::chrono::steady_clock::now();
    detail::Screenshot shot;
    shot.url = stillUrl(o.out, best, o.layers);
    shot.png = r.png;
    shot.width = o.width;
    shot.height = o.height;
    detail::screenshot(shot);
    r.png_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - shot_start).count();
  }
  reporter.report(steps, steps);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string summaryText(const ViewResult& r, const ViewOptions& o) {
  const viewer::ViewerData& data = r.data;
  const viewer::ViewerGeometry& g = data.geometry;
  std::vector<std::vector<std::string>> rows = {
      {"model", r.model_name},
      {"links", std::to_string(data.numLinks())},
      {"frames", std::to_string(data.numFrames())},
      {"geometry",
       g.geoms.empty()
           ? (g.notes.empty() ? std::string("none (drawn as a skeleton)")
                              : fmt::format("{} meshes not found: drawn as a skeleton", g.notes.size()))
           : fmt::format("{} shapes, {} meshes, {} triangles{}", g.geoms.size(), g.meshes.size(), g.triangles(),
                         g.notes.empty() ? "" : fmt::format(", {} not found", g.notes.size()))},
      {"input", data.input.empty() ? "none" : data.input},
  };
  for (std::size_t i = 0; i < std::min<std::size_t>(g.notes.size(), 3); ++i) rows.push_back({"  note", g.notes[i]});
  if (g.notes.size() > 3)
    rows.push_back({"  note", fmt::format("… and {} more meshes not found (listed in meshes.js; the skeleton shows "
                                          "their links)",
                                          g.notes.size() - 3)});
  for (const auto& c : data.companions) rows.push_back({"beside", c.label});
  if (!data.errors.empty()) {
    double mean = 0.0;
    for (const double e : data.frame_error) mean += e;
    mean /= std::max(1, data.numFrames());
    rows.push_back({"target error", fmt::format("mean {:.3g}, p95 {:.3g}, max {:.3g} {}", mean, data.error_p95,
                                                data.error_max, data.error_unit)});
  }
  if (!data.muscles.empty()) {
    const auto& m = data.muscles;
    rows.push_back(
        {"muscles",
         fmt::format("{} paths{}", m.names.size(),
                     m.value_name.empty() ? std::string()
                                          : fmt::format(", coloured by {} ({})", m.value_name,
                                                        std::filesystem::path(m.value_source).filename().string()))});
    if (!m.not_muscles.empty())
      rows.push_back(
          {"  note", fmt::format("{} column(s) of {} name no muscle and are not drawn: {}{}", m.not_muscles.size(),
                                 std::filesystem::path(m.value_source).filename().string(), m.not_muscles.front(),
                                 m.not_muscles.size() > 1 ? ", …" : "")});
  }
  if (!data.markers.empty())
    rows.push_back({"markers", fmt::format("{} measured, {} on the model, error RMS {:.1f} mm, max {:.1f} mm",
                                           data.markers.names.size(), data.markers.matched,
                                           data.markers.rms_error * 1e3, data.markers.max_error * 1e3)});
  if (!data.forces.empty())
    rows.push_back(
        {"forces", fmt::format("{} ({}), largest {:.0f} N", data.forces.names.size(),
                               std::filesystem::path(data.forces.source).filename().string(), data.forces.max_force)});
  if (!data.body.feet.empty())
    rows.push_back({"contact", fmt::format("{} feet: {}", data.body.feet.size(), data.body.contact_rule)});
  const double minutes = data.numFrames() > 1 ? (data.times.back() - data.times.front()) / 60.0 : 0.0;
  const double mib = static_cast<double>(r.data_bytes) / (1024.0 * 1024.0);
  rows.push_back({"data.js", minutes > 0.0
                                 ? fmt::format("{:.2f} MiB ({:.2f} MiB per minute of motion)", mib, mib / minutes)
                                 : fmt::format("{:.2f} MiB", mib)});
  rows.push_back({"meshes.js", fmt::format("{:.2f} MiB", static_cast<double>(r.mesh_bytes) / (1024.0 * 1024.0))});
  if (!r.png.empty())
    rows.push_back({"still", fmt::format("{} (frame {}, {:.1f} s)", r.png, r.png_frame + 1, r.png_seconds)});
  rows.push_back({"time", fmt::format("{:.2f} s", r.seconds)});
  rows.push_back({"open", (std::filesystem::absolute(o.out) / "index.html").string()});
  return textTable(rows);
}

}  // namespace kinetrack::app
