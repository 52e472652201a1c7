#include "bindings.hpp"

namespace kinetrack::python {

void bindHand(py::module_&) {}

}  // namespace kinetrack::python
