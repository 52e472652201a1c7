#include "kinetrack/track/imu_tracking.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::track {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

// Column and sign of a heading axis ("x" … "-z").
std::pair<int, double> headingAxis(const std::string& axis) {
  const bool negative = axis.starts_with("-");
  const std::string a = negative ? axis.substr(1) : axis;
  if (a == "x") return {0, negative ? -1.0 : 1.0};
  if (a == "y") return {1, negative ? -1.0 : 1.0};
  if (a == "z") return {2, negative ? -1.0 : 1.0};
  throw InvalidArgument("IMU placement: base heading axis '" + axis + "' is not one of x, -x, y, -y, z, -z");
}

// The row of `table` nearest `time` (NaN: the first).
int rowAt(const io::OrientationTable& table, double time) {
  if (std::isnan(time)) return 0;
  const auto it = std::lower_bound(table.times.begin(), table.times.end(), time);
  int row = static_cast<int>(it - table.times.begin());
  if (row >= table.numFrames()) return table.numFrames() - 1;
  if (row > 0 &&
      time - table.times[static_cast<std::size_t>(row - 1)] < table.times[static_cast<std::size_t>(row)] - time)
    --row;
  return row;
}

}  // namespace

std::string imuBody(const std::string& column) {
  constexpr std::string_view suffix = "_imu";
  if (column.size() <= suffix.size() || !column.ends_with(suffix)) return {};
  return column.substr(0, column.size() - suffix.size());
}

ImuPlacement placeImus(const io::OpenSimModel& osim, const io::OrientationTable& calibration,
                       const ImuPlacementOptions& options) {
  if (!osim.model) throw InvalidArgument("IMU placement: no model");
  if (!ik::isRotation(options.sensor_to_opensim))
    throw InvalidArgument("IMU placement: sensor_to_opensim is not a rotation");
  if (calibration.numFrames() == 0) throw InvalidArgument("IMU placement: " + calibration.source + " has no sample");
  const Model& m = *osim.model;
  Data d(m);
  framesForwardKinematics(m, d, osim.defaultConfiguration());
  auto bodyRotation = [&](const std::string& body) -> const Matrix3d& {
    return d.frame[static_cast<std::size_t>(m.frameId(body).value)].R;
  };
  auto isBody = [&](const std::string& body) {
    return std::find(osim.bodies.begin(), osim.bodies.end(), body) != osim.bodies.end();
  };

  ImuPlacement out;
  out.row = rowAt(calibration, options.time);
  out.time = calibration.times[static_cast<std::size_t>(out.row)];
  const Vector3d up = m.up();

  // Heading: the rotation about the vertical taking the base IMU's heading axis onto its body's X.
  Matrix3d R_h = Matrix3d::Identity();
  if (!options.base_imu.empty()) {
    const int col = calibration.find(options.base_imu);
    if (col < 0)
      throw InvalidArgument("IMU placement: base IMU '" + options.base_imu + "' is not a column of " +
                            calibration.source + "; its columns: " + listed(calibration.names));
    if (!calibration.isValid(out.row, col))
      throw InvalidArgument("IMU placement: base IMU '" + options.base_imu +
                            "' has no sample at t = " + std::to_string(out.time) + " s in " + calibration.source);
    const std::string body = imuBody(options.base_imu);
    if (!isBody(body))
      throw InvalidArgument("IMU placement: base IMU '" + options.base_imu + "': the model has no body '" + body +
                            "'; its bodies: " + listed(osim.bodies));
    const auto [axis, sign] = headingAxis(options.base_heading_axis);
    const Matrix3d R = options.sensor_to_opensim * calibration.orientation(out.row, col).toRotationMatrix();
    const Vector3d h = sign * R.col(axis), x = bodyRotation(body).col(0);
    const Vector3d hp = h - up * up.dot(h), xp = x - up * up.dot(x);
    if (hp.norm() < 1e-3 || xp.norm() < 1e-3)
      throw InvalidArgument("IMU placement: the heading axis '" + options.base_heading_axis + "' of '" +
                            options.base_imu + "' (or its body's X axis) is vertical: no heading to correct");
    out.heading_correction = std::atan2(up.dot(hp.cross(xp)), hp.dot(xp));
    R_h = Eigen::AngleAxisd(out.heading_correction, up).toRotationMatrix();
  } else if (!options.base_heading_axis.empty()) {
    (void)headingAxis(options.base_heading_axis);  // checked even when unused
  }
  out.data_rotation = R_h * options.sensor_to_opensim;

  for (int i = 0; i < calibration.numSensors(); ++i) {
    const std::string& name = calibration.names[static_cast<std::size_t>(i)];
    const std::string body = imuBody(name);
    if (!isBody(body)) {
      out.warnings.push_back("'" + name + "': the model has no body '" + (body.empty() ? name : body) +
                             "' (an IMU column is named <body>_imu); not placed");
      continue;
    }
    if (!calibration.isValid(out.row, i)) {
      out.warnings.push_back("'" + name + "': no sample at t = " + std::to_string(out.time) + " s; not placed");
      continue;
    }
    const Matrix3d R_GI = out.data_rotation * calibration.orientation(out.row, i).toRotationMatrix();
    io::OpenSimOffsetFrame f;
    f.name = name;
    f.body = body;
    f.X_BF.R = so3::project(bodyRotation(body).transpose() * R_GI);
    // At the body's centre of mass (OpenSense's choice: orientation tracking ignores it).
    const FrameId bf = m.frameId(body);
    const Transform& X_LB = m.framePlacement(bf);
    f.X_BF.p = X_LB.R.transpose() * (m.inertial(m.frameLink(bf)).com - X_LB.p);
    out.frames.push_back(std::move(f));
  }
  if (out.frames.empty())
    throw InvalidArgument("IMU placement: no IMU of " + calibration.source + " is on a body of the model (columns " +
                          listed(calibration.names) + "; bodies " + listed(osim.bodies) + ")");
  return out;
}

// --- tracking -----------------------------------------------------------------------------------

ImuIkSpec imuIkSpec(const io::OpenSimModel& osim, const std::vector<std::string>& columns,
                    const std::vector<std::pair<std::string, double>>& weights) {
  ImuIkSpec spec;
  spec.base = subject::markerModel(osim, {});
  spec.base.markers.clear();
  spec.options.accuracy = 1e-6;
  const Model& m = *osim.model;
  for (const std::string& c : columns)
    if (m.findFrame(c)) spec.sensors.push_back({c, c, 1.0});
  if (spec.sensors.empty()) {
    std::vector<std::string> frames;
    for (const io::OpenSimOffsetFrame& f : osim.offset_frames) frames.push_back(f.name);
    throw InvalidArgument("IMU IK: no IMU column (" + listed(columns) + ") is a frame of " + osim.source +
                          "; its offset frames: " + listed(frames) + " (place the IMUs first: kinetrack imu place)");
  }
  for (const auto& weight : weights) {
    const std::string& name = weight.first;
    const double w = weight.second;
    auto it = std::find_if(spec.sensors.begin(), spec.sensors.end(),
                           [&](const ImuIkSpec::Sensor& s) { return s.name == name; });
    if (it == spec.sensors.end()) {
      std::vector<std::string> names;
      for (const ImuIkSpec::Sensor& s : spec.sensors) names.push_back(s.name);
      throw InvalidArgument("IMU IK: a weight for '" + name +
                            "', which is not a tracked IMU; tracked: " + listed(names));
    }
    if (!(w >= 0.0) || !std::isfinite(w))
      throw InvalidArgument("IMU IK: the weight of '" + name + "' must be finite and ≥ 0");
    it->weight = w;
  }
  return spec;
}

ImuStreamTracker::ImuStreamTracker(const ImuIkSpec& spec)
    : ik_(subject::makeMarkerIk(spec.base, spec.options)), data_rotation_(spec.data_rotation) {
  if (!ik::isRotation(data_rotation_)) throw InvalidArgument("IMU IK: data_rotation is not a rotation");
  for (const ImuIkSpec::Sensor& s : spec.sensors) {
    if (!ik_.model().findFrame(s.frame))
      throw InvalidArgument("IMU IK: sensor '" + s.name + "': model '" + ik_.model().name() + "' has no frame '" +
                            s.frame + "'");
    targets_.push_back(ik_.tasks().addOrientation(s.frame, {s.weight, 0.0}));
    weights_.push_back(s.weight);
  }
}

void ImuStreamTracker::reset(const Configuration& q) { ik_.setState(q); }

ImuFrame ImuStreamTracker::track(double time, std::span<const Matrix3d> orientations) {
  return trackWith(time, orientations.size(), [&](std::size_t i, Matrix3d& R) {
    R = orientations[i];
    if (!R.allFinite()) return false;
    if (!ik::isRotation(R))
      ik::checkRotation(R, "IMU IK: orientation", ik_.tasks().model().frameName(ik_.tasks().frame(targets_[i])));
    return true;
  });
}

ImuFrame ImuStreamTracker::track(double time, std::span<const Eigen::Quaterniond> orientations) {
  return trackWith(time, orientations.size(), [&](std::size_t i, Matrix3d& R) {
    const Eigen::Quaterniond& q = orientations[i];
    if (!q.coeffs().allFinite() || !(q.norm() > 0.5)) return false;
    R = q.normalized().toRotationMatrix();
    return true;
  });
}

template <class Sample>
ImuFrame ImuStreamTracker::trackWith(double time, std::size_t count, const Sample& sample) {
  if (count != targets_.size())
    throw InvalidArgument("IMU IK: expected " + std::to_string(targets_.size()) + " orientations, got " +
                          std::to_string(count));
  const auto start = std::chrono::steady_clock::now();
  int used = 0, missing = 0;
  ik::TaskSet& tasks = ik_.tasks();
  Matrix3d R;
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const bool present = sample(i, R);
    if (present) tasks.setOrientation(targets_[i], data_rotation_ * R);
    tasks.setEnabled(targets_[i], present);
    if (weights_[i] > 0.0) ++(present ? used : missing);
  }
  return finish(time, used, missing, start);
}

ImuFrame ImuStreamTracker::finish(double time, int used, int missing, std::chrono::steady_clock::time_point start) {
  ImuFrame f;
  f.time = time;
  f.sensors_used = used;
  f.sensors_missing = missing;
  if (used == 0) {  // nothing to fit: hold the pose (an explicit gap)
    f.gap = true;
    held_ = true;
    f.status = ik::Status::Converged;
    f.limit_violation = ik_.bounds().violation(ik_.state().joints);
    return f;
  }
  const ik::MarkerIkResult r = ik_.solve();
  f.solve_microseconds = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  f.status = r.status;
  f.iterations = r.iterations;
  f.limit_violation = r.limit_violation;
  f.row_violation = r.coupler_violation;
  f.rms_error = r.orientation_rms_error;
  f.max_error = r.orientation_max_error;
  f.worst_sensor = -1;
  for (std::size_t i = 0; i < targets_.size(); ++i)
    if (targets_[i].value == r.worst_orientation) f.worst_sensor = static_cast<int>(i);
  held_ = false;
  return f;
}

double ImuStreamTracker::error(int sensor) const {
  if (sensor < 0 || sensor >= numSensors())
    throw InvalidArgument("IMU IK: sensor index " + std::to_string(sensor) + " out of range");
  if (held_) return kNaN;
  const TargetId t = targets_[static_cast<std::size_t>(sensor)];
  return ik_.tasks()[t].enabled ? ik_.orientationError(t) : kNaN;
}

int ImuTrialResult::gaps() const {
  return static_cast<int>(std::count_if(frames.begin(), frames.end(), [](const ImuFrame& f) { return f.gap; }));
}

std::vector<double> ImuTrialResult::times() const {
  std::vector<double> t;
  t.reserve(frames.size());
  for (const ImuFrame& f : frames) t.push_back(f.time);
  return t;
}

ImuTrialResult solveImuTrial(const ImuIkSpec& spec, const io::OrientationTable& table, const ImuTrialOptions& options) {
  std::vector<int> column;
  for (const ImuIkSpec::Sensor& s : spec.sensors) {
    const int c = table.find(s.name);
    if (c < 0)
      throw InvalidArgument("IMU IK: sensor '" + s.name + "' is not a column of " + table.source +
                            "; its columns: " + listed(table.names));
    column.push_back(c);
  }
  const double slack = table.data_rate > 0.0 ? 0.25 / table.data_rate : 1e-9;
  std::vector<int> in_range;
  for (int k = 0; k < table.numFrames(); ++k) {
    const double t = table.times[static_cast<std::size_t>(k)];
    if (t >= options.time_start - slack && t <= options.time_end + slack) in_range.push_back(k);
  }
  if (in_range.empty())
    throw InvalidArgument("IMU IK: no frame of " + table.source + " lies in the time range [" +
                          std::to_string(options.time_start) + ", " + std::to_string(options.time_end) + "] s");

  ImuStreamTracker tracker(spec);
  ImuTrialResult out;
  for (const ImuIkSpec::Sensor& s : spec.sensors) out.sensor_names.push_back(s.name);
  const std::size_t ns = spec.sensors.size();
  out.frames.reserve(in_range.size());
  out.configurations.reserve(in_range.size());
  out.errors.reserve(in_range.size() * ns);
  std::vector<Eigen::Quaterniond> sample(ns);
  const int total = static_cast<int>(in_range.size());
  for (int idx = 0; idx < total; ++idx) {
    const int k = in_range[static_cast<std::size_t>(idx)];
    for (std::size_t i = 0; i < ns; ++i) sample[i] = table.orientation(k, column[i]);
    const ImuFrame f = tracker.track(table.times[static_cast<std::size_t>(k)], sample);
    out.solve_seconds += f.solve_microseconds * 1e-6;
    out.frames.push_back(f);
    out.configurations.push_back(tracker.state());
    for (std::size_t i = 0; i < ns; ++i) out.errors.push_back(tracker.error(static_cast<int>(i)));
    if (options.progress) options.progress(idx + 1, total);
  }
  return out;
}

io::MotTable orientationErrorTable(const ImuTrialResult& result) {
  io::MotTable t;
  t.name = "orientationErrors";
  t.in_degrees = false;
  t.columns = result.sensor_names;
  t.times = result.times();
  const auto rows = static_cast<Eigen::Index>(result.frames.size());
  const auto cols = static_cast<Eigen::Index>(result.sensor_names.size());
  t.values.resize(rows, cols);
  for (Eigen::Index k = 0; k < rows; ++k)
    for (Eigen::Index i = 0; i < cols; ++i) t.values(k, i) = result.errors[static_cast<std::size_t>(k * cols + i)];
  return t;
}

}  // namespace kinetrack::track
