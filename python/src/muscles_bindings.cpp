// Muscles of OpenSim models (docs/muscles.md): muscle-tendon lengths and ∂l/∂q, and whole-motion
// static optimisation / Eq. 13 QP / LP, as `kinetrack muscles` runs them.
#include <pybind11/stl.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/muscles_job.hpp"
#include "kinetrack/muscles/muscle_trial.hpp"

namespace kinetrack::python {
namespace {

/// kinetrack.MusclePaths: an .osim model's muscles; coordinates in OpenSim's order.
struct PyMusclePaths {
  explicit PyMusclePaths(const std::string& path) {
    auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(path));
    paths = std::make_shared<muscles::MusclePaths>(osim, io::readOpenSimMuscles(path));
    data = std::make_unique<muscles::MusclePathData>(*paths);
  }
  std::shared_ptr<muscles::MusclePaths> paths;
  std::unique_ptr<muscles::MusclePathData> data;

  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const io::OpenSimMuscle& m : paths->set().muscles) n.push_back(m.name);
    return n;
  }
  [[nodiscard]] std::vector<std::string> coordinates() const {
    std::vector<std::string> n;
    for (const io::OpenSimCoordinate& c : paths->osim().coordinates) n.push_back(c.name);
    return n;
  }
  py::tuple evaluate(py::handle values) {
    const io::OpenSimModel& o = paths->osim();
    const auto nc = static_cast<py::ssize_t>(o.coordinates.size());
    const VectorXd v = toVector(values, nc, "coordinates");
    Configuration q = o.defaultConfiguration();
    for (py::ssize_t k = 0; k < nc; ++k) q.joints[o.coordinates[k].joint.value] = v(k);
    paths->evaluate(q, *data, true);
    MatrixXd J(paths->numMuscles(), nc);
    for (py::ssize_t k = 0; k < nc; ++k)
      J.col(k) = data->jacobian.col(paths->model().nvBase() + o.coordinates[k].joint.value);
    return py::make_tuple(toNumpy(data->length), toNumpy(J));
  }
};

}  // namespace

void bindMuscles(py::module_& m) {
  py::class_<PyMusclePaths>(m, "MusclePaths",
                            "Muscle paths of an OpenSim model (.osim): via points, conditional and moving points, "
                            "cylinder / sphere / ellipsoid wrapping. Raises kinetrack.ParseError naming the file and "
                            "line for bad input.")
      .def(py::init<const std::string&>(), py::arg("osim"))
      .def_property_readonly("names", &PyMusclePaths::names, "muscle names, file order")
      .def_property_readonly("coordinates", &PyMusclePaths::coordinates, "coordinate names, OpenSim order")
      .def("evaluate", &PyMusclePaths::evaluate, py::arg("coordinates"),
           "(lengths (n,) m, J (n, n_coordinates) = ∂l/∂q) at the coordinate values (rad or m, OpenSim order); "
           "moment arms are −J.");
  m.def(
      "muscle_forces",
      [](const std::string& model, const std::string& motion, const std::string& method, const std::string& setup,
         std::optional<double> lowpass, std::optional<double> start, std::optional<double> end, int threads,
         const std::string& loads, const std::vector<std::string>& force_sets,
         const std::map<std::string, double>& reserves, const std::string& out, const std::string& reference) {
        app::MusclesOptions o;
        o.method = app::parseMuscleMethod(method);
        o.model = model;
        o.motion = motion;
        o.setup = setup;
        o.lowpass = lowpass;
        o.start = start;
        o.end = end;
        o.threads = threads;
        o.loads = loads;
        o.force_sets = force_sets;
        for (const auto& [coordinate, force] : reserves) o.reserves.emplace_back(coordinate, force);
        o.out = out;
        o.reference = reference;
        const app::MusclesResult result = released([&] { return app::runMuscles(o); });
        const muscles::MuscleTrialResult& r = result.trial;
        py::dict d;
        d["times"] = doubles(r.times);
        d["names"] = r.names;
        d["coordinates"] = r.coordinates;
        d["control"] = toNumpy(r.control);
        d["activation"] = toNumpy(result.activation.values);
        d["force"] = toNumpy(r.force);
        d["residual"] = toNumpy(r.residual);
        d["feasible"] = std::vector<bool>(r.feasible.begin(), r.feasible.end());
        d["notices"] = r.notices;
        d["summary"] = result.text;
        if (!reference.empty()) d["reference_rms"] = result.reference_rms;
        return d;
      },
      py::arg("model") = "", py::arg("motion") = "", py::arg("method") = "static-opt", py::arg("setup") = "",
      py::arg("lowpass") = py::none(), py::arg("start") = py::none(), py::arg("end") = py::none(),
      py::arg("threads") = 0, py::kw_only(), py::arg("loads") = "", py::arg("force_sets") = std::vector<std::string>{},
      py::arg("reserves") = std::map<std::string, double>{}, py::arg("out") = "", py::arg("reference") = "",
      R"doc(`kinetrack muscles static-opt|qp|lp` (the same job): muscle forces over a motion (.mot): method
'static-opt' (OpenSim's, min Σa², Thelen 2003), 'qp' (Eq. 13, min Σf²) or 'lp' (min Σf). With setup= (an
OpenSim AnalyzeTool StaticOptimization setup) the model, motion, loads, force sets, low-pass and time range
come from it (arguments given here override them). loads: ExternalLoads (OpenSim's ID gives τ);
force_sets: CoordinateActuator files; reserves: {coordinate: optimal force}. The frames are split across
`threads` (0 = one per hardware thread; the result is identical for any number). out: the directory the
CLI writes activation.sto, force.sto and residuals.sto to; reference: an activation .sto to compare with.
Returns a dict: times, names (muscles then actuators), coordinates, control (activations, or forces for
qp/lp), activation (forces over F_max for qp/lp), force (N), residual (τ − produced, per coordinate),
feasible, notices, summary (the CLI's table), reference_rms (per name, with reference).)doc");
}

}  // namespace kinetrack::python
