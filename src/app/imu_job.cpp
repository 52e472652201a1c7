#include "kinetrack/app/imu_job.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "kinetrack/io/model/opensense_setup.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/orientation_table.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/track/opensim_ik.hpp"

namespace kinetrack::app {

namespace {

constexpr double kDeg = 180.0 / M_PI;

// OpenSim's default name of the calibrated model: "<model>_calibrated.osim" beside it.
std::string calibratedName(const std::string& model) {
  const std::filesystem::path p(model);
  return (p.parent_path() / (p.stem().string() + "_calibrated.osim")).string();
}

}  // namespace

ImuPlaceResult runImuPlace(const ImuPlaceOptions& o, const Reporter& reporter) {
  io::ImuPlacerSetup setup;
  const bool has_setup = !o.setup.empty();
  if (has_setup) setup = io::readImuPlacerSetup(o.setup);
  ImuPlaceResult r;
  r.model_path = !o.model.empty() ? o.model : setup.resolve(setup.model_file);
  r.orientations_path =
      !o.orientations.empty() ? o.orientations : setup.resolve(setup.orientation_file_for_calibration);
  if (r.model_path.empty()) throw InvalidArgument("--model is required (or a setup naming <model_file>)");
  if (r.orientations_path.empty())
    throw InvalidArgument("--orientations is required (or a setup naming <orientation_file_for_calibration>)");
  r.out_path = o.out;
  if (r.out_path.empty() && o.setup_output) {
    if (!has_setup) throw InvalidArgument("--out is required (or a setup)");
    r.out_path =
        !setup.output_model_file.empty() ? setup.resolve(setup.output_model_file) : calibratedName(r.model_path);
  }
  track::ImuPlacementOptions po;
  r.sensor_to_opensim_rotations = o.sensor_to_opensim_rotations.value_or(setup.sensor_to_opensim_rotations);
  po.sensor_to_opensim = io::sensorToOpenSimRotation(r.sensor_to_opensim_rotations);
  po.base_imu = o.base_imu.value_or(setup.base_imu_label);
  po.base_heading_axis = o.base_heading_axis.value_or(setup.base_heading_axis);
  if (!po.base_imu.empty() && po.base_heading_axis.empty())
    throw InvalidArgument("base IMU '" + po.base_imu + "' needs a heading axis (--base-heading-axis x|-x|y|-y|z|-z)");
  po.time = o.time;

  reporter.say(fmt::format("[1/2] reading {} and {}\n", r.model_path, r.orientations_path));
  io::OpenSimModelDocument doc = io::OpenSimModelDocument::read(r.model_path);
  const io::OpenSimModel osim = io::readOpenSimModel(r.model_path);
  for (const std::string& n : osim.notices) reporter.warn(fmt::format("{}: {}", r.model_path, n));
  const io::OrientationTable calibration = io::readImuOrientations(r.orientations_path);
  reporter.say(fmt::format("[2/2] placing {} IMUs on {}\n", calibration.numSensors(), osim.model->name()));
  r.placement = track::placeImus(osim, calibration, po);
  for (const std::string& w : r.placement.warnings) reporter.warn(w);
  doc.setOffsetFrames(r.placement.frames);
  r.model_text = doc.text();
  r.model = io::parseOpenSimModel(r.model_text, r.out_path.empty() ? r.model_path : r.out_path);
  if (!r.out_path.empty()) doc.write(r.out_path);
  return r;
}

std::string summaryText(const ImuPlaceResult& r) {
  const track::ImuPlacement& p = r.placement;
  std::string x =
      fmt::format("IMU placement on {} from {} (t = {:.3f} s)\n", r.model.model->name(), r.orientations_path, p.time);
  x += fmt::format("  {:<22} {:+.1f}° about the vertical\n", "heading correction", p.heading_correction * kDeg);
  x += fmt::format("  {:<22} {:<10} {}\n", "IMU", "body", "orientation in the body (X-Y-Z, deg)");
  for (const io::OpenSimOffsetFrame& f : p.frames) {
    const Vector3d a = so3::toBodyXyz(f.X_BF.R) * kDeg;
    x += fmt::format("  {:<22} {:<10} {:+7.1f} {:+7.1f} {:+7.1f}\n", f.name, f.body, a.x(), a.y(), a.z());
  }
  if (!r.out_path.empty()) x += fmt::format("wrote {} ({} IMU frames)\n", r.out_path, p.frames.size());
  return x;
}

ImuIkResult runImuIk(const ImuIkOptions& o, const Reporter& reporter, const io::OpenSimModel* loaded) {
  const auto wall0 = std::chrono::steady_clock::now();
  io::ImuIkSetup setup;
  const bool has_setup = !o.setup.empty();
  if (has_setup) setup = io::readImuIkSetup(o.setup);
  ImuIkResult r;
  r.model_path = loaded != nullptr ? loaded->source : !o.model.empty() ? o.model : setup.resolve(setup.model_file);
  r.orientations_path = !o.orientations.empty() ? o.orientations : setup.resolve(setup.orientations_file);
  if (r.model_path.empty() && loaded == nullptr)
    throw InvalidArgument(
        "--model is required (the calibrated model of `kinetrack imu place`, or a setup naming "
        "<model_file>)");
  if (r.orientations_path.empty())
    throw InvalidArgument("--orientations is required (or a setup naming <orientations_file>)");
  r.out_path = o.out;
  if (r.out_path.empty() && o.setup_output && has_setup && !setup.output_motion_file.empty()) {
    const std::string dir = setup.results_directory.empty() ? setup.directory : setup.resolve(setup.results_directory);
    r.out_path = std::filesystem::path(setup.output_motion_file).is_absolute() || dir.empty()
                     ? setup.output_motion_file
                     : (std::filesystem::path(dir) / setup.output_motion_file).string();
  }
  if (r.out_path.empty() && o.setup_output)
    throw InvalidArgument("--out is required (or a setup naming <output_motion_file>)");

  reporter.say(fmt::format("[1/3] reading {} and {}\n", r.model_path, r.orientations_path));
  std::optional<io::OpenSimModel> read;
  if (loaded == nullptr) {
    read = io::readOpenSimModel(r.model_path);
    for (const std::string& n : read->notices) reporter.warn(fmt::format("{}: {}", r.model_path, n));
  }
  const io::OpenSimModel& osim = loaded != nullptr ? *loaded : *read;
  const io::OrientationTable table = io::readImuOrientations(r.orientations_path);

  std::vector<std::pair<std::string, double>> weights;
  for (const io::ImuWeightSpec& w : setup.orientation_weights) weights.emplace_back(w.name, w.weight);
  weights.insert(weights.end(), o.weights.begin(), o.weights.end());
  track::ImuIkSpec spec = track::imuIkSpec(osim, table.names, weights);
  spec.data_rotation =
      io::sensorToOpenSimRotation(o.sensor_to_opensim_rotations.value_or(setup.sensor_to_opensim_rotations));
  spec.options.accuracy = o.accuracy.value_or(has_setup ? setup.accuracy : 1e-6);
  if (!(spec.options.accuracy > 0.0) || !std::isfinite(spec.options.accuracy))
    throw InvalidArgument("--accuracy must be a positive number");
  if (has_setup && std::isfinite(setup.constraint_weight))
    for (subject::MarkerModel::Coupler& c : spec.base.couplers) c.weight = setup.constraint_weight;
  for (const std::string& name : table.names)
    if (!osim.model->findFrame(name))
      reporter.warn(fmt::format("'{}' of {} is not a frame of {}: not tracked (place it first: kinetrack imu place)",
                                name, r.orientations_path, r.model_path));

  track::ImuTrialOptions opt;
  opt.time_start = std::isnan(o.time_start) ? (has_setup ? setup.time_start : -INFINITY) : o.time_start;
  opt.time_end = std::isnan(o.time_end) ? (has_setup ? setup.time_end : INFINITY) : o.time_end;
  opt.progress = [&](int done, int total) { reporter.report(done, total); };
  reporter.say(fmt::format("[2/3] tracking {} IMUs on {} ({} coordinates), accuracy {:g}\n", spec.sensors.size(),
                           osim.model->name(), osim.coordinates.size(), spec.options.accuracy));
  r.trial = track::solveImuTrial(spec, table, opt);
  r.model = osim.model;
  r.coordinates = track::openSimCoordinates(osim, r.trial.times(), r.trial.configurations);
  if (hasSuffix(r.out_path, ".csv")) {
    io::JointCsvWriter w(*osim.model, r.out_path);
    for (std::size_t k = 0; k < r.trial.frames.size(); ++k)
      w.write(r.trial.frames[k].time, r.trial.configurations[k], r.trial.frames[k].gap);
    w.commit();
  } else if (!r.out_path.empty()) {
    io::writeMot(r.coordinates, r.out_path);
  }
  if (!o.errors.empty()) io::writeMot(track::orientationErrorTable(r.trial), o.errors);

  // Summary.
  const track::ImuTrialResult& t = r.trial;
  ImuIkSummary& s = r.summary;
  const std::size_t ns = t.sensor_names.size();
  s.frames = static_cast<int>(t.frames.size());
  s.sensors = static_cast<int>(ns);
  s.coordinates = static_cast<int>(osim.coordinates.size());
  s.gaps = t.gaps();
  std::vector<double> rms, us, iters, sum(ns, 0.0), count(ns, 0.0);
  double all = 0.0, n_all = 0.0;
  int worst_frame = -1, worst_sensor = -1;
  for (std::size_t k = 0; k < t.frames.size(); ++k) {
    const track::ImuFrame& f = t.frames[k];
    if (f.sensors_missing > 0) ++s.frames_with_missing;
    if (f.status == ik::Status::Failed) ++s.failed_frames;
    if (f.gap) continue;
    rms.push_back(f.rms_error * kDeg);
    us.push_back(f.solve_microseconds);
    iters.push_back(f.iterations);
    for (std::size_t i = 0; i < ns; ++i) {
      const double e = t.errors[k * ns + i];
      if (std::isnan(e)) continue;
      sum[i] += e * e, count[i] += 1, all += e * e, n_all += 1;
      if (e * kDeg > s.error_max_deg)
        s.error_max_deg = e * kDeg, worst_frame = static_cast<int>(k), worst_sensor = static_cast<int>(i);
    }
  }
  s.error_rms_deg = n_all > 0 ? std::sqrt(all / n_all) * kDeg : 0.0;
  for (std::size_t i = 0; i < ns; ++i)
    s.sensor_rms_deg.push_back(count[i] > 0 ? std::sqrt(sum[i] / count[i]) * kDeg : NAN);
  if (worst_frame >= 0) {
    s.worst_time = t.frames[static_cast<std::size_t>(worst_frame)].time;
    s.worst_sensor = t.sensor_names[static_cast<std::size_t>(worst_sensor)];
  }
  const metrics::Summary srms = metrics::summarize(rms), sus = metrics::summarize(us), sit = metrics::summarize(iters);
  s.frame_rms_median_deg = srms.median;
  s.frame_rms_p95_deg = srms.p95;
  s.solve_us_median = sus.median;
  s.solve_us_p95 = sus.p95;
  s.iterations_median = sit.median;
  s.frames_per_second = t.solve_seconds > 0.0 ? static_cast<double>(s.frames - s.gaps) / t.solve_seconds : 0.0;
  s.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!o.summary_json.empty()) writeTextFile(o.summary_json, summaryJson(r, o));
  return r;
}

std::string summaryText(const ImuIkResult& r) {
  const ImuIkSummary& s = r.summary;
  const track::ImuTrialResult& t = r.trial;
  std::string x = fmt::format("[3/3] IMU IK of {} on {} ({} IMUs, {} coordinates)\n", r.orientations_path,
                              r.model ? r.model->name() : "?", s.sensors, s.coordinates);
  x +=
      fmt::format("  {:<28} {} ({:.3f} … {:.3f} s)\n", "frames", s.frames, t.frames.front().time, t.frames.back().time);
  x += fmt::format("  {:<28} {:.2f} / {:.2f}° (median / p95 over frames); {:.2f}° over all samples\n",
                   "orientation error RMS", s.frame_rms_median_deg, s.frame_rms_p95_deg, s.error_rms_deg);
  x += fmt::format("  {:<28} {:.2f}° ({} at t = {:.3f} s)\n", "largest orientation error", s.error_max_deg,
                   s.worst_sensor, s.worst_time);
  std::string per;
  for (std::size_t i = 0; i < t.sensor_names.size(); ++i)
    per += fmt::format("{}{} {:.1f}°", i ? ", " : "", t.sensor_names[i], s.sensor_rms_deg[i]);
  x += fmt::format("  {:<28} {}\n", "per IMU (RMS)", per);
  x += fmt::format("  {:<28} {} frames with a missing sample, {} held (no sample), {} failed\n", "gaps",
                   s.frames_with_missing, s.gaps, s.failed_frames);
  x += fmt::format(
      "  {:<28} {:.1f} / {:.1f} µs (median / p95), {:.0f} frames/s, {:.0f} Gauss–Newton iterations (median)\n",
      "solve time per frame", s.solve_us_median, s.solve_us_p95, s.frames_per_second, s.iterations_median);
  x += fmt::format("  {:<28} {:.3f} s (reading, solving, writing)\n", "wall time", s.wall_seconds);
  return x;
}

std::string summaryJson(const ImuIkResult& r, const ImuIkOptions& o) {
  const ImuIkSummary& s = r.summary;
  nlohmann::json j;
  j["model"] = r.model_path;
  j["orientations_file"] = r.orientations_path;
  j["setup"] = o.setup;
  j["frames"] = s.frames;
  j["gaps"] = s.gaps;
  j["frames_with_missing"] = s.frames_with_missing;
  j["failed_frames"] = s.failed_frames;
  j["sensors"] = s.sensors;
  j["coordinates"] = s.coordinates;
  j["error_rms_deg"] = s.error_rms_deg;
  j["error_max_deg"] = s.error_max_deg;
  j["worst_sensor"] = s.worst_sensor;
  j["frame_rms_median_deg"] = s.frame_rms_median_deg;
  j["frame_rms_p95_deg"] = s.frame_rms_p95_deg;
  nlohmann::json per = nlohmann::json::object();
  for (std::size_t i = 0; i < r.trial.sensor_names.size(); ++i) per[r.trial.sensor_names[i]] = s.sensor_rms_deg[i];
  j["sensor_rms_deg"] = per;
  j["solve_us_median"] = s.solve_us_median;
  j["solve_us_p95"] = s.solve_us_p95;
  j["iterations_median"] = s.iterations_median;
  j["frames_per_second"] = s.frames_per_second;
  j["wall_seconds"] = s.wall_seconds;
  return j.dump(2) + "\n";
}

std::string wroteLine(const ImuIkResult& r, const ImuIkOptions& o) {
  if (r.out_path.empty()) return o.errors.empty() ? "" : fmt::format("wrote {}\n", o.errors);
  return fmt::format("wrote {} ({} rows){}\n", r.out_path, r.summary.frames,
                     o.errors.empty() ? "" : " and " + o.errors);
}

}  // namespace kinetrack::app
