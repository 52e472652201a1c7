// Muscles of OpenSim models (docs/muscles.md): muscle-tendon lengths and ∂l/∂q, and whole-motion
// static optimisation / Eq. 13 QP / LP, as `kinetrack muscles` runs them.
#include <pybind11/stl.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "bindings.hpp"
#include "convert.hpp"
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
         double lowpass, double start, double end, int threads) {
        muscles::MuscleTrialOptions o;
        if (threads < 0) throw py::value_error("threads must be >= 0 (0 = one per hardware thread)");
        o.threads = threads;
        if (method == "static-opt")
          o.forces.method = muscles::Method::StaticOptimization;
        else if (method == "qp")
          o.forces.method = muscles::Method::QP;
        else if (method == "lp")
          o.forces.method = muscles::Method::LP;
        else
          throw py::value_error("method must be 'static-opt', 'qp' or 'lp', not '" + method + "'");
        std::string model_file = model, motion_file = motion;
        o.lowpass_hz = lowpass;
        o.time_start = start;
        o.time_end = end;
        if (!setup.empty()) {
          const io::StaticOptimizationSetup s = io::readStaticOptimizationSetup(setup);
          if (model_file.empty()) model_file = s.resolve(s.model_file);
          if (motion_file.empty()) motion_file = s.resolve(s.coordinates_file);
          o.lowpass_hz = s.lowpass_hz;
          o.time_start = s.time_start;
          o.time_end = s.time_end;
          o.forces.use_muscle_physiology = s.use_muscle_physiology;
          for (const std::string& f : s.force_set_files)
            for (const io::OpenSimCoordinateActuator& a : io::readOpenSimActuators(s.resolve(f)))
              o.forces.actuators.push_back(a);
        }
        auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(model_file));
        auto paths = std::make_shared<muscles::MusclePaths>(osim, io::readOpenSimMuscles(model_file));
        const io::MotTable table = io::readMot(motion_file);
        std::string text;
        {
          std::ifstream in(motion_file);
          std::stringstream ss;
          ss << in.rdbuf();
          text = ss.str();
        }
        o.in_degrees = muscles::motInDegrees(text);
        muscles::MuscleTrialResult r;
        {
          py::gil_scoped_release release;
          r = muscles::solveMuscleTrial(paths, table, motion_file, o);
        }
        py::dict d;
        d["times"] = doubles(r.times);
        d["names"] = r.names;
        d["coordinates"] = r.coordinates;
        d["control"] = toNumpy(r.control);
        d["force"] = toNumpy(r.force);
        d["residual"] = toNumpy(r.residual);
        d["feasible"] = std::vector<bool>(r.feasible.begin(), r.feasible.end());
        d["notices"] = r.notices;
        return d;
      },
      py::arg("model") = "", py::arg("motion") = "", py::arg("method") = "static-opt", py::arg("setup") = "",
      py::arg("lowpass") = -1.0, py::arg("start") = -std::numeric_limits<double>::infinity(),
      py::arg("end") = std::numeric_limits<double>::infinity(), py::arg("threads") = 0,
      "Muscle forces over a motion (.mot): method 'static-opt' (OpenSim's, min Σa², Thelen 2003), 'qp' (Eq. 13, "
      "min Σf²) or 'lp' (min Σf). With setup= (an OpenSim AnalyzeTool StaticOptimization setup) the model, motion, "
      "low-pass and time range come from it. The frames are split across `threads` (0 = one per hardware thread; "
      "the result is identical for any number). Returns a dict: times, names (muscles then actuators), coordinates, "
      "control (activations, or forces for qp/lp), force (N), residual (τ − produced, per coordinate), feasible, "
      "notices.");
}

}  // namespace kinetrack::python
