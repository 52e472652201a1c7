#pragma once
// numpy ↔ Eigen/kinetrack conversions of the Python module, with the checks that turn a wrong
// shape or dtype into a ValueError naming the expected shape (docs/python.md, "Arrays").
//
// Configuration layout in Python (docs/python.md): q = (p_B (3), quaternion of R_WB (w, x, y, z)
// (4), s (n)), nq = 7 + n, for fixed and floating bases alike (a fixed base's pose is the
// constant placement of its root). Velocities ν = (ṗ_B, ω_B, ṡ) of size model.nv().
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::python {

namespace py = pybind11;

/// Argument types that only name themselves in signatures (help(), TypeError messages): any
/// object is accepted, and the checked conversions below reject a wrong one with a ValueError.
inline bool anyObject(PyObject*) { return true; }
/// An array argument (numpy array, list, tuple, scalar): "numpy.typing.ArrayLike".
class ArrayLike : public py::object {
 public:
  PYBIND11_OBJECT_DEFAULT(ArrayLike, object, anyObject)
};
/// A frame or link given by name or index: "str | int".
class NameOrIndex : public py::object {
 public:
  PYBIND11_OBJECT_DEFAULT(NameOrIndex, object, anyObject)
};

/// C-contiguous float64 array (numpy's default layout).
using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// Shape placeholder for "any size" in checkedArray (printed as N).
inline constexpr py::ssize_t kAny = -1;

/// `obj` as a C-contiguous float64 array of `shape` (kAny = any extent): zero-copy for such an
/// array, a converted copy for other real dtypes (int, float32, bool). Throws ValueError
/// "<what>: expected an array of shape (N, 3), got shape (4,)" for a wrong shape or a
/// non-real dtype (complex, object, strings).
Array checkedArray(py::handle obj, std::initializer_list<py::ssize_t> shape, const char* what);

/// "(N, 3)" for a shape with kAny entries.
std::string shapeString(std::initializer_list<py::ssize_t> shape);
/// "(4, 2)" for an array's shape.
std::string shapeString(const py::array& a);

/// Size of the Python configuration vector of a model: 7 + numJoints().
inline int nq(const Model& model) { return 7 + model.numJoints(); }

/// q (nq values) into `out` (sized for the model: no allocation). The quaternion is normalised;
/// throws ValueError for a zero or non-finite quaternion.
void readConfiguration(const Model& model, const double* q, Configuration& out);
/// The checked array form; `what` names the argument in errors.
void readConfiguration(const Model& model, py::handle q, Configuration& out, const char* what = "q");
/// A new Configuration from a Python q.
Configuration toConfiguration(const Model& model, py::handle q, const char* what = "q");
/// A motion held in Python as a joint trajectory: an object with `times` (N,) and `q` (N, nq)
/// (a TrackResult) or a dict with those keys, and optionally `gaps` (N,) bool. `source` names it.
io::JointTrajectory toJointTrajectory(const Model& model, py::handle motion, const std::string& source);
/// q into `out` (nq values; quaternion with w ≥ 0).
void writeConfiguration(const Configuration& q, double* out);
/// A new (nq,) array.
py::array_t<double> configurationArray(const Configuration& q);

/// A rotation from a (3, 3) matrix or a (4,) quaternion (w, x, y, z; normalised). Throws
/// ValueError for another shape or a zero quaternion.
Matrix3d toRotation(py::handle obj, const char* what);
/// The same from raw memory: 9 row-major values (matrix) or 4 (quaternion w, x, y, z).
Matrix3d rotationFromRaw(const double* v, bool quaternion);

/// A fixed-size vector (3 values) from an array.
Vector3d toVector3(py::handle obj, const char* what);
/// A vector of n values.
VectorXd toVector(py::handle obj, py::ssize_t n, const char* what);

/// A new numpy array (copy) of an Eigen vector ((n,)) or matrix ((rows, cols), C order).
template <class Derived>
py::array_t<double> toNumpy(const Eigen::MatrixBase<Derived>& m) {
  if constexpr (Derived::ColsAtCompileTime == 1) {
    py::array_t<double> a(m.size());
    Eigen::Map<VectorXd>(a.mutable_data(), m.size()) = m;
    return a;
  } else {
    py::array_t<double> a({m.rows(), m.cols()});
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(a.mutable_data(), m.rows(),
                                                                                       m.cols()) = m;
    return a;
  }
}

/// A new (n,) float64 array of any numeric vector.
template <class T>
py::array_t<double> doubles(const std::vector<T>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) a.mutable_data()[i] = static_cast<double>(v[i]);
  return a;
}

/// Runs f() with the GIL released (file readers, long computations) and returns its result.
template <class F>
auto released(F f) {
  py::gil_scoped_release release;
  return f();
}

/// A named member of a result or summary struct: tables of these build dicts without spelling
/// every key twice.
template <class S, class T>
struct Field {
  const char* name;
  T S::*member;
};
/// d[f.name] = s.*f.member for every field.
template <class S, class T, std::size_t N>
void addFields(py::dict& d, const S& s, const Field<S, T> (&fields)[N]) {
  for (const Field<S, T>& f : fields) d[f.name] = s.*f.member;
}

/// A frame given as a name (resolved, ValueError listing the names when unknown) or an index.
FrameId toFrameId(const Model& model, py::handle frame);
LinkId toLinkId(const Model& model, py::handle link);

}  // namespace kinetrack::python

template <>
struct pybind11::detail::handle_type_name<kinetrack::python::ArrayLike> {
  static constexpr auto name = const_name("numpy.typing.ArrayLike");
};
template <>
struct pybind11::detail::handle_type_name<kinetrack::python::NameOrIndex> {
  static constexpr auto name = const_name("str | int");
};
