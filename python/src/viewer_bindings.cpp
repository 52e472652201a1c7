// `kinetrack view` as a Python call: the browser viewer directory of a tracked result (joint CSV)
// on a model, with the capture it was tracked from overlaid (kinetrack/viewer/viewer.hpp).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::python {
namespace {

py::dict writeViewerPy(const Model& model, const std::string& result, const std::string& out,
                       const std::optional<std::string>& input, const std::string& map,
                       const std::string& calibration) {
  const viewer::ViewerData data = released([&] {
    const io::JointTrajectory q = io::readJointCsv(result);
    viewer::ViewerData d;
    if (!input) {
      d = viewer::buildViewerData(model, q);
    } else {
      const track::Capture capture = track::loadCapture(*input);
      track::PlanOptions po;
      po.calibration = calibration;
      const track::TrackSetup setup = track::setupOnModel(model, capture, map, po);
      d = viewer::buildViewerData(model, q, &capture, &setup.plan);
    }
    viewer::writeViewerDirectory(out, d);
    return d;
  });
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

model: the Model the result was tracked on; result: its joint CSV (`kinetrack track --out`);
input: the capture it was tracked from (overlaid, per-link target errors), with the same map and
calibration. Returns a dict: frames, links, index (the page), error_unit/error_p95/error_max (None
without input). Raises ValueError when the result does not match the model or the capture, or
when the viewer was not bundled (build with node and npm installed).)doc");
}

}  // namespace kinetrack::python
