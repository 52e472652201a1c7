#include "convert.hpp"

#include <cmath>
#include <cstring>

#include "kinetrack/core/so3.hpp"

namespace kinetrack::python {

std::string shapeString(std::initializer_list<py::ssize_t> shape) {
  std::string s = "(";
  bool first = true;
  for (py::ssize_t d : shape) {
    if (!first) s += ", ";
    s += d == kAny ? std::string("N") : std::to_string(d);
    first = false;
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string shapeString(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

Array checkedArray(py::handle obj, std::initializer_list<py::ssize_t> shape, const char* what) {
  const std::string expected = std::string(what) + ": expected an array of shape " + shapeString(shape);
  if (obj.is_none()) throw py::value_error(expected + ", got None");
  py::array a = py::array::ensure(obj);
  if (!a) {
    PyErr_Clear();
    throw py::value_error(expected + ", got " + std::string(py::str(py::type::of(obj)).cast<std::string>()));
  }
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw py::value_error(expected + " of real numbers, got dtype " + py::str(a.dtype()).cast<std::string>());
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  if (ok) {
    py::ssize_t i = 0;
    for (py::ssize_t d : shape) {
      ok = ok && (d == kAny || a.shape(i) == d);
      ++i;
    }
  }
  if (!ok) throw py::value_error(expected + ", got shape " + shapeString(a));
  return Array::ensure(a);
}

void readConfiguration(const Model& model, const double* q, Configuration& out) {
  out.base_position = Vector3d(q[0], q[1], q[2]);
  const Eigen::Vector4d quat(q[3], q[4], q[5], q[6]);
  const double norm = quat.norm();
  if (!(norm > 1e-12) || !std::isfinite(norm))
    throw py::value_error("q: the base quaternion (q[3:7], w, x, y, z) must be finite and non-zero");
  out.base_rotation = so3::fromQuaternionWxyz(quat);
  const int n = model.numJoints();
  if (out.joints.size() != n) out.joints.resize(n);
  for (int j = 0; j < n; ++j) out.joints[j] = q[7 + j];
}

void readConfiguration(const Model& model, py::handle q, Configuration& out, const char* what) {
  const Array a = checkedArray(q, {nq(model)}, what);
  readConfiguration(model, a.data(), out);
}

io::JointTrajectory toJointTrajectory(const Model& model, py::handle motion, const std::string& source) {
  const bool is_dict = py::isinstance<py::dict>(motion);
  const auto field = [&](const char* name) {
    return is_dict ? py::object(motion[name]) : py::object(motion.attr(name));
  };
  const bool has_gaps = is_dict ? motion.cast<py::dict>().contains("gaps") : py::hasattr(motion, "gaps");
  const auto times = field("times").cast<std::vector<double>>();
  const Array q = checkedArray(field("q"), {static_cast<py::ssize_t>(times.size()), nq(model)}, "q (N, nq)");
  io::JointTrajectory t;
  t.source = source;
  t.joint_names = model.jointNames();
  t.times = times;
  t.joints.resize(static_cast<Eigen::Index>(times.size()), model.numJoints());
  t.gap.assign(times.size(), 0);
  if (has_gaps) {
    const auto gaps = field("gaps").cast<std::vector<bool>>();
    for (std::size_t k = 0; k < gaps.size() && k < t.gap.size(); ++k) t.gap[k] = gaps[k] ? 1 : 0;
  }
  Configuration c(model);
  for (std::size_t k = 0; k < times.size(); ++k) {
    readConfiguration(model, q.data() + static_cast<std::ptrdiff_t>(k) * nq(model), c);
    t.base.push_back(Transform{c.base_rotation, c.base_position});
    t.joints.row(static_cast<Eigen::Index>(k)) = c.joints.transpose();
  }
  return t;
}

Configuration toConfiguration(const Model& model, py::handle q, const char* what) {
  Configuration c(model);
  readConfiguration(model, q, c, what);
  return c;
}

void writeConfiguration(const Configuration& q, double* out) {
  for (int k = 0; k < 3; ++k) out[k] = q.base_position[k];
  const Eigen::Vector4d quat = so3::toQuaternionWxyz(q.base_rotation);
  for (int k = 0; k < 4; ++k) out[3 + k] = quat[k];
  for (Eigen::Index j = 0; j < q.joints.size(); ++j) out[7 + j] = q.joints[j];
}

py::array_t<double> configurationArray(const Configuration& q) {
  py::array_t<double> a(7 + q.joints.size());
  writeConfiguration(q, a.mutable_data());
  return a;
}

Matrix3d rotationFromRaw(const double* v, bool quaternion) {
  if (quaternion) {
    const Eigen::Vector4d quat(v[0], v[1], v[2], v[3]);
    if (!(quat.norm() > 1e-12) || !quat.allFinite())
      throw py::value_error("quaternion (w, x, y, z) must be finite and non-zero");
    return so3::fromQuaternionWxyz(quat);
  }
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(v);
}

Matrix3d toRotation(py::handle obj, const char* what) {
  py::array a = py::array::ensure(obj);
  if (a && a.ndim() == 1) return rotationFromRaw(checkedArray(obj, {4}, what).data(), true);
  const std::string name = std::string(what) + " (rotation matrix; or a quaternion w, x, y, z of shape (4,))";
  return rotationFromRaw(checkedArray(obj, {3, 3}, name.c_str()).data(), false);
}

Vector3d toVector3(py::handle obj, const char* what) {
  const Array a = checkedArray(obj, {3}, what);
  return Vector3d(a.data()[0], a.data()[1], a.data()[2]);
}

VectorXd toVector(py::handle obj, py::ssize_t n, const char* what) {
  const Array a = checkedArray(obj, {n}, what);
  return Eigen::Map<const VectorXd>(a.data(), n);
}

namespace {

template <class IdT>
IdT toId(py::handle obj, int count, const char* kind, IdT (Model::*resolve)(std::string_view) const,
         const Model& model) {
  if (py::isinstance<py::str>(obj)) return (model.*resolve)(obj.cast<std::string>());
  if (!py::isinstance<py::int_>(obj))
    throw py::value_error(std::string(kind) + ": expected a name (str) or an index (int)");
  const long v = obj.cast<long>();
  if (v < 0 || v >= count)
    throw py::value_error(std::string(kind) + " index " + std::to_string(v) + " out of range [0, " +
                          std::to_string(count) + ")");
  return IdT(static_cast<std::int32_t>(v));
}

}  // namespace

FrameId toFrameId(const Model& model, py::handle frame) {
  return toId(frame, model.numFrames(), "frame", &Model::frameId, model);
}

LinkId toLinkId(const Model& model, py::handle link) {
  return toId(link, model.numLinks(), "link", &Model::linkId, model);
}

}  // namespace kinetrack::python
