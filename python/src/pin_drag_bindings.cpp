// Pin-and-drag whole-body IK (NAK, Eq. 6–12): ik::PinDragIk, its options, roles and result; pins
// and drags are TaskSets (kinetrack.TaskSet), the mode a TargetType (PinDragMode is its alias).
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "options.hpp"

namespace kinetrack::python {

namespace {

using ik::PinDragIk;
using ik::PinDragOptions;
using ik::PinDragResult;
using ik::PinDragRole;

// A mode: a TargetType (kinetrack.PinDragMode) or its name ("position", "orientation", "pose").
TargetType toMode(py::handle mode) {
  if (py::isinstance<py::str>(mode)) {
    const auto name = mode.cast<std::string>();
    if (name == "position") return TargetType::Position;
    if (name == "orientation") return TargetType::Orientation;
    if (name == "pose") return TargetType::Pose;
    throw py::value_error("mode: expected 'position', 'orientation' or 'pose', got '" + name + "'");
  }
  return mode.cast<TargetType>();
}

}  // namespace

void bindPinDrag(py::module_& m) {
  m.attr("PinDragMode") = m.attr("TargetType");  // the mode of a pin or drag is its task's type
  py::enum_<PinDragRole>(m, "PinDragRole")
      .value("free", PinDragRole::Free)
      .value("pinned", PinDragRole::Pinned)
      .value("dragged", PinDragRole::Dragged);

  py::class_<PinDragOptions> opts(m, "PinDragOptions", "Options of PinDragIk (units per field; defaults as in C++).");
  opts.def_readwrite("drag_gain", &PinDragOptions::drag_gain, "K_P (1/s)")
      .def_readwrite("pin_gain", &PinDragOptions::pin_gain, "K_F of Eq. 8 (1/s)")
      .def_readwrite("limit_return_gain", &PinDragOptions::limit_return_gain, "K_L (1/s)")
      .def_readwrite("limit_margin", &PinDragOptions::limit_margin, "rad or m")
      .def_readwrite("posture_gain", &PinDragOptions::posture_gain, "K_D (1/s); 0 = off")
      .def_readwrite("sr_max_damping", &PinDragOptions::sr_max_damping, "k0 of the SR-inverse")
      .def_readwrite("sr_threshold", &PinDragOptions::sr_threshold, "w0 of the SR-inverse")
      .def_readwrite("max_joint_velocity", &PinDragOptions::max_joint_velocity, "rad/s or m/s")
      .def_readwrite("max_base_linear_velocity", &PinDragOptions::max_base_linear_velocity, "m/s")
      .def_readwrite("max_base_angular_velocity", &PinDragOptions::max_base_angular_velocity, "rad/s")
      .def_readwrite("base_mobility", &PinDragOptions::base_mobility, "0 fixes the base")
      .def_readwrite("max_lock_passes", &PinDragOptions::max_lock_passes);
  keywordInit(opts);

  py::class_<PinDragResult, ik::Result>(m, "PinDragResult", R"doc(
One PinDragIk update. status: converged (step taken), iteration_limit (the lock passes ran out: a
joint clipped onto its limit or a model row left), failed (non-finite velocity: state held);
iterations: lock passes; mnte, limit_violation, row_violation after the step.)doc")
      .def_readonly("pin_position_error", &PinDragResult::pin_position_error, "m, after the step")
      .def_readonly("pin_orientation_error", &PinDragResult::pin_orientation_error, "rad, after the step")
      .def_readonly("drag_error", &PinDragResult::drag_error, "m (rad for orientation-only drags)")
      .def_readonly("drag_damping", &PinDragResult::drag_damping)
      .def_readonly("sr_damping", &PinDragResult::sr_damping)
      .def_readonly("velocity_scale", &PinDragResult::velocity_scale)
      .def_readonly("locked_joints", &PinDragResult::locked_joints)
      .def_readonly("aux_rows", &PinDragResult::aux_rows)
      .def_readonly("active_rows", &PinDragResult::active_rows);

  py::class_<PinDragIk> cls(m, "PinDragIk", R"doc(
Pin-and-drag whole-body IK (Nakamura, Eq. 6-12): drag links follow targets through a weighted
pseudo-inverse; pinned links are held in its null space by the singularity-robust inverse. Pins
and drags are TaskSets (ik.pins, ik.drags: the value set is the reference or target, the velocity
the feed-forward, the gain K_F or K_P); pin/drag/release are shortcuts over them.

    ik = kinetrack.PinDragIk(model)
    ik.pin("RightToe", "pose")              # or kinetrack.PinDragMode.pose
    ik.drag("RightHand")
    ik.set_drag_target("RightHand", [0.3, -0.2, 1.2])
    result = ik.update(0.01)                # PinDragResult
    q, v = ik.state, ik.velocity            # (nq,), (nv,))doc");
  cls.def(py::init([](std::shared_ptr<Model> model, std::optional<PinDragOptions> options) {
            return std::make_unique<PinDragIk>(std::shared_ptr<const Model>(std::move(model)),
                                               options.value_or(PinDragOptions{}));
          }),
          py::arg("model"), py::arg("options") = py::none())
      .def_property_readonly("model",
                             [](const PinDragIk& s) { return std::const_pointer_cast<Model>(s.sharedModel()); })
      .def_property_readonly("options", [](const PinDragIk& s) { return s.options(); })
      .def_property_readonly(
          "pins", [](PinDragIk& s) -> ik::TaskSet& { return s.pins(); }, py::return_value_policy::reference_internal,
          "The pins' TaskSet: the value set is the reference, the gain K_F (1/s).")
      .def_property_readonly(
          "drags", [](PinDragIk& s) -> ik::TaskSet& { return s.drags(); }, py::return_value_policy::reference_internal,
          "The drags' TaskSet: the value set is the target, its velocity the feed-forward, the gain K_P (1/s).")
      .def_property_readonly(
          "state", [](const PinDragIk& s) { return configurationArray(s.state()); }, "(nq,) the configuration")
      .def(
          "set_state", [](PinDragIk& s, ArrayLike q) { s.setState(toConfiguration(s.model(), q)); }, py::arg("q"))
      .def_property_readonly(
          "velocity", [](const PinDragIk& s) { return toNumpy(s.velocity()); }, "(nv,) ν of the last update")
      .def_property_readonly(
          "velocity_limits", [](const PinDragIk& s) { return toNumpy(s.velocityLimits()); },
          "(nv,) the velocity limits update() enforces")
      .def(
          "pin",
          [](PinDragIk& s, py::handle frame, py::handle mode, std::optional<double> gain, ArrayLike position,
             ArrayLike rotation) {
            const FrameId f = toFrameId(s.model(), frame);
            if (position.is_none() && rotation.is_none()) return s.pin(f, toMode(mode), gain).value;
            const Vector3d p = position.is_none() ? Vector3d::Zero() : toVector3(position, "position");
            const Matrix3d R = rotation.is_none() ? Matrix3d::Identity() : toRotation(rotation, "rotation");
            return s.pinAt(f, p, R, toMode(mode), gain).value;
          },
          py::arg("frame"), py::arg("mode") = TargetType::Position, py::arg("gain") = py::none(),
          py::arg("position") = py::none(), py::arg("rotation") = py::none(),
          "Pins a frame (name or index) where it is, or at position (3,) m / rotation (3, 3) or (w, x, y, z). "
          "mode: PinDragMode or 'position', 'orientation', 'pose'; gain (1/s) None: options.pin_gain. Returns the "
          "task's id in pins.")
      .def(
          "drag",
          [](PinDragIk& s, py::handle frame, py::handle mode, std::optional<double> gain) {
            return s.drag(toFrameId(s.model(), frame), toMode(mode), gain).value;
          },
          py::arg("frame"), py::arg("mode") = TargetType::Position, py::arg("gain") = py::none(),
          "Makes a frame a drag link; its target starts where it is. Returns the task's id in drags.")
      .def(
          "set_drag_target",
          [](PinDragIk& s, py::handle frame, ArrayLike position, ArrayLike velocity) {
            const Vector3d v = velocity.is_none() ? Vector3d::Zero() : toVector3(velocity, "velocity");
            s.setDragTarget(toFrameId(s.model(), frame), toVector3(position, "position"), v);
          },
          py::arg("frame"), py::arg("position"), py::arg("velocity") = py::none(), "Target (3,) m, velocity (3,) m/s.")
      .def(
          "set_drag_orientation",
          [](PinDragIk& s, py::handle frame, ArrayLike rotation) {
            s.setDragOrientation(toFrameId(s.model(), frame), toRotation(rotation, "rotation"));
          },
          py::arg("frame"), py::arg("rotation"))
      .def(
          "release", [](PinDragIk& s, py::handle frame) { s.release(toFrameId(s.model(), frame)); }, py::arg("frame"))
      .def("release_all", &PinDragIk::releaseAll)
      .def(
          "role", [](const PinDragIk& s, py::handle frame) { return s.role(toFrameId(s.model(), frame)); },
          py::arg("frame"))
      .def(
          "set_desired_joints",
          [](PinDragIk& s, ArrayLike v) { s.setDesiredJoints(toVector(v, s.model().numJoints(), "desired joints")); },
          py::arg("joints"))
      .def(
          "set_joint_mobility",
          [](PinDragIk& s, ArrayLike v) { s.setJointMobility(toVector(v, s.model().numJoints(), "mobility")); },
          py::arg("mobility"))
      .def("update", &PinDragIk::update, py::arg("dt"),
           "One step of Eq. 6-12 over dt > 0 seconds; returns a PinDragResult.");
}

}  // namespace kinetrack::python
