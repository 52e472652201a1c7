#pragma once
// Shared pieces of the reader and tracking bindings.
#include <pybind11/pybind11.h>

#include <string>

#include "kinetrack/io/bvh.hpp"

namespace kinetrack::python {

namespace py = pybind11;

/// "auto", "m", "cm", "in", "cmu" (the CLI's --units); ValueError otherwise.
io::BvhUnits parseBvhUnits(const std::string& units);
/// The C3D, QTM TSV and joint-CSV readers (io_marker_bindings.cpp).
void bindIoMarkerFormats(py::module_& m);

}  // namespace kinetrack::python
