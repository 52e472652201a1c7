// The `kinetrack._kinetrack` extension module (python/kinetrack/__init__.py re-exports it).
// Errors: kinetrack::ParseError → kinetrack.ParseError (a ValueError with .file, .line and
// .message), InvalidArgument (std::invalid_argument) → ValueError; numerical outcomes are
// statuses in result objects, as in C++.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/version.hpp"

namespace kinetrack::python {

void bindErrors(py::module_& m) {
  static py::exception<ParseError> parse_error(m, "ParseError", PyExc_ValueError);
  parse_error.doc() =
      "A file could not be read or is malformed (a ValueError). Attributes: file (str), line (int, "
      "1-based; 0 when the error is not tied to a line), message (str, without the 'file:line: ' prefix).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ParseError& e) {
      py::object err = py::handle(parse_error.ptr())(e.what());
      err.attr("file") = e.file();
      err.attr("line") = e.line();
      err.attr("message") = e.message();
      PyErr_SetObject(parse_error.ptr(), err.ptr());
    }
  });
}

}  // namespace kinetrack::python

PYBIND11_MODULE(_kinetrack, m) {
  namespace kp = kinetrack::python;
  m.doc() =
      "kinetrack: real-time whole-body motion tracking (IK, dynamics, readers) with numpy in and out.\n"
      "Units SI (m, rad, s), world Z up; quaternions are ordered (w, x, y, z). See docs/python.md.";
  m.attr("__version__") = kinetrack::kVersion;
  kp::bindErrors(m);
  kp::bindModel(m);
  kp::bindKinematics(m);
  kp::bindIk(m);
  kp::bindIo(m);
  kp::bindTrack(m);
  kp::bindStream(m);
  kp::bindMxtp(m);
  kp::bindKtp(m);
  kp::bindDynamics(m);
  kp::bindDynamicsFilter(m);
  kp::bindBiomech(m);
  kp::bindMapping(m);
  kp::bindMarkers(m);
  kp::bindHand(m);
  kp::bindPrior(m);
  kp::bindPinDrag(m);
  kp::bindLabeller(m);
  kp::bindViewer(m);
  kp::bindMuscles(m);
  kp::bindScale(m);
  kp::bindImu(m);
  kp::bindGait(m);
  kp::bindExperiments(m);
  kp::bindServe(m);
}
