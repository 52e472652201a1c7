// `kinetrack scale` (app::runScale, the CLI's job): OpenSim's Scale tool from a Setup_Scale.xml.
#include <pybind11/stl.h>

#include <cmath>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/scale_job.hpp"

namespace kinetrack::python {
namespace {

py::dict scalePy(const std::string& model, const std::string& setup, const std::string& markers, const std::string& out,
                 const std::string& marker_set, const std::string& static_pose, const std::string& marker_axes,
                 bool strict) {
  app::ScaleOptions o;
  o.model = model;
  o.setup = setup;
  o.markers = markers;
  o.out = out;
  o.marker_set = marker_set;
  o.static_pose = static_pose;
  o.marker_axes = marker_axes;
  o.strict = strict;
  o.setup_outputs = false;
  std::vector<std::string> warnings;
  app::Reporter reporter;
  reporter.warning = [&](const std::string& w) { warnings.push_back(w); };
  const app::ScaleResult r = released([&] { return app::runScale(o, reporter); });
  py::dict factors, measurements, ratios;
  for (const subject::BodyScaleFactors& b : r.factors.bodies) factors[py::str(b.body)] = toNumpy(b.factors);
  for (const subject::MeasurementFactor& m : r.factors.measurements) {
    if (std::isnan(m.factor)) continue;
    py::list pairs;
    for (const subject::MarkerPairDistance& p : m.pairs)
      pairs.append(py::dict(py::arg("markers") = py::make_tuple(p.first, p.second),
                            py::arg("model_distance") = p.model_distance, py::arg("trial_distance") = p.trial_distance,
                            py::arg("frames") = p.frames));
    measurements[py::str(m.name)] = py::dict(py::arg("factor") = m.factor, py::arg("pairs") = pairs);
  }
  for (const auto& [name, ratio] : r.muscle_ratios) ratios[py::str(name)] = ratio;
  py::dict d;
  d["factors"] = factors;
  d["measurements"] = measurements;
  d["muscle_length_ratios"] = ratios;
  d["mass_before"] = r.scaling.mass_before;
  d["mass_after"] = r.scaling.mass_after;
  d["path"] = r.out_path.empty() ? py::object(py::none()) : py::object(py::str(r.out_path));
  d["static_pose_path"] = r.static_pose_path.empty() ? py::object(py::none()) : py::object(py::str(r.static_pose_path));
  d["osim"] = r.osim;
  if (r.placement) {
    py::dict moved;
    for (const track::PlacedMarker& p : r.placement->markers)
      if (p.moved > 0.0) moved[py::str(p.name)] = p.moved;
    d["markers_moved"] = moved;
    d["static_rms_error"] = r.placement->rms_error;
    d["static_max_error"] = r.placement->max_error;
    d["static_pose"] = py::dict(py::arg("columns") = r.placement->coordinates.columns,
                                py::arg("values") = toNumpy(r.placement->coordinates.values));
  } else {
    d["markers_moved"] = py::dict();
    d["static_rms_error"] = py::none();
    d["static_max_error"] = py::none();
    d["static_pose"] = py::none();
  }
  d["warnings"] = warnings;
  d["summary"] = app::summaryText(r);
  return d;
}

}  // namespace

void bindScale(py::module_& m) {
  m.def("scale", &scalePy, py::arg("model") = "", py::arg("setup") = "", py::arg("markers") = "", py::arg("out") = "",
        py::arg("marker_set") = "", py::arg("static_pose") = "", py::arg("marker_axes") = "auto",
        py::arg("strict") = false,
        R"doc(`kinetrack scale` (the same job): OpenSim's Scale tool from a Setup_Scale.xml.

model the generic .osim (4.0 format; default: the setup's model_file), markers the static trial
(.trc/.c3d; default: the setup's marker_file), marker_set the marker-set file (default: the
setup's marker_set_file). The scaled model is written to out and the static pose (.mot, degrees)
to static_pose only when given (the setup's output files are not written). strict: a body of the
setup that the model lacks is an error (OpenSim ignores it with a warning).

Returns a dict: factors {body: (3,) x/y/z}, measurements {name: {factor, pairs}},
muscle_length_ratios {muscle: path length after / before}, mass_before/mass_after (kg), path
(out or None), static_pose_path, osim (the scaled model's text), markers_moved {marker: m},
static_rms_error/static_max_error (m, IK at the static pose before the markers moved),
static_pose {columns, values (1 × n, degrees / m)}, warnings, summary (the CLI's text).
Raises ValueError / kinetrack.ParseError as the CLI reports them.)doc");
}

}  // namespace kinetrack::python
