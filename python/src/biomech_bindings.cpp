// OpenSim external loads and inverse dynamics (issue 18): the ExternalLoads and ID-setup readers
// and OpenSim's ID pipeline on an .osim model (biomech/opensim_id.hpp). Readers raise
// kinetrack.ParseError (file, line); the work runs with the GIL released.
#include <pybind11/stl.h>

#include <cmath>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/inverse_dynamics_job.hpp"
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
      [](const std::string& model_path, py::object motion, const std::string& loads_path, const std::string& setup_path,
         std::optional<double> lowpass_cutoff_hz, std::optional<std::pair<double, double>> time_range,
         std::optional<bool> in_degrees, const std::string& out, const std::string& reference,
         const std::string& com_offset) {
        app::InverseDynamicsOptions o;
        o.model.model = model_path;
        o.loads = loads_path;
        o.setup = setup_path;
        o.cutoff = lowpass_cutoff_hz;
        if (time_range) o.time_start = time_range->first, o.time_end = time_range->second;
        if (in_degrees) o.degrees = *in_degrees ? "yes" : "no";
        o.out = out;
        o.reference = reference;
        o.com_offset = com_offset;
        app::InverseDynamicsMotion given;
        if (py::isinstance<py::str>(motion)) {
          o.motion = motion.cast<std::string>();
        } else {
          // A coordinate table in memory: markers_ik()'s result (columns, times, values in degrees).
          io::MotTable t;
          t.columns = motion["columns"].cast<std::vector<std::string>>();
          t.times = motion["times"].cast<std::vector<double>>();
          const Array v = checkedArray(
              motion["values"], {static_cast<py::ssize_t>(t.times.size()), static_cast<py::ssize_t>(t.columns.size())},
              "values (N, C)");
          t.values = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
              v.data(), v.shape(0), v.shape(1));
          t.in_degrees = motion.contains("in_degrees") ? motion["in_degrees"].cast<bool>() : true;
          given.coordinates = std::move(t);
        }
        std::vector<std::string> warnings;
        app::Reporter reporter;
        reporter.warning = [&](const std::string& w) { warnings.push_back(w); };
        const app::InverseDynamicsResult r = released([&] { return app::runInverseDynamics(o, reporter, given); });
        py::dict d(py::arg("columns") = r.columns, py::arg("times") = doubles(r.times),
                   py::arg("values") = toNumpy(r.values), py::arg("missing_coordinates") = r.missing_coordinates,
                   py::arg("warnings") = warnings, py::arg("summary") = r.text);
        if (!r.comparison.empty()) {
          py::dict cmp;
          for (const biomech::ColumnComparison& c : r.comparison)
            cmp[py::str(c.column)] =
                py::dict(py::arg("rms") = c.rms, py::arg("max_abs") = c.max_abs,
                         py::arg("reference_range") = c.reference_range, py::arg("frames") = c.frames);
          d["comparison"] = cmp;
        }
        return d;
      },
      py::arg("model"), py::arg("motion"), py::arg("loads") = "", py::arg("setup") = "",
      py::arg("lowpass_cutoff_hz") = py::none(), py::arg("time_range") = py::none(), py::arg("in_degrees") = py::none(),
      py::kw_only(), py::arg("out") = "", py::arg("reference") = "", py::arg("com_offset") = "",
      R"doc(`kinetrack dynamics id` on an OpenSim model (the same job): inverse dynamics of an .osim model on
coordinates as OpenSim's ID tool does it: padding, 3rd-order zero-lag Butterworth at the cut-off
(setup's, or lowpass_cutoff_hz; negative or none: no low-pass, OpenSim's default, warned about when
external loads are applied), quintic splines, RNEA with the external loads (loads, or the setup's
external_loads_file). motion: a .mot/.sto path, or a dict with columns, times and values (N, C)
(markers_ik()'s result; in_degrees True unless the dict says otherwise). out: the .sto the CLI
writes; reference: an ID .sto to compare with; com_offset: "BODY:X,Y,Z". Returns a dict: columns
(<coordinate>_moment / _force, OpenSim's order), times (N,), values (N, C) in N m / N,
missing_coordinates, warnings, summary (the text the CLI prints), comparison (per column, with
reference).)doc");

  m.def(
      "inverse_dynamics",
      [](py::object model, py::object motion, double gravity, const std::string& wrench_file,
         const std::string& wrench_outside, const std::string& derivatives, std::optional<double> cutoff,
         const std::string& out) {
        app::InverseDynamicsOptions o;
        o.gravity = gravity;
        o.wrench_file = wrench_file;
        o.wrench_outside = wrench_outside;
        o.derivatives = derivatives;
        o.cutoff = cutoff;
        o.out = out;
        std::shared_ptr<const Model> given_model;
        if (py::isinstance<py::str>(model))
          o.model.model = model.cast<std::string>();
        else
          given_model = std::make_shared<const Model>(model.cast<const Model&>());
        app::InverseDynamicsMotion given;
        if (py::isinstance<py::str>(motion)) {
          o.motion = motion.cast<std::string>();
        } else {
          // A tracked motion in memory: times (N,) and q (N, nq) rows (a TrackResult, or a dict).
          if (!given_model) throw py::value_error("a motion in memory needs a kinetrack.Model (model=)");
          given.joints = toJointTrajectory(*given_model, motion, "motion");
        }
        const app::InverseDynamicsResult r =
            released([&] { return app::runInverseDynamics(o, {}, given, given_model.get()); });
        py::array_t<bool> valid(static_cast<py::ssize_t>(r.valid.size()));
        for (std::size_t k = 0; k < r.valid.size(); ++k) valid.mutable_data()[k] = r.valid[k] != 0;
        return py::dict(py::arg("columns") = r.columns, py::arg("times") = doubles(r.times),
                        py::arg("values") = toNumpy(r.values), py::arg("valid") = valid, py::arg("summary") = r.text);
      },
      py::arg("model"), py::arg("motion"), py::kw_only(), py::arg("gravity") = 9.80665, py::arg("wrench_file") = "",
      py::arg("wrench_outside") = "error", py::arg("derivatives") = "fd", py::arg("cutoff") = py::none(),
      py::arg("out") = "",
      R"doc(`kinetrack dynamics id` on a URDF or built-in model (the same job): velocities and accelerations
by finite differences (derivatives "fd") or after a zero-lag Butterworth low-pass ("butterworth",
cutoff Hz, default 6), RNEA per frame with the external wrenches of wrench_file (wrench_outside:
"error" or "zero"). model: a kinetrack.Model or a model name/path; motion: a joint CSV path, or a
tracked motion in memory (a TrackResult, or a dict with times (N,) and q (N, nq)) with a Model.
out: the generalised-forces CSV the CLI writes. Returns a dict: columns (base_fx … base_mz for a
floating base, then the joints), times (N,), values (N, nv) in N / N m, valid (N,), summary.)doc");
}

}  // namespace kinetrack::python
