// `kinetrack imu place` and `kinetrack imu ik` (app::runImuPlace, app::runImuIk, the CLI's jobs):
// OpenSense's IMUPlacer and IMU inverse kinematics on an OpenSim model.
#include <pybind11/stl.h>

#include <cmath>
#include <map>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/imu_job.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::python {
namespace {

app::Reporter collecting(std::vector<std::string>& warnings) {
  app::Reporter r;
  r.warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  return r;
}

py::dict imuPlacePy(const std::string& model, const std::string& setup, const std::string& orientations,
                    const std::string& out, std::optional<std::string> base_imu,
                    std::optional<std::string> base_heading_axis, std::optional<py::object> rotations,
                    std::optional<double> time) {
  app::ImuPlaceOptions o;
  o.model = model;
  o.setup = setup;
  o.orientations = orientations;
  o.out = out;
  o.base_imu = std::move(base_imu);
  o.base_heading_axis = std::move(base_heading_axis);
  if (rotations) o.sensor_to_opensim_rotations = toVector3(*rotations, "rotations");
  if (time) o.time = *time;
  o.setup_output = false;
  std::vector<std::string> warnings;
  const app::ImuPlaceResult r = released([&] { return app::runImuPlace(o, collecting(warnings)); });
  py::dict frames;
  for (const io::OpenSimOffsetFrame& f : r.placement.frames)
    frames[py::str(f.name)] = py::dict(py::arg("body") = f.body, py::arg("rotation") = toNumpy(f.X_BF.R),
                                       py::arg("translation") = toNumpy(f.X_BF.p),
                                       py::arg("orientation") = toNumpy(so3::toBodyXyz(f.X_BF.R)));
  py::dict d;
  d["frames"] = frames;
  d["heading_correction"] = r.placement.heading_correction;
  d["time"] = r.placement.time;
  d["row"] = r.placement.row;
  d["osim"] = r.model_text;
  d["path"] = r.out_path.empty() ? py::object(py::none()) : py::object(py::str(r.out_path));
  d["warnings"] = warnings;
  d["summary"] = app::summaryText(r);
  return d;
}

py::dict imuIkPy(const std::string& model, const std::string& setup, const std::string& orientations,
                 const std::string& out, const std::string& errors, const std::string& osim,
                 std::optional<py::object> rotations, const std::map<std::string, double>& weights,
                 std::optional<double> accuracy, std::optional<double> start, std::optional<double> end) {
  app::ImuIkOptions o;
  o.model = model;
  o.setup = setup;
  o.orientations = orientations;
  o.out = out;
  o.errors = errors;
  o.setup_output = false;
  if (rotations) o.sensor_to_opensim_rotations = toVector3(*rotations, "rotations");
  for (const auto& [name, w] : weights) o.weights.emplace_back(name, w);
  o.accuracy = accuracy;
  if (start) o.time_start = *start;
  if (end) o.time_end = *end;
  std::optional<io::OpenSimModel> loaded;
  if (!osim.empty()) loaded = io::parseOpenSimModel(osim, "<osim text>");
  std::vector<std::string> warnings;
  const app::ImuIkResult r =
      released([&] { return app::runImuIk(o, collecting(warnings), loaded ? &*loaded : nullptr); });
  const track::ImuTrialResult& t = r.trial;
  const auto rows = static_cast<Eigen::Index>(t.frames.size());
  const auto ns = static_cast<Eigen::Index>(t.sensor_names.size());
  Eigen::MatrixXd err(rows, ns);
  std::vector<double> us, rms;
  std::vector<int> iterations;
  std::vector<bool> gap;
  std::vector<std::string> status;
  for (Eigen::Index k = 0; k < rows; ++k) {
    for (Eigen::Index i = 0; i < ns; ++i) err(k, i) = t.errors[static_cast<std::size_t>(k * ns + i)];
    const track::ImuFrame& f = t.frames[static_cast<std::size_t>(k)];
    us.push_back(f.solve_microseconds);
    rms.push_back(f.rms_error);
    iterations.push_back(f.iterations);
    gap.push_back(f.gap);
    status.emplace_back(ik::toString(f.status));
  }
  const app::ImuIkSummary& s = r.summary;
  py::dict summary(py::arg("frames") = s.frames, py::arg("gaps") = s.gaps,
                   py::arg("frames_with_missing") = s.frames_with_missing, py::arg("failed_frames") = s.failed_frames,
                   py::arg("error_rms_deg") = s.error_rms_deg, py::arg("error_max_deg") = s.error_max_deg,
                   py::arg("worst_sensor") = s.worst_sensor, py::arg("solve_us_median") = s.solve_us_median,
                   py::arg("frames_per_second") = s.frames_per_second);
  py::dict d;
  d["columns"] = r.coordinates.columns;
  d["times"] = doubles(r.coordinates.times);
  d["values"] = toNumpy(r.coordinates.values);
  d["sensors"] = t.sensor_names;
  d["errors"] = toNumpy(err);
  d["rms_error"] = doubles(rms);
  d["solve_us"] = doubles(us);
  d["iterations"] = iterations;
  d["gap"] = gap;
  d["status"] = status;
  d["path"] = r.out_path.empty() ? py::object(py::none()) : py::object(py::str(r.out_path));
  d["summary"] = summary;
  d["summary_text"] = app::summaryText(r);
  d["warnings"] = warnings;
  return d;
}

}  // namespace

void bindImu(py::module_& m) {
  m.def("imu_place", &imuPlacePy, py::arg("model") = "", py::arg("setup") = "", py::arg("orientations") = "",
        py::arg("out") = "", py::arg("base_imu") = py::none(), py::arg("base_heading_axis") = py::none(),
        py::arg("rotations") = py::none(), py::arg("time") = py::none(),
        R"doc(`kinetrack imu place` (the same job): OpenSense's IMUPlacer.

Each IMU column "<body>_imu" of the calibration orientations (.sto; default: the setup's
orientation_file_for_calibration) is fixed to its body of the model (.osim, 4.0; default: the
setup's model_file) in its default pose, after the sensor-to-OpenSim rotations and the heading
correction (the base IMU's heading axis turned onto the model's forward X). base_imu,
base_heading_axis ("x", "-x", … "-z"), rotations ((3,) rad, space-fixed X-Y-Z) and time (the
calibration sample, s; default the first) override the setup. The calibrated model is written to
out only when given.

Returns a dict: frames {imu: {body, rotation (3, 3) R_body_imu, translation (3,), orientation (3,)
X-Y-Z angles as written}}, heading_correction (rad), time, row, osim (the calibrated model's
text: pass it to imu_ik), path, warnings, summary.)doc");
  m.def("imu_ik", &imuIkPy, py::arg("model") = "", py::arg("setup") = "", py::arg("orientations") = "",
        py::arg("out") = "", py::arg("errors") = "", py::arg("osim") = "", py::arg("rotations") = py::none(),
        py::arg("weights") = std::map<std::string, double>{}, py::arg("accuracy") = py::none(),
        py::arg("start") = py::none(), py::arg("end") = py::none(),
        R"doc(`kinetrack imu ik` (the same job): OpenSense's IMU inverse kinematics.

Tracks the orientations (.sto; default: the setup's orientations_file) with the calibrated model
(a file, or osim: the text imu_place returned): every frame the pose whose IMU frames best match
the measured orientations (weights {imu: w}, default 1), inside the clamped ranges, locked
coordinates held, couplers exact. rotations, accuracy, start and end override the setup. The
coordinates go to out (.mot, degrees; .csv: the joint CSV) and the errors to errors (.sto, rad)
only when given.

Returns a dict: columns, times, values (frames × coordinates; degrees / m, OpenSim's order),
sensors, errors (frames × sensors, rad; NaN: no sample), rms_error (per frame, rad), solve_us,
iterations, gap, status, path, summary {frames, gaps, error_rms_deg, …}, summary_text,
warnings.)doc");
}

}  // namespace kinetrack::python
