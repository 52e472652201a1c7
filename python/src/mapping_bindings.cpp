// The human figure ↔ musculoskeletal model mapping (Nakamura seed Eq. 14–15, issue 18):
// polynomial features and the truncated-SVD fit (biomech/posture_mapping.hpp). Samples are rows
// (numpy's convention): x of shape (N, inputs), y of shape (N, outputs).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/biomech/posture_mapping.hpp"

namespace kinetrack::python {

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// (N, n) samples as an n × N matrix (one column per sample).
MatrixXd samples(py::handle obj, const char* what) {
  const Array a = checkedArray(obj, {kAny, kAny}, what);
  return Eigen::Map<const RowMajor>(a.data(), a.shape(0), a.shape(1)).transpose();
}

}  // namespace

void bindMapping(py::module_& m) {
  using biomech::PolynomialFeatures;
  using biomech::PolynomialMap;
  using biomech::PolynomialMapFit;
  py::class_<PolynomialFeatures>(
      m, "PolynomialFeatures",
      "Every monomial of degree <= degree in `inputs` variables, graded order: 1, x0 .. x(n-1), x0*x0, x0*x1, ... "
      "(the f(theta), g(phi) of Eq. 14-15).")
      .def(py::init<int, int>(), py::arg("inputs"), py::arg("degree"))
      .def_property_readonly("inputs", &PolynomialFeatures::inputs)
      .def_property_readonly("degree", &PolynomialFeatures::degree)
      .def_property_readonly("size", &PolynomialFeatures::size)
      .def("term", &PolynomialFeatures::term, py::arg("k"), "Variable indices whose product is term k.")
      .def("term_name", &PolynomialFeatures::termName, py::arg("k"), py::arg("names") = std::vector<std::string>{},
           "'1', 'x3', 'x0*x2' or with variable names.")
      .def(
          "__call__",
          [](const PolynomialFeatures& f, py::handle x) {
            const MatrixXd s = samples(x, "x");
            return toNumpy(MatrixXd(f.matrix(s).transpose()));
          },
          py::arg("x"), "Features of samples x (N, inputs) -> (N, size).");
  py::class_<PolynomialMap>(m, "PolynomialMap", "y = M f(x), a fitted map (PolynomialMapFit.map).")
      .def_property_readonly("matrix", [](const PolynomialMap& p) { return toNumpy(p.matrix()); })
      .def_property_readonly("features", &PolynomialMap::features)
      .def_property_readonly("inputs", &PolynomialMap::inputs)
      .def_property_readonly("outputs", &PolynomialMap::outputs)
      .def(
          "__call__",
          [](const PolynomialMap& p, py::handle x) {
            const MatrixXd s = samples(x, "x");
            return toNumpy(MatrixXd(p.applyAll(s).transpose()));
          },
          py::arg("x"), "Map samples x (N, inputs) -> (N, outputs).");
  py::class_<PolynomialMapFit>(
      m, "PolynomialMapFit",
      "Fit of y ~ M f(x) to sample pairs by the SVD of the feature matrix; map(k) is the pseudo-inverse fit "
      "truncated to k singular values (Eq. 14-15). Raises ValueError for mismatched samples or non-finite values.")
      .def(py::init([](py::handle x, py::handle y, int degree, double tolerance) {
             const MatrixXd xs = samples(x, "x"), ys = samples(y, "y");
             return released([&] { return PolynomialMapFit(xs, ys, degree, tolerance); });
           }),
           py::arg("x"), py::arg("y"), py::arg("degree"), py::arg("relative_tolerance") = 1e-12)
      .def_property_readonly("rank", &PolynomialMapFit::rank)
      .def_property_readonly("singular_values", [](const PolynomialMapFit& f) { return toNumpy(f.singularValues()); })
      .def_property_readonly("features", &PolynomialMapFit::features)
      .def("map", &PolynomialMapFit::map, py::arg("k"), "The map with k singular values (1 <= k <= rank).")
      .def(
          "rms_error_by_rank",
          [](const PolynomialMapFit& f, py::handle x, py::handle y) {
            const MatrixXd xs = samples(x, "x"), ys = samples(y, "y");
            return toNumpy(MatrixXd(released([&] { return f.rmsErrorByRank(xs, ys); }).transpose()));
          },
          py::arg("x"), py::arg("y"),
          "RMS error of map(k) on samples (x, y) for every k: shape (rank, outputs + 1), row k-1 = per-output RMS, "
          "last column the RMS over all outputs.");
}

}  // namespace kinetrack::python
