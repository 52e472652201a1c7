// Forward kinematics, frame Jacobians (mixed representation) and configuration-space helpers as
// free functions over (model, data, …), as in C++.
#include <pybind11/stl.h>

#include <random>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"

namespace kinetrack::python {
namespace {

// Copies the data's Jacobian scratch into `out` (any strides), checked: (6, nv) float64, writeable.
void copyInto(const Matrix6Xd& J, py::array& out) {
  const std::string expected = "out: expected a writeable float64 array of shape (6, " + std::to_string(J.cols()) + ")";
  if (!py::isinstance<py::array_t<double>>(out) || out.ndim() != 2 || out.shape(0) != 6 || out.shape(1) != J.cols() ||
      !out.writeable())
    throw py::value_error(expected + ", got " + py::str(out.dtype()).cast<std::string>() + " " + shapeString(out));
  auto r = out.mutable_unchecked<double, 2>();
  for (py::ssize_t c = 0; c < J.cols(); ++c)
    for (py::ssize_t k = 0; k < 6; ++k) r(k, c) = J(k, c);
}

void forwardKinematicsPy(const Model& model, PyData& d, ArrayLike q, bool update_frames) {
  d.check(model);
  readConfiguration(model, q, d.q);
  forwardKinematics(model, d.data, d.q);
  if (update_frames) updateFramePlacements(model, d.data);
}

py::array frameJacobianPy(const Model& model, PyData& d, NameOrIndex frame, std::optional<py::array> out) {
  d.check(model);
  frameJacobian(model, d.data, toFrameId(model, frame), d.J);
  if (!out) return toNumpy(d.J);
  copyInto(d.J, *out);
  return *out;
}

py::tuple framePlacementPy(const Model& model, PyData& d, NameOrIndex frame) {
  d.check(model);
  const Transform& T = updateFramePlacement(model, d.data, toFrameId(model, frame));
  return py::make_tuple(toNumpy(T.R), toNumpy(T.p));
}

// Frame placements for N configurations: positions (N, F, 3), rotations (N, F, 3, 3); the GIL is
// released while the C++ loop runs.
py::tuple forwardKinematicsBatch(const Model& model, ArrayLike qs, std::optional<std::vector<py::object>> frames) {
  const Array q = checkedArray(qs, {kAny, nq(model)}, "q");
  std::vector<FrameId> ids;
  if (frames) {
    for (const py::object& f : *frames) ids.push_back(toFrameId(model, f));
  } else {
    for (int f = 0; f < model.numFrames(); ++f) ids.emplace_back(f);
  }
  const py::ssize_t n = q.shape(0), nf = static_cast<py::ssize_t>(ids.size());
  py::array_t<double> pos({n, nf, py::ssize_t(3)}), rot({n, nf, py::ssize_t(3), py::ssize_t(3)});
  double* P = pos.mutable_data();
  double* R = rot.mutable_data();
  const double* Q = q.data();
  {
    py::gil_scoped_release release;
    Data data(model);
    Configuration c(model);
    for (py::ssize_t k = 0; k < n; ++k) {
      readConfiguration(model, Q + k * nq(model), c);
      forwardKinematics(model, data, c);
      for (py::ssize_t f = 0; f < nf; ++f) {
        const Transform& T = updateFramePlacement(model, data, ids[static_cast<std::size_t>(f)]);
        Eigen::Map<Vector3d>(P + (k * nf + f) * 3) = T.p;
        Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(R + (k * nf + f) * 9) = T.R;
      }
    }
  }
  return py::make_tuple(pos, rot);
}

py::array_t<double> integratePy(const Model& model, ArrayLike q, ArrayLike v, double dt) {
  const Configuration c = toConfiguration(model, q);
  const Array nu = checkedArray(v, {model.nv()}, "v");
  Configuration out(model);
  integrate(model, c, Eigen::Map<const VectorXd>(nu.data(), model.nv()), dt, out);
  return configurationArray(out);
}

py::array_t<double> differencePy(const Model& model, ArrayLike q0, ArrayLike q1) {
  const Configuration a = toConfiguration(model, q0, "q0"), b = toConfiguration(model, q1, "q1");
  VectorXd nu(model.nv());
  difference(model, a, b, nu);
  return toNumpy(nu);
}

}  // namespace

void bindKinematics(py::module_& m) {
  m.def("forward_kinematics", &forwardKinematicsPy, py::arg("model"), py::arg("data"), py::arg("q"),
        py::arg("update_frames") = true,
        R"doc(World placements of every link (and, with update_frames, every frame) at configuration q (nq,),
written into data (data.link_rotations, data.link_positions, data.frame_rotations,
data.frame_positions). Raises ValueError for q of the wrong shape or a zero quaternion, or data of
another model. Does not allocate.)doc");
  m.def(
      "update_frame_placements",
      [](const Model& model, PyData& d) {
        d.check(model);
        updateFramePlacements(model, d.data);
      },
      py::arg("model"), py::arg("data"), "Every frame's placement from the links (after forward_kinematics).");
  m.def("frame_placement", &framePlacementPy, py::arg("model"), py::arg("data"), py::arg("frame"),
        "(R (3, 3), p (3,)): world rotation R_WF and position (m) of one frame (name or index), after "
        "forward_kinematics.");
  m.def("frame_jacobian", &frameJacobianPy, py::arg("model"), py::arg("data"), py::arg("frame"),
        py::arg("out") = py::none(),
        R"doc(The (6, nv) Jacobian of a frame (name or index) at data's configuration (call forward_kinematics
first), mixed representation: rows (linear velocity of the frame origin; angular velocity), both in
the world frame; columns (base linear; base angular; joints). With out (a writeable float64 array of
shape (6, nv), any order) the result is written there and out is returned (no allocation).)doc");
  m.def("forward_kinematics_batch", &forwardKinematicsBatch, py::arg("model"), py::arg("q"),
        py::arg("frames") = py::none(),
        "Frame placements for many configurations q (N, nq): returns (positions (N, F, 3) in m, rotations "
        "(N, F, 3, 3)) for frames (names or indices; default every frame). Releases the GIL.");
  m.def("integrate", &integratePy, py::arg("model"), py::arg("q"), py::arg("v"), py::arg("dt") = 1.0,
        "q ⊕ v·dt (nq,): p_B += ṗ_B dt, R_B ← exp(ω_B dt)·R_B (ω_B world frame), s += ṡ dt. v has shape (nv,).");
  m.def("difference", &differencePy, py::arg("model"), py::arg("q0"), py::arg("q1"),
        "v (nv,) with integrate(model, q0, v, 1) = q1; the base rotation part is the world-frame rotation "
        "vector log(R1 R0ᵀ) (norm ≤ π).");
  m.def(
      "random_configuration",
      [](const Model& model, unsigned long long seed) {
        std::mt19937_64 rng(seed);
        return configurationArray(randomConfiguration(model, rng));
      },
      py::arg("model"), py::arg("seed") = 0,
      "(nq,) joints uniform within their limits (±π when unbounded), a uniform random base orientation and "
      "base position in [-1, 1]³ m; deterministic for a seed.");
  m.def(
      "position_limit_violation",
      [](const Model& model, ArrayLike q) { return positionLimitViolation(model, toConfiguration(model, q)); },
      py::arg("model"), py::arg("q"), "Largest violation of the position limits at q (rad or m; 0 inside).");
}

}  // namespace kinetrack::python
