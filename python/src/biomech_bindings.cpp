// OpenSim external loads and inverse dynamics (issue 18): the ExternalLoads and ID-setup readers
// and OpenSim's ID pipeline on an .osim model (biomech/opensim_id.hpp). Readers raise
// kinetrack.ParseError (file, line); the work runs with the GIL released.
#include <pybind11/stl.h>

#include <cmath>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/biomech/opensim_id.hpp"

namespace kinetrack::python {

namespace {

py::list forcesOf(const std::vector<io::ExternalForceSpec>& forces) {
  py::list out;
  for (const io::ExternalForceSpec& f : forces)
    out.append(py::dict(
        py::arg("name") = f.name, py::arg("disabled") = f.disabled, py::arg("applied_to_body") = f.applied_to_body,
        py::arg("force_expressed_in_body") = f.force_expressed_in_body,
        py::arg("point_expressed_in_body") = f.point_expressed_in_body,
        py::arg("force_identifier") = f.force_identifier, py::arg("point_identifier") = f.point_identifier,
        py::arg("torque_identifier") = f.torque_identifier, py::arg("line") = f.line));
  return out;
}

}  // namespace

void bindBiomech(py::module_& m) {
  py::class_<io::ExternalLoads, std::shared_ptr<io::ExternalLoads>>(
      m, "ExternalLoads", "An OpenSim ExternalLoads file with its data table (read_external_loads).")
      .def_property_readonly("source", [](const io::ExternalLoads& l) { return l.spec.source; })
      .def_property_readonly("data_source", [](const io::ExternalLoads& l) { return l.data_source; })
      .def_property_readonly(
          "forces", [](const io::ExternalLoads& l) { return forcesOf(l.forces); },
          "The enabled ExternalForce entries as dicts, file order.")
      .def_property_readonly("times", [](const io::ExternalLoads& l) { return doubles(l.data.times); })
      .def(
          "sample",
          [](const io::ExternalLoads& l, double t) {
            std::vector<io::ExternalForceSample> s(l.forces.size());
            l.sample(t, s);
            py::list out;
            for (const io::ExternalForceSample& x : s)
              out.append(py::dict(py::arg("force") = toNumpy(x.force), py::arg("point") = toNumpy(x.point),
                                  py::arg("torque") = toNumpy(x.torque), py::arg("has_point") = x.has_point));
            return out;
          },
          py::arg("t"),
          "Every enabled force at time t (linear interpolation), in the frames the file names: a list of dicts "
          "force (3,), point (3,), torque (3,), has_point. Raises ValueError outside the data's time range.");
  m.def(
      "read_external_loads",
      [](const std::string& path, const std::string& data_file) {
        return std::make_shared<io::ExternalLoads>(released([&] { return io::readExternalLoads(path, data_file); }));
      },
      py::arg("path"), py::arg("data_file") = "",
      "An OpenSim ExternalLoads XML (*_grf.xml) and its data file (the XML's <datafile>, relative to it, unless "
      "data_file is given).");
  m.def(
      "read_id_setup",
      [](const std::string& path) {
        const io::IdSetup s = released([&] { return io::readIdSetup(path); });
        return py::dict(py::arg("name") = s.name, py::arg("model_file") = s.resolve(s.model_file),
                        py::arg("coordinates_file") = s.resolve(s.coordinates_file),
                        py::arg("external_loads_file") = s.resolve(s.external_loads_file),
                        py::arg("time_range") = py::make_tuple(s.time_start, s.time_end),
                        py::arg("lowpass_cutoff_hz") = s.lowpass_cutoff_hz,
                        py::arg("forces_to_exclude") = s.forces_to_exclude);
      },
      py::arg("path"),
      "An OpenSim InverseDynamicsTool setup as a dict (file names resolved against the setup's folder).");
  m.def(
      "opensim_inverse_dynamics",
      [](const std::string& model_path, const std::string& motion_path, const std::string& loads_path,
         const std::string& setup_path, std::optional<double> lowpass_cutoff_hz,
         std::optional<std::pair<double, double>> time_range, std::optional<bool> in_degrees) {
        const biomech::OpenSimIdResult r = released([&] {
          biomech::OpenSimIdOptions o;
          std::string loads_file = loads_path;
          if (!setup_path.empty()) {
            const io::IdSetup s = io::readIdSetup(setup_path);
            o = biomech::OpenSimIdOptions::fromSetup(s);
            if (loads_file.empty() && !s.external_loads_file.empty()) loads_file = s.resolve(s.external_loads_file);
          }
          if (lowpass_cutoff_hz) o.lowpass_cutoff_hz = *lowpass_cutoff_hz;
          if (time_range) {
            o.time_start = time_range->first;
            o.time_end = time_range->second;
          }
          if (in_degrees) o.in_degrees = *in_degrees ? 1 : 0;
          const io::OpenSimModel model = io::readOpenSimModel(model_path);
          const io::MotTable motion = io::readMot(motion_path);
          std::optional<io::ExternalLoads> loads;
          if (!loads_file.empty()) loads = io::readExternalLoads(loads_file);
          return biomech::opensimInverseDynamics(model, motion, loads ? &*loads : nullptr, o, motion_path);
        });
        return py::dict(py::arg("columns") = r.columns, py::arg("times") = doubles(r.times),
                        py::arg("values") = toNumpy(r.values), py::arg("missing_coordinates") = r.missing_coordinates);
      },
      py::arg("model"), py::arg("motion"), py::arg("loads") = "", py::arg("setup") = "",
      py::arg("lowpass_cutoff_hz") = py::none(), py::arg("time_range") = py::none(), py::arg("in_degrees") = py::none(),
      R"doc(Inverse dynamics of an OpenSim model (.osim) on a coordinate file (.mot/.sto) as OpenSim's ID tool does it:
padding, 3rd-order zero-lag Butterworth at the cut-off (setup's, or lowpass_cutoff_hz; negative: none),
quintic splines, RNEA with the external loads (loads, or the setup's external_loads_file). Returns a dict:
columns (<coordinate>_moment / _force, OpenSim's order), times (N,), values (N, C) in N m / N,
missing_coordinates.)doc");
}

}  // namespace kinetrack::python
