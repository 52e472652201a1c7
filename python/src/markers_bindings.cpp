#include "bindings.hpp"

namespace kinetrack::python {

void bindMarkers(py::module_&) {}

}  // namespace kinetrack::python
