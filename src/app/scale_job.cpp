#include "kinetrack/app/scale_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/io/model/opensim_scale_setup.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"

namespace kinetrack::app {

namespace {

// Muscle-tendon lengths of every muscle in the default pose, by name.
std::map<std::string, double> defaultPathLengths(const std::string& text, const std::string& source) {
  auto osim = std::make_shared<const io::OpenSimModel>(io::parseOpenSimModel(text, source));
  const muscles::MusclePaths paths(osim, io::parseOpenSimMuscles(text, source));
  muscles::MusclePathData data(paths);
  paths.evaluate(osim->defaultConfiguration(), data, false);
  std::map<std::string, double> out;
  for (int i = 0; i < paths.numMuscles(); ++i)
    out[paths.set().muscles[static_cast<std::size_t>(i)].name] = data.length[i];
  return out;
}

}  // namespace

ScaleResult runScale(const ScaleOptions& o, const Reporter& reporter) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (o.setup.empty()) throw InvalidArgument("--setup is required (an OpenSim Setup_Scale.xml)");
  const io::ScaleSetup setup = io::readScaleSetup(o.setup);
  ScaleResult r;
  r.setup_path = o.setup;
  r.model_path = !o.model.empty() ? o.model : setup.resolve(setup.model_file);
  r.marker_set_path = !o.marker_set.empty() ? o.marker_set : setup.resolve(setup.marker_set_file);
  const std::string scaler_trial = !o.markers.empty() ? o.markers : setup.resolve(setup.scaler_marker_file);
  const std::string placer_trial = !o.markers.empty() ? o.markers : setup.resolve(setup.placer_marker_file);
  r.marker_path = !placer_trial.empty() ? placer_trial : scaler_trial;
  r.out_path = o.out;
  if (r.out_path.empty() && o.setup_outputs) {
    r.out_path = setup.resolve(setup.placer_apply && !setup.output_model_file.empty() ? setup.output_model_file
                                                                                      : setup.scaler_output_model_file);
    if (r.out_path.empty()) r.out_path = setup.resolve(setup.output_model_file);
  }
  // The setup's other outputs only when it also names the model written (no --out): a run told
  // where to write never writes beside the setup as well.
  const bool setup_files = o.setup_outputs && o.out.empty();
  r.static_pose_path = o.static_pose;
  if (r.static_pose_path.empty() && setup_files) r.static_pose_path = setup.resolve(setup.output_motion_file);
  r.scale_file_path = o.scale_file;
  if (r.scale_file_path.empty() && setup_files) r.scale_file_path = setup.resolve(setup.output_scale_file);
  r.scaled_only_path = o.scaled_only;
  if (r.scaled_only_path.empty() && setup_files) r.scaled_only_path = setup.resolve(setup.scaler_output_model_file);
  if (r.model_path.empty()) throw InvalidArgument("--model is required (or a setup naming <model_file>)");
  if (r.out_path.empty() && o.setup_outputs)
    throw InvalidArgument("--out is required (or a setup naming <output_model_file>)");

  // GenericModelMaker: the generic model with the setup's marker set.
  reporter.say(fmt::format("[1/4] reading {}{}\n", r.model_path,
                           r.marker_set_path.empty() ? "" : " with the markers of " + r.marker_set_path));
  io::OpenSimModelDocument doc = io::OpenSimModelDocument::read(r.model_path);
  if (!r.marker_set_path.empty()) doc.setMarkers(io::readOpenSimMarkerSet(r.marker_set_path));
  const std::string generic_text = doc.text();
  const io::OpenSimModel generic = io::parseOpenSimModel(generic_text, r.model_path);
  r.model_name = generic.model->name();
  for (const std::string& n : generic.notices) reporter.warn(fmt::format("{}: {}", r.model_path, n));
  const auto readTrial = [&](const std::string& path) {
    return io::readMarkerTrial(path, true, io::parseMarkerAxes(o.marker_axes));
  };
  std::optional<io::MarkerTrajectories> trial;
  if (!scaler_trial.empty()) trial = readTrial(scaler_trial);

  // ModelScaler.
  std::string scaled_text = generic_text, scaled_only_text;
  if (setup.scaler_apply) {
    r.factors = subject::computeOpenSimScaleFactors(generic, setup, trial ? &*trial : nullptr,
                                                    {.unknown_body_is_error = o.strict});
    for (const std::string& w : r.factors.warnings) reporter.warn(w);
    reporter.say(fmt::format("[2/4] scaling {} bodies ({} measurements over {} frames of {}), subject mass {:g} kg\n",
                             r.factors.bodies.size(), r.factors.measurements.size(), r.factors.frames,
                             scaler_trial.empty() ? "-" : scaler_trial, setup.mass));
    std::vector<std::pair<std::string, Vector3d>> factors;
    for (const subject::BodyScaleFactors& b : r.factors.bodies) factors.emplace_back(b.body, b.factors);
    r.scaling = doc.scale(factors, setup.mass, setup.preserve_mass_distribution);
    scaled_text = doc.text();
    r.scaled = true;
    // Muscle::postScale: fibre and tendon slack lengths × path length after / before.
    try {
      const std::map<std::string, double> before = defaultPathLengths(generic_text, r.model_path);
      const std::map<std::string, double> after = defaultPathLengths(scaled_text, r.model_path);
      for (const auto& [name, l0] : before)
        if (l0 > 0.0 && after.count(name)) r.muscle_ratios.emplace_back(name, after.at(name) / l0);
      doc.scaleMuscleLengths(r.muscle_ratios);
      scaled_text = doc.text();
    } catch (const ParseError& e) {
      r.notices.push_back(std::string("muscle fibre and tendon lengths not rescaled: ") + e.what());
    }
    for (const std::string& n : r.scaling.notices) r.notices.push_back(n);
    scaled_only_text = scaled_text;  // written with the others at the end: an error writes nothing
  } else {
    r.scale_file_path.clear();
    r.scaled_only_path.clear();
    reporter.say("[2/4] the ModelScaler is off (apply false): no scaling\n");
  }

  // MarkerPlacer.
  if (setup.placer_apply) {
    if (placer_trial.empty())
      throw InvalidArgument(
          "the marker placer needs a static trial: --markers or the setup's MarkerPlacer <marker_file>");
    if (placer_trial != scaler_trial || !trial) trial = readTrial(placer_trial);
    const io::OpenSimModel scaled = io::parseOpenSimModel(scaled_text, r.model_path);
    const io::IkSetup ik = setup.ikSetup();
    track::MarkerPlacerOptions po;
    po.time_start = setup.placer_time_start;
    po.time_end = setup.placer_time_end;
    po.max_marker_movement = setup.max_marker_movement;
    reporter.say(fmt::format("[3/4] placing markers: static pose of {} ({} marker tasks, {} coordinate tasks)\n",
                             placer_trial, ik.marker_tasks.size(), ik.coordinate_tasks.size()));
    track::MarkerPlacement placement = track::placeOpenSimMarkers(scaled, &ik, *trial, po);
    for (const std::string& w : placement.warnings) reporter.warn(w);
    std::vector<io::OpenSimMarker> moved;
    for (const track::PlacedMarker& p : placement.markers) {
      if (!p.in_trial || p.fixed) continue;
      io::OpenSimMarker m;
      m.name = p.name;
      m.body = p.body;
      m.location = p.after;
      m.fixed = p.fixed;
      moved.push_back(std::move(m));
    }
    doc.setMarkers(moved);
    scaled_text = doc.text();
    r.placement = std::move(placement);
  } else {
    reporter.say("[3/4] the marker placer is off (apply false)\n");
    r.static_pose_path.clear();
  }
  for (const std::string& n : r.notices) reporter.warn(n);
  r.osim = std::move(scaled_text);
  if (r.scaled && !r.scale_file_path.empty()) io::writeFileAtomically(r.scale_file_path, scaleSetXml(r.factors));
  if (r.scaled && !r.scaled_only_path.empty()) io::writeFileAtomically(r.scaled_only_path, scaled_only_text);
  if (r.placement && !r.static_pose_path.empty()) io::writeMot(r.placement->coordinates, r.static_pose_path);
  if (!r.out_path.empty()) {
    reporter.say(fmt::format("[4/4] writing {}\n", r.out_path));
    io::writeFileAtomically(r.out_path, r.osim);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

std::string scaleSetXml(const subject::OpenSimScaleFactors& factors) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<OpenSimDocument Version=\"40000\">\n";
  x += "\t<ScaleSet name=\"scaleset\">\n\t\t<objects>\n";
  for (const subject::BodyScaleFactors& b : factors.bodies)
    x += fmt::format(
        "\t\t\t<Scale>\n\t\t\t\t<scales>{} {} {}</scales>\n\t\t\t\t<segment>{}</segment>\n"
        "\t\t\t\t<apply>true</apply>\n\t\t\t</Scale>\n",
        b.factors.x(), b.factors.y(), b.factors.z(), b.body);
  return x + "\t\t</objects>\n\t\t<groups />\n\t</ScaleSet>\n</OpenSimDocument>\n";
}

std::string summaryText(const ScaleResult& r) {
  std::string x = fmt::format("scaled {} ({}) with {}\n", r.model_name, r.model_path, r.setup_path);
  std::vector<std::vector<std::string>> rows = {{"body", "x", "y", "z", "markers moved", "largest move (mm)"}};
  for (const subject::BodyScaleFactors& b : r.factors.bodies) {
    int moved = 0;
    double largest = 0.0;
    if (r.placement)
      for (const track::PlacedMarker& p : r.placement->markers)
        if (p.body == b.body && p.moved > 0.0) ++moved, largest = std::max(largest, p.moved);
    rows.push_back({b.body, fmt::format("{:.4f}", b.factors.x()), fmt::format("{:.4f}", b.factors.y()),
                    fmt::format("{:.4f}", b.factors.z()), std::to_string(moved), fmt::format("{:.1f}", largest * 1e3)});
  }
  x += textTable(rows);
  for (const subject::MeasurementFactor& m : r.factors.measurements)
    x += std::isnan(m.factor)
             ? fmt::format("  measurement {:<20} not applied\n", m.name)
             : fmt::format("  measurement {:<20} {:.5f} ({} pairs)\n", m.name, m.factor, m.pairs.size());
  if (r.scaled)
    x += fmt::format("  {:<32} {:.3f} → {:.3f} kg\n", "total mass", r.scaling.mass_before, r.scaling.mass_after);
  if (r.placement)
    x += fmt::format("  {:<32} RMS {:.2f} mm, largest {:.2f} mm ({}), {} frames averaged\n", "static pose marker error",
                     r.placement->rms_error * 1e3, r.placement->max_error * 1e3, r.placement->worst_marker,
                     r.placement->frames);
  if (!r.out_path.empty()) x += fmt::format("wrote {}", r.out_path);
  if (!r.static_pose_path.empty()) x += fmt::format(" and {}", r.static_pose_path);
  if (!r.scale_file_path.empty()) x += fmt::format(" and {}", r.scale_file_path);
  if (!r.scaled_only_path.empty()) x += fmt::format(" and {}", r.scaled_only_path);
  if (!r.out_path.empty()) x += "\n";
  return x;
}

}  // namespace kinetrack::app
