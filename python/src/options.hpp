#pragma once
// Typed option structs in Python: bound classes whose constructor takes the fields as keywords
// (kinetrack.DynamicalIkOptions(damping=1e-6, limit_gain=10)); an unknown keyword is a ValueError
// listing the fields.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

namespace kinetrack::python {

namespace py = pybind11;

/// Adds `__init__(**fields)` and `__repr__` to an options class bound with def_readwrite fields.
template <class T, class... Extra>
void keywordInit(py::class_<T, Extra...>& cls) {
  cls.def(py::init([](const py::kwargs& kwargs) {
       auto options = std::make_unique<T>();
       py::object self = py::cast(options.get(), py::return_value_policy::reference);
       for (const auto& [key, value] : kwargs) {
         const std::string name = py::str(key).template cast<std::string>();
         if (name.starts_with("_") || !py::hasattr(self, name.c_str())) {
           std::string fields;
           for (const py::handle a : py::module_::import("builtins").attr("dir")(self)) {
             const std::string s = a.template cast<std::string>();
             if (!s.starts_with("_")) fields += (fields.empty() ? "" : ", ") + s;
           }
           throw py::value_error(py::str(py::type::of(self).attr("__name__")).template cast<std::string>() +
                                 ": unknown option '" + name + "' (options: " + fields + ")");
         }
         py::setattr(self, name.c_str(), value);
       }
       return options;
     }))
      .def("__repr__", [](py::object self) {
        std::string s = py::str(py::type::of(self).attr("__name__")).template cast<std::string>() + "(";
        bool first = true;
        for (const py::handle a : py::module_::import("builtins").attr("dir")(self)) {
          const std::string name = a.template cast<std::string>();
          if (name.starts_with("_")) continue;
          py::object v = self.attr(name.c_str());
          if (PyCallable_Check(v.ptr())) continue;
          s += (first ? "" : ", ") + name + "=" + py::repr(v).template cast<std::string>();
          first = false;
        }
        return s + ")";
      });
}

}  // namespace kinetrack::python
