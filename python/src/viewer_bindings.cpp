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

// The library's view job; the result a joint CSV path or a TrackResult-like object (times, q, gaps).
py::dict writeViewerPy(const Model& model, py::object result, const std::string& out,
                       const std::optional<std::string>& input, const std::string& map,
                       const std::string& calibration) {
  app::ViewOptions o;
  o.out = out;
  o.input = input.value_or("");
  o.map = map;
  o.calibration = calibration;
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
  return summary;
}

}  // namespace

void bindViewer(py::module_& m) {
  m.def("viewer_bundled", &viewer::bundled,
        "True when the browser viewer was bundled at build time (node/npm present).");
  m.def("write_viewer", &writeViewerPy, py::arg("model"), py::arg("result"), py::arg("out"), py::kw_only(),
        py::arg("input") = py::none(), py::arg("map") = "", py::arg("calibration") = "",
        R"doc(Writes the browser viewer of a tracked result into directory `out`, as `kinetrack view` does:
index.html, viewer.js and data.js (every link's position per frame by forward kinematics).

model: the Model the result was tracked on; result: its joint CSV (`kinetrack track --out`) or the
TrackResult itself;
input: the capture it was tracked from (overlaid, per-link target errors), with the same map and
calibration. Returns a dict: frames, links, index (the page), error_unit/error_p95/error_max (None
without input). Raises ValueError when the result does not match the model or the capture, or
when the viewer was not bundled (build with node and npm installed).)doc");
}

}  // namespace kinetrack::python
