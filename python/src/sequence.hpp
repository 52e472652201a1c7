#pragma once
// The outputs of a solve_sequence (IK solvers, marker IK): per frame the configuration and the
// ik::Result fields, in numpy arrays allocated before the GIL is released and written without it.
#include <pybind11/numpy.h>

#include <cstdint>

#include "convert.hpp"
#include "kinetrack/ik/status.hpp"

namespace kinetrack::python {

struct SequenceOutput {
  py::array_t<double> q, mnte, limit;
  py::array_t<std::int8_t> status;
  py::array_t<std::int32_t> iterations;

  SequenceOutput(py::ssize_t n, int nq) : q({n, py::ssize_t(nq)}), mnte(n), limit(n), status(n), iterations(n) {}
  /// Frame k (no allocation; callable without the GIL).
  void write(py::ssize_t k, const Configuration& c, const ik::Result& r) {
    writeConfiguration(c, q.mutable_data() + k * q.shape(1));
    mnte.mutable_data()[k] = r.mnte;
    limit.mutable_data()[k] = r.limit_violation;
    status.mutable_data()[k] = static_cast<std::int8_t>(r.status);
    iterations.mutable_data()[k] = r.iterations;
  }
  /// {"q": (N, nq), "status": (N,) int8, "iterations": (N,), "mnte": (N,), "limit_violation": (N,)}.
  [[nodiscard]] py::dict dict() const {
    return py::dict(py::arg("q") = q, py::arg("status") = status, py::arg("iterations") = iterations,
                    py::arg("mnte") = mnte, py::arg("limit_violation") = limit);
  }
};

}  // namespace kinetrack::python
