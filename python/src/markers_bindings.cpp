// Marker IK: the per-frame solver (ik::MarkerIk, OpenSim's IK problem) and `kinetrack markers
// ik` on an OpenSim model (track::bindOpenSimIk + solveMarkerTrial, the code the CLI runs).
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/marker_ik_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/opensim_ik.hpp"
#include "options.hpp"
#include "sequence.hpp"

namespace kinetrack::python {
namespace {

static_assert(sizeof(Vector3d) == 3 * sizeof(double), "Vector3d must be three packed doubles");

// (M, 3) C-contiguous float64 rows as M Vector3d (no copy for such an array).
std::span<const Vector3d> markerRows(const Array& a, py::ssize_t row) {
  const py::ssize_t m = a.shape(a.ndim() - 2);
  return {reinterpret_cast<const Vector3d*>(a.data() + row * m * 3), static_cast<std::size_t>(m)};
}

int numMarkers(const ik::MarkerIk& s) { return static_cast<int>(s.tasks().markers().size()); }
int numCoordinateTasks(const ik::MarkerIk& s) { return static_cast<int>(s.tasks().coordinates().size()); }

py::dict solveSequencePy(ik::MarkerIk& s, ArrayLike markers, ArrayLike coordinates) {
  const Array obs = checkedArray(markers, {kAny, numMarkers(s), 3}, "markers (one (3,) position per marker, m)");
  const py::ssize_t n = obs.shape(0), nc = numCoordinateTasks(s);
  Array coords;
  if (nc > 0) coords = checkedArray(coordinates, {n, nc}, "coordinates (one value per coordinate task and frame)");
  SequenceOutput out(n, nq(s.model()));
  py::array_t<double> rms(n), worst(n);
  {
    py::gil_scoped_release release;
    for (py::ssize_t k = 0; k < n; ++k) {
      const std::span<const double> c =
          nc > 0 ? std::span<const double>(coords.data() + k * nc, static_cast<std::size_t>(nc))
                 : std::span<const double>();
      const ik::MarkerIkResult r = s.solve(markerRows(obs, k), c);
      out.write(k, s.state(), r);
      rms.mutable_data()[k] = r.markers_used > 0 ? r.rms_error : std::nan("");
      worst.mutable_data()[k] = r.markers_used > 0 ? r.max_error : std::nan("");
    }
  }
  py::dict d = out.dict();
  d["rms_error"] = rms;
  d["max_error"] = worst;
  return d;
}

// A solved trial as numpy: the configurations and OpenSim's per-frame marker errors.
py::dict trialDict(const Model& model, const track::MarkerTrialResult& result, std::vector<std::string> warnings) {
  const py::ssize_t n = static_cast<py::ssize_t>(result.frames.size());
  py::array_t<double> q({n, py::ssize_t(nq(model))}), times(n), rms(n), worst(n);
  py::array_t<bool> held(n);
  for (py::ssize_t k = 0; k < n; ++k) {
    const track::MarkerFrame& f = result.frames[static_cast<std::size_t>(k)];
    writeConfiguration(result.configurations[static_cast<std::size_t>(k)], q.mutable_data() + k * q.shape(1));
    times.mutable_data()[k] = f.time;
    rms.mutable_data()[k] = f.gap ? std::nan("") : f.rms_error;
    worst.mutable_data()[k] = f.gap ? std::nan("") : f.max_error;
    held.mutable_data()[k] = f.gap;
  }
  return py::dict(py::arg("times") = times, py::arg("q") = q, py::arg("rms_error") = rms, py::arg("max_error") = worst,
                  py::arg("held") = held, py::arg("marker_names") = result.marker_names,
                  py::arg("solve_seconds") = result.solve_seconds, py::arg("warnings") = std::move(warnings));
}

// `kinetrack markers ik` (app::runMarkerIk, the CLI's job): an .osim path (with an optional
// setup), or a model name / kinetrack.Model with a marker set.
py::dict markersIkPy(py::object model, const std::string& markers_path, const std::string& setup_path,
                     std::optional<double> start, std::optional<double> end, const std::string& marker_axes,
                     const std::string& marker_set, const std::string& static_path, std::optional<double> height,
                     std::optional<double> mass, const std::string& vsk, const std::string& out,
                     const std::string& errors, const std::string& summary_json) {
  app::MarkerIkOptions o;
  o.markers = markers_path;
  o.setup = setup_path;
  o.time_start = start.value_or(std::nan(""));
  o.time_end = end.value_or(std::nan(""));
  o.marker_axes = marker_axes;
  o.markerset = marker_set;
  o.static_trial = static_path;
  o.height = height;
  o.mass = mass;
  o.vsk = vsk;
  o.out = out;
  o.errors = errors;
  o.summary_json = summary_json;
  o.setup_output = false;
  std::shared_ptr<const Model> given;
  if (py::isinstance<py::str>(model)) {
    o.model = model.cast<std::string>();
  } else {
    if (!py::isinstance<Model>(model))
      throw py::type_error("model: expected a model path or name, or a kinetrack.Model");
    if (!setup_path.empty()) throw py::value_error("setup needs an OpenSim model (.osim)");
    if (marker_set.empty())
      throw py::value_error(
          "marker_set is required with a kinetrack model (a built-in set, see marker_set_names(), "
          "or a marker-set JSON file)");
    given = std::make_shared<const Model>(model.cast<const Model&>());
  }
  std::vector<std::string> warnings;
  app::Reporter reporter;
  reporter.warning = [&](const std::string& w) { warnings.push_back(w); };
  const app::MarkerIkResult r = released([&] { return app::runMarkerIk(o, reporter, given.get()); });
  py::dict d = trialDict(*r.model, r.trial, std::move(warnings));
  d["model"] = std::const_pointer_cast<Model>(r.model);
  d["columns"] = r.coordinates.columns;
  d["values"] = toNumpy(r.coordinates.values);
  d["summary"] = py::module_::import("json").attr("loads")(app::summaryJson(r, o));
  if (r.calibration)
    d["calibration"] =
        py::dict(py::arg("frames_used") = r.calibration->frames_used, py::arg("rms_before") = r.calibration->rms_before,
                 py::arg("rms_after") = r.calibration->rms_after);
  return d;
}

}  // namespace

void bindMarkerTasks(py::class_<ik::TaskSet>& tasks) {
  using ik::CoordinateTaskId, ik::MarkerTaskId, ik::PostureTaskId, ik::TaskSet;
  // Marker tasks: a marker's id is its row in MarkerIk.solve(markers) (one per marker ever added).
  tasks
      .def(
          "add_marker", [](TaskSet& t, const std::string& frame, double w) { return t.addMarker(frame, w).value; },
          py::arg("frame"), py::arg("weight") = 1.0,
          "A marker on model frame `frame` (a marker frame: Model.with_markers, an .osim's markers), weight w in "
          "Σ w‖m(q) − m̂‖²; returns its id (its row in MarkerIk.solve's markers).")
      .def(
          "remove_marker", [](TaskSet& t, int id) { t.remove(MarkerTaskId(id)); }, py::arg("marker"),
          "Removes a marker task; its row in solve's markers stays (ignored).")
      .def(
          "set_marker_enabled", [](TaskSet& t, int id, bool on) { t.setEnabled(MarkerTaskId(id), on); },
          py::arg("marker"), py::arg("enabled"))
      .def(
          "set_marker_weight", [](TaskSet& t, int id, double w) { t.setWeight(MarkerTaskId(id), w); },
          py::arg("marker"), py::arg("weight"))
      .def(
          "set_measurement",
          [](TaskSet& t, int id, ArrayLike p) { t.setMeasurement(MarkerTaskId(id), toVector3(p, "position")); },
          py::arg("marker"), py::arg("position"),
          "This frame's measured world position (3,) in m; NaN marks the marker missing.")
      .def(
          "marker_frame", [](const TaskSet& t, int id) { return t.model().frameName(t[MarkerTaskId(id)].frame); },
          py::arg("marker"))
      .def(
          "marker_weight", [](const TaskSet& t, int id) { return t[MarkerTaskId(id)].weight; }, py::arg("marker"))
      .def_property_readonly(
          "num_markers", [](const TaskSet& t) { return t.markers().size(); },
          "Marker tasks ever added (removed ones included): the rows of MarkerIk.solve's markers.")
      // Coordinate tasks: a joint pulled towards a value, w (s − ŝ)².
      .def(
          "add_coordinate",
          [](TaskSet& t, const std::string& joint, double w) { return t.addCoordinate(joint, w).value; },
          py::arg("joint"), py::arg("weight") = 1.0,
          "A task pulling joint `joint` towards the value set per frame (off until set), w (s − ŝ)²; returns its "
          "id (its column in MarkerIk.solve's coordinates).")
      .def(
          "remove_coordinate", [](TaskSet& t, int id) { t.remove(CoordinateTaskId(id)); }, py::arg("task"))
      .def(
          "set_coordinate_enabled", [](TaskSet& t, int id, bool on) { t.setEnabled(CoordinateTaskId(id), on); },
          py::arg("task"), py::arg("enabled"))
      .def(
          "set_coordinate_weight", [](TaskSet& t, int id, double w) { t.setWeight(CoordinateTaskId(id), w); },
          py::arg("task"), py::arg("weight"))
      .def(
          "set_coordinate_value",
          [](TaskSet& t, int id, double v) {
            (void)t[CoordinateTaskId(id)];  // an invalid id raises, as the other setters
            t.setValue(CoordinateTaskId(id), v);
          },
          py::arg("task"), py::arg("value"), "This frame's value ŝ (rad or m); NaN switches the task off.")
      .def(
          "coordinate_joint",
          [](const TaskSet& t, int id) { return t.model().jointName(t[CoordinateTaskId(id)].joint); }, py::arg("task"))
      .def(
          "coordinate_weight", [](const TaskSet& t, int id) { return t[CoordinateTaskId(id)].weight; }, py::arg("task"))
      .def_property_readonly(
          "num_coordinates", [](const TaskSet& t) { return t.coordinates().size(); },
          "Coordinate tasks ever added: the columns of MarkerIk.solve's coordinates.")
      .def_property_readonly("num_postures", [](const TaskSet& t) { return t.postures().size(); });
}

void bindMarkers(py::module_& m) {
  py::class_<ik::MarkerIkOptions> opt(m, "MarkerIkOptions", "Options of MarkerIk (OpenSim's accuracy etc.).");
  opt.def_readwrite("accuracy", &ik::MarkerIkOptions::accuracy, "rad or m")
      .def_readwrite("relative_tolerance", &ik::MarkerIkOptions::relative_tolerance)
      .def_readwrite("max_iterations", &ik::MarkerIkOptions::max_iterations)
      .def_readwrite("first_solve_iterations", &ik::MarkerIkOptions::first_solve_iterations)
      .def_readwrite("initial_damping", &ik::MarkerIkOptions::initial_damping)
      .def_readwrite("min_damping", &ik::MarkerIkOptions::min_damping)
      .def_readwrite("max_damping", &ik::MarkerIkOptions::max_damping);
  keywordInit(opt);

  py::class_<ik::MarkerIkResult, ik::Result>(m, "MarkerIkResult", "One marker-IK frame.")
      .def_readonly("rejected_steps", &ik::MarkerIkResult::rejected_steps)
      .def_readonly("initial_cost", &ik::MarkerIkResult::initial_cost)
      .def_readonly("cost", &ik::MarkerIkResult::cost)
      .def_readonly("markers_used", &ik::MarkerIkResult::markers_used)
      .def_readonly("total_squared_error", &ik::MarkerIkResult::total_squared_error, "m²")
      .def_readonly("rms_error", &ik::MarkerIkResult::rms_error, "m")
      .def_readonly("max_error", &ik::MarkerIkResult::max_error, "m")
      .def_readonly("worst_marker", &ik::MarkerIkResult::worst_marker)
      .def_readonly("coupler_violation", &ik::MarkerIkResult::coupler_violation);

  py::class_<ik::MarkerIk>(m, "MarkerIk", R"doc(
Marker-based IK (OpenSim's IK problem): min Σ w_i ‖m_i(q) − m̂_i‖² over the configuration, with
joint bounds, by bounded Gauss-Newton/Levenberg-Marquardt, warm-started frame to frame. Markers are
model frames (Model.with_markers, or the markers of an .osim model).)doc")
      .def(py::init([](std::shared_ptr<Model> model, std::optional<ik::MarkerIkOptions> options) {
             return std::make_unique<ik::MarkerIk>(std::shared_ptr<const Model>(std::move(model)),
                                                   options.value_or(ik::MarkerIkOptions{}));
           }),
           py::arg("model"), py::arg("options") = py::none())
      .def_property_readonly(
          "tasks", [](ik::MarkerIk& s) -> ik::TaskSet& { return s.tasks(); },
          py::return_value_policy::reference_internal,
          "The solver's TaskSet: marker, coordinate and posture tasks (add, remove, re-weigh, set values).")
      // Shorthands of tasks (add_marker, add_coordinate, set_marker_weight) and bounds().
      .def(
          "add_marker",
          [](ik::MarkerIk& s, const std::string& frame, double w) { return s.tasks().addMarker(frame, w).value; },
          py::arg("frame"), py::arg("weight") = 1.0, "A marker on a model frame; returns its index (column of solve).")
      .def(
          "add_coordinate_task",
          [](ik::MarkerIk& s, const std::string& joint, double w) { return s.tasks().addCoordinate(joint, w).value; },
          py::arg("joint"), py::arg("weight") = 1.0)
      .def(
          "set_marker_weight",
          [](ik::MarkerIk& s, int marker, double w) { s.tasks().setWeight(ik::MarkerTaskId(marker), w); },
          py::arg("marker"), py::arg("weight"))
      .def(
          "set_bounds",
          [](ik::MarkerIk& s, ArrayLike lower, ArrayLike upper) {
            const int n = s.model().numJoints();
            s.bounds().set(toVector(lower, n, "lower"), toVector(upper, n, "upper"));
          },
          py::arg("lower"), py::arg("upper"), "Joint bounds (num_joints,) each, ±inf for none.")
      .def(
          "lock", [](ik::MarkerIk& s, const std::string& joint, double v) { s.bounds().lock(joint, v); },
          py::arg("joint"), py::arg("value"))
      .def_property_readonly("num_markers", &numMarkers)
      .def_property_readonly("state", [](const ik::MarkerIk& s) { return configurationArray(s.state()); })
      .def(
          "set_state", [](ik::MarkerIk& s, ArrayLike q) { s.setState(toConfiguration(s.model(), q)); }, py::arg("q"))
      .def(
          "solve",
          [](ik::MarkerIk& s, ArrayLike markers, ArrayLike coordinates) -> ik::MarkerIkResult {
            if (markers.is_none()) {  // the values already in tasks
              if (!coordinates.is_none()) {
                const Array c = checkedArray(coordinates, {numCoordinateTasks(s)}, "coordinates");
                s.tasks().setCoordinateValues(std::span<const double>(c.data(), static_cast<std::size_t>(c.size())));
              }
              py::gil_scoped_release release;
              return s.solve();
            }
            const Array obs = checkedArray(markers, {numMarkers(s), 3}, "markers");
            const int nc = numCoordinateTasks(s);
            const Array c = nc > 0 ? checkedArray(coordinates, {nc}, "coordinates") : Array();
            py::gil_scoped_release release;
            return s.solve(markerRows(obs, 0), nc > 0 ? std::span<const double>(c.data(), static_cast<std::size_t>(nc))
                                                      : std::span<const double>());
          },
          py::arg("markers") = py::none(), py::arg("coordinates") = py::none(),
          "One frame: markers (M, 3) measured world positions in m (NaN: missing), coordinates (C,) values of the "
          "coordinate tasks (NaN: off); markers None: the values set through tasks (set_measurement, "
          "set_coordinate_value, set_posture_values; coordinates, when given, set first). Returns a "
          "MarkerIkResult; the solution is .state.")
      .def("solve_sequence", &solveSequencePy, py::arg("markers"), py::arg("coordinates") = py::none(),
           "Every frame of markers (N, M, 3) [and coordinates (N, C)], warm-started, the GIL released: a dict with "
           "q (N, nq), status (N,), iterations (N,), mnte, limit_violation, rms_error and max_error (N,) in m (NaN "
           "with no marker).")
      .def(
          "solve_trajectories",
          [](ik::MarkerIk& s, const io::MarkerTrajectories& t) {
            // The markers by name, in the solver's order, after checking both use the same axes.
            io::checkSameUp(s.model(), t);
            const int n = t.numFrames(), nm = numMarkers(s);
            py::array_t<double> obs({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(nm), py::ssize_t{3}});
            for (int i = 0; i < nm; ++i) {
              const std::string& name = s.model().frameName(s.tasks().markers()[static_cast<std::size_t>(i)].frame);
              const auto it = std::find(t.names.begin(), t.names.end(), name);
              if (it == t.names.end())
                throw InvalidArgument("markers '" + t.source + "' have no marker '" + name +
                                      "' (a marker of the solver)");
              const int c = static_cast<int>(it - t.names.begin());
              for (int f = 0; f < n; ++f)
                for (int k = 0; k < 3; ++k) obs.mutable_at(f, i, k) = t.position(f, c)[k];
            }
            return solveSequencePy(s, obs, py::none());
          },
          py::arg("trajectories"),
          "solve_sequence on MarkerTrajectories (read_trc, read_c3d): each solver marker taken by name; raises "
          "ValueError when the markers' up axis is not the model's (MarkerTrajectories.with_up converts).")
      .def(
          "marker_error", [](const ik::MarkerIk& s, int i) { return s.markerError(ik::MarkerTaskId(i)); },
          py::arg("marker"), "m, at the last solve")
      .def(
          "model_marker", [](const ik::MarkerIk& s, int i) { return toNumpy(s.modelMarker(ik::MarkerTaskId(i))); },
          py::arg("marker"), "World position (3,) of a marker's model frame at the state.");

  m.def("markers_ik", &markersIkPy, py::arg("model"), py::arg("markers"), py::arg("setup") = "",
        py::arg("start") = py::none(), py::arg("end") = py::none(), py::arg("marker_axes") = "auto",
        py::arg("marker_set") = "", py::arg("static") = "", py::arg("height") = py::none(),
        py::arg("mass") = py::none(), py::arg("vsk") = "", py::arg("out") = "", py::arg("errors") = "",
        py::arg("summary_json") = "",
        R"doc(`kinetrack markers ik` (the same job): marker IK of a TRC or C3D trial (markers), warm-started
frame to frame.

model an OpenSim .osim path: OpenSim's IK problem with an optional Setup_IK.xml (tasks, time range,
accuracy; its output file is not written unless out names it).
model a built-in name, URDF path or kinetrack.Model: marker_set (a built-in name or a JSON file; height in m
rescales a set written for another height; vsk: a Vicon subject file giving height and mass),
optionally calibrated on a static trial first (the dict adds calibration: frames_used, rms_before,
rms_after in m).
out (.mot, or a joint CSV for a non-OpenSim model), errors (.sto), summary_json: the CLI's files.
marker_axes: "auto" (TRC Y up, C3D Z up), "y-up" or "z-up"; start / end: time range (s).
Returns a dict: model (with the marker frames), times (N,), q (N, nq), columns and values (N, C): the
coordinates as the .mot writes them (OpenSim's columns, rotations in degrees), rms_error and
max_error (N,) in m (NaN for a held frame: no marker present), held (N,), marker_names,
solve_seconds, warnings (the reader's notices among them), summary (the --summary-json fields).)doc");
}

}  // namespace kinetrack::python
