// `kinetrack view` as a Python call: the browser viewer directory of a tracked result (joint CSV)
// on a model, with the capture it was tracked from overlaid (kinetrack/viewer/viewer.hpp).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/view_job.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::python {
namespace {

// The library's view job; the result a joint CSV path (or an OpenSim .mot on `model_file`, an
// .osim) or a TrackResult-like object (times, q, gaps).
py::dict writeViewerPy(const Model& model, py::object result, const std::string& out,
                       const std::optional<std::string>& input, const std::string& map, const std::string& calibration,
                       const std::optional<std::string>& model_file, const std::optional<std::string>& markers,
                       const std::optional<std::string>& loads, const std::optional<std::string>& muscle_values,
                       bool muscles, const std::optional<std::string>& person, double person_offset,
                       std::optional<double> png, const std::optional<std::string>& png_file, std::pair<int, int> size,
                       const std::string& layers) {
  app::ViewOptions o;
  o.out = out;
  o.input = input.value_or("");
  o.map = map;
  o.calibration = calibration;
  o.model.model = model_file.value_or("");
  o.markers = markers.value_or("");
  o.loads = loads.value_or("");
  o.muscle_values = muscle_values.value_or("");
  o.muscles = muscles;
  o.person = person.value_or("");
  o.person_offset = person_offset;
  o.png_time = png;
  o.png_file = png_file.value_or("");
  o.width = size.first;
  o.height = size.second;
  o.layers = layers;
  std::optional<io::JointTrajectory> given;
  if (py::isinstance<py::str>(result)) {
    o.result = result.cast<std::string>();
  } else {
    given = toJointTrajectory(model, result, "TrackResult");
  }
  const app::ViewResult r = released([&] { return app::runView(o, {}, &model, given ? &*given : nullptr); });
  const viewer::ViewerData& data = r.data;
  py::dict summary;
  summary["frames"] = data.numFrames();
  summary["links"] = data.numLinks();
  summary["index"] = out + "/index.html";
  summary["error_unit"] = data.errors.empty() ? py::object(py::none()) : py::str(data.error_unit);
  summary["error_p95"] = data.errors.empty() ? py::object(py::none()) : py::float_(data.error_p95);
  summary["error_max"] = data.errors.empty() ? py::object(py::none()) : py::float_(data.error_max);
  summary["geoms"] = data.geometry.geoms.size();
  summary["meshes"] = data.geometry.meshes.size();
  summary["triangles"] = data.geometry.triangles();
  summary["notes"] = data.geometry.notes;
  summary["muscles"] = data.muscles.names.size();
  summary["markers"] = data.markers.names.size();
  summary["marker_rms_error"] = data.markers.empty() ? py::object(py::none()) : py::float_(data.markers.rms_error);
  summary["forces"] = data.forces.names.size();
  summary["person"] = !data.companions.empty();
  summary["data_bytes"] = r.data_bytes;
  summary["mesh_bytes"] = r.mesh_bytes;
  summary["png"] = r.png.empty() ? py::object(py::none()) : py::str(r.png);
  return summary;
}

}  // namespace

void bindViewer(py::module_& m) {
  m.def("viewer_bundled", &viewer::bundled,
        "True when the browser viewer was bundled at build time (node/npm present).");
  m.def("write_viewer", &writeViewerPy, py::arg("model"), py::arg("result"), py::arg("out"), py::kw_only(),
        py::arg("input") = py::none(), py::arg("map") = "", py::arg("calibration") = "",
        py::arg("model_file") = py::none(), py::arg("markers") = py::none(), py::arg("loads") = py::none(),
        py::arg("muscle_values") = py::none(), py::arg("muscles") = true, py::arg("person") = py::none(),
        py::arg("person_offset") = 1.0, py::arg("png") = py::none(), py::arg("png_file") = py::none(),
        py::arg("size") = std::pair<int, int>(1280, 720), py::arg("layers") = "",
        R"doc(Writes the browser viewer of a tracked result into directory `out`, as `kinetrack view` does:
index.html, viewer.js, data.js (every link's pose per frame by forward kinematics, binary) and
meshes.js (the model's visual geometry: URDF/MJCF meshes, OpenSim bones).

model: the Model the result was tracked on; result: its joint CSV (`kinetrack track --out`), the
TrackResult itself, or an OpenSim .mot with `model_file` the .osim (which also brings its muscles);
input: the capture it was tracked from (overlaid, per-link target errors), with the same map and
calibration; markers (.trc/.c3d), loads (ExternalLoads .xml), muscle_values (activation or force
.sto): layers; person: with input on a robot, the capture tracked onto this human model beside it;
png: a time (s) rendered to a PNG by headless Chromium (png_file, size, layers).
Returns a dict: frames, links, index, error_unit/error_p95/error_max (None without input), geoms,
meshes, triangles, notes (meshes not found), muscles, markers, marker_rms_error, forces, person,
data_bytes, mesh_bytes, png. Raises ValueError when the result does not match the model or the capture, or
when the viewer was not bundled (build with node and npm installed).)doc");
}

}  // namespace kinetrack::python
