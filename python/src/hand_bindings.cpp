// kinetrack.fabrik (Skeleton, Solver: FABRIK with hinge/ball constraints) and kinetrack.hand
// (the FABRIK hand tracker over a Qualisys glove recording, as `kinetrack hand track`).
#include <pybind11/stl.h>

#include <optional>
#include <tuple>
#include <utility>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/hand_job.hpp"
#include "kinetrack/fabrik/fabrik.hpp"
#include "kinetrack/hand/hand_calibration.hpp"
#include "kinetrack/hand/hand_model.hpp"
#include "kinetrack/hand/hand_trial.hpp"
#include "kinetrack/io/capture/qtm_tsv.hpp"

namespace kinetrack::python {
namespace {

// Joint positions (n, 3) in numpy (C order) are the (3 × n) column-major matrix of C++.
Eigen::Map<const fabrik::Matrix3Xd> restPositions(const Array& a) {
  return {a.data(), 3, static_cast<Eigen::Index>(a.shape(0))};
}

fabrik::Result solvePy(fabrik::Solver& s, py::array positions, double tolerance, int max_iterations,
                       const std::string& root, int restarts, bool stop_when_stalled) {
  const std::string expected = "positions: expected a writeable C-contiguous float64 array of shape (" +
                               std::to_string(s.skeleton().size()) + ", 3)";
  if (!py::isinstance<py::array_t<double>>(positions) || !(positions.flags() & py::array::c_style) ||
      positions.ndim() != 2 || positions.shape(0) != s.skeleton().size() || positions.shape(1) != 3 ||
      !positions.writeable())
    throw py::value_error(expected + ", got " + py::str(positions.dtype()).cast<std::string>() + " " +
                          shapeString(positions));
  if (root != "fixed" && root != "free") throw py::value_error("root: expected 'fixed' or 'free', got '" + root + "'");
  fabrik::Options o;
  o.tolerance = tolerance;
  o.max_iterations = max_iterations;
  o.root = root == "free" ? fabrik::RootMode::Free : fabrik::RootMode::Fixed;
  o.restarts = restarts;
  o.stop_when_stalled = stop_when_stalled;
  Eigen::Map<fabrik::Matrix3Xd> p(static_cast<double*>(positions.mutable_data()), 3, s.skeleton().size());
  return s.solve(p, o);
}

// `kinetrack hand track` (app::runHandTrack, the CLI's job) with the tracker of `solver`.
py::dict trackRecordingPy(const std::string& path, const std::string& solver, bool use_middle_markers,
                          const std::string& backend, std::optional<std::pair<int, int>> calibration_frames,
                          bool compare_lm, const std::string& out, const std::string& summary_json,
                          const std::string& urdf, const std::string& errors) {
  if (solver != "fabrik" && solver != "lm") throw py::value_error("solver: expected 'fabrik' or 'lm'");
  if (backend != "euclid" && backend != "cga") throw py::value_error("backend: expected 'euclid' or 'cga'");
  app::HandTrackOptions o;
  o.input = path;
  o.solver = solver == "lm" ? hand::HandSolver::Lm : hand::HandSolver::Fabrik;
  o.compare_lm = compare_lm;
  o.use_middle = use_middle_markers;
  o.backend = backend;
  o.calibration_frames = calibration_frames;
  o.out = out;
  o.summary_json = summary_json;
  o.urdf = urdf;
  o.errors = errors;
  const app::HandTrackResult r = released([&] { return app::runHandTrack(o); });
  const hand::HandTrial& trial = r.trials.front();
  const py::ssize_t n = static_cast<py::ssize_t>(trial.rows.size());
  py::array_t<double> q({n, py::ssize_t(nq(*r.model))}), times(n);
  py::array_t<bool> gaps(n);
  for (py::ssize_t k = 0; k < n; ++k) {
    const hand::HandTrialRow& row = trial.rows[static_cast<std::size_t>(k)];
    writeConfiguration(row.q, q.mutable_data() + k * q.shape(1));
    times.mutable_data()[k] = row.time;
    gaps.mutable_data()[k] = row.gap;
  }
  py::dict summary = py::module_::import("json").attr("loads")(app::summaryJson(r, o));
  summary["calibration_frames"] = py::make_tuple(r.calibration_first, r.calibration_end);
  return py::dict(py::arg("model") = std::make_shared<Model>(*r.model), py::arg("times") = times, py::arg("q") = q,
                  py::arg("gaps") = gaps, py::arg("summary") = summary);
}

}  // namespace

void bindHand(py::module_& m) {
  py::module_ fab =
      m.def_submodule("fabrik", "FABRIK: position-based IK over a tree of joint points (docs/fabrik.md).");
  py::class_<fabrik::Skeleton>(fab, "Skeleton", R"doc(
A tree of joint points: parents[j] is joint j's parent (-1 for joint 0 only, parent(j) < j), rest
(n, 3) joint positions in m fixing the bone lengths.)doc")
      .def(py::init([](std::vector<int> parents, ArrayLike rest) {
             const Array r = checkedArray(rest, {static_cast<py::ssize_t>(parents.size()), 3}, "rest");
             return std::make_unique<fabrik::Skeleton>(std::move(parents), restPositions(r));
           }),
           py::arg("parents"), py::arg("rest"))
      .def(
          "set_hinge",
          [](fabrik::Skeleton& s, int j, ArrayLike axis, double lo, double hi) {
            fabrik::JointConstraint c;
            c.type = fabrik::ConstraintType::Hinge;
            c.hinge_axis = toVector3(axis, "axis");
            c.min_angle = lo;
            c.max_angle = hi;
            s.setConstraint(j, c);
          },
          py::arg("joint"), py::arg("axis"), py::arg("min_angle"), py::arg("max_angle"),
          "A hinge at joint j: axis (3,) in the constraint frame (perpendicular to its z), range in rad.")
      .def(
          "set_ball",
          [](fabrik::Skeleton& s, int j, double cone, double min_twist, double max_twist) {
            fabrik::JointConstraint c;
            c.type = fabrik::ConstraintType::Ball;
            c.cone_angle = cone;
            c.min_twist = min_twist;
            c.max_twist = max_twist;
            s.setConstraint(j, c);
          },
          py::arg("joint"), py::arg("cone_angle"), py::arg("min_twist") = -fabrik::kPi,
          py::arg("max_twist") = fabrik::kPi, "A ball-and-socket at joint j: cone half-angle and twist range (rad).")
      .def("set_coupling", &fabrik::Skeleton::setCoupling, py::arg("distal"), py::arg("k"),
           "θ_distal = k·θ_parent for two hinges (k = 2/3 for a finger's DIP/PIP).")
      .def_property_readonly("size", &fabrik::Skeleton::size)
      .def("length", &fabrik::Skeleton::length, py::arg("joint"), "Bone length to joint j (m).");

  py::class_<fabrik::Result, ik::Result>(
      fab, "Result",
      "A kinetrack.Result: status converged, stationary (out of reach: unreachable; no progress after the "
      "restarts: stalled) or iteration_limit; iterations.")
      .def_readonly("error", &fabrik::Result::error, "largest target distance (m)")
      .def_readonly("unreachable", &fabrik::Result::unreachable, "a target lies beyond the bones' reach")
      .def_readonly("stalled", &fabrik::Result::stalled, "stopped at a stall after the last restart");
  py::class_<fabrik::Solver>(fab, "Solver", "FABRIK on one Skeleton; solve() moves positions (n, 3) in place.")
      .def(py::init<fabrik::Skeleton>(), py::arg("skeleton"))
      .def(
          "set_target", [](fabrik::Solver& s, int j, ArrayLike p) { s.setTarget(j, toVector3(p, "target")); },
          py::arg("joint"), py::arg("target"), "Target position (3,) in m of joint j.")
      .def("clear_target", &fabrik::Solver::clearTarget, py::arg("joint"))
      .def("clear_targets", &fabrik::Solver::clearTargets)
      .def("solve", &solvePy, py::arg("positions"), py::arg("tolerance") = 1e-6, py::arg("max_iterations") = 100,
           py::arg("root") = "fixed", py::arg("restarts") = 3, py::arg("stop_when_stalled") = false,
           "Moves positions (n, 3; writeable, C-contiguous float64, m) towards the targets in place, keeping bone "
           "lengths and constraints; root 'fixed' or 'free'; stop_when_stalled ends a solve that stalls after its "
           "restarts (status stationary, stalled) instead of iterating to the cap. Returns a fabrik.Result.")
      .def(
          "hinge_angle", [](const fabrik::Solver& s, int j) { return s.hingeAngle(j); }, py::arg("joint"), "rad");

  py::module_ hnd = m.def_submodule("hand", "The FABRIK hand tracker (FAB §3.4, docs/hand.md).");
  hnd.def("track_recording", &trackRecordingPy, py::arg("path"), py::arg("solver") = "fabrik",
          py::arg("use_middle_markers") = false, py::arg("backend") = "euclid",
          py::arg("calibration_frames") = py::none(), py::kw_only(), py::arg("compare_lm") = false, py::arg("out") = "",
          py::arg("summary_json") = "", py::arg("urdf") = "", py::arg("errors") = "",
          R"doc(`kinetrack hand track` (the same job): a Qualisys TSV glove recording is read, the hand model
calibrated from it and every frame tracked by FABRIK (solver "fabrik") or bounded Levenberg-Marquardt
marker IK ("lm"); compare_lm also runs LM (the summary's "lm"). out (joint CSV), summary_json, urdf
(the calibrated model), errors (per-frame CSV): the CLI's files.
calibration_frames (first, end): calibrate on frames [first, end) only (end -1: to the last frame);
the summary then has an "unseen" dict with the same figures over the other frames.
Returns a dict: model (the calibrated hand Model), times (N,), q (N, nq), gaps (N,), summary (dict:
the --summary-json fields: tip/middle-marker errors in mm, constraint violation, bone-length drift, µs
per frame, digits, …; calibration_frames as a tuple).
Releases the GIL.)doc");
}

}  // namespace kinetrack::python
