// Pin-and-drag whole-body IK (NAK, Eq. 6–12): PinDragIk, its options, modes, roles and result.
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "options.hpp"

namespace kinetrack::python {

namespace {

// The solver with the model it points to kept alive.
struct PyPinDrag {
  PyPinDrag(std::shared_ptr<const Model> m, const PinDragOptions& o) : model(std::move(m)), ik(*model, o) {}
  std::shared_ptr<const Model> model;
  PinDragIk ik;
};

}  // namespace

void bindPinDrag(py::module_& m) {
  py::enum_<PinDragMode>(m, "PinDragMode", "What of a link is pinned or dragged.")
      .value("position", PinDragMode::Position)
      .value("orientation", PinDragMode::Orientation)
      .value("pose", PinDragMode::Pose);
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

  py::class_<PinDragResult>(m, "PinDragResult", "One PinDragIk update.")
      .def_readonly("pin_position_error", &PinDragResult::pin_position_error, "m, after the step")
      .def_readonly("pin_orientation_error", &PinDragResult::pin_orientation_error, "rad, after the step")
      .def_readonly("drag_error", &PinDragResult::drag_error, "m (rad for orientation-only drags)")
      .def_readonly("drag_damping", &PinDragResult::drag_damping)
      .def_readonly("sr_damping", &PinDragResult::sr_damping)
      .def_readonly("velocity_scale", &PinDragResult::velocity_scale)
      .def_readonly("locked_joints", &PinDragResult::locked_joints)
      .def_readonly("aux_rows", &PinDragResult::aux_rows)
      .def_readonly("active_rows", &PinDragResult::active_rows)
      .def_readonly("row_violation", &PinDragResult::row_violation);

  py::class_<PyPinDrag> cls(m, "PinDragIk", R"doc(
Pin-and-drag whole-body IK (Nakamura, Eq. 6-12): drag links follow targets through a weighted
pseudo-inverse; pinned links are held in its null space by the singularity-robust inverse.

    ik = kinetrack.PinDragIk(model)
    ik.pin("RightToe", kinetrack.PinDragMode.pose)
    ik.drag("RightHand")
    ik.set_drag_target("RightHand", [0.3, -0.2, 1.2])
    result = ik.update(0.01)                # PinDragResult
    q, v = ik.state, ik.velocity            # (nq,), (nv,))doc");
  cls.def(py::init([](std::shared_ptr<Model> model, std::optional<PinDragOptions> options) {
            return std::make_unique<PyPinDrag>(std::shared_ptr<const Model>(std::move(model)),
                                               options.value_or(PinDragOptions{}));
          }),
          py::arg("model"), py::arg("options") = py::none())
      .def_property_readonly("options", [](const PyPinDrag& s) { return s.ik.options(); })
      .def_property_readonly(
          "state", [](const PyPinDrag& s) { return configurationArray(s.ik.state()); }, "(nq,) the configuration")
      .def(
          "set_state", [](PyPinDrag& s, ArrayLike q) { s.ik.setState(toConfiguration(*s.model, q)); }, py::arg("q"))
      .def_property_readonly(
          "velocity", [](const PyPinDrag& s) { return toNumpy(s.ik.velocity()); }, "(nv,) ν of the last update")
      .def_property_readonly(
          "velocity_limits", [](const PyPinDrag& s) { return toNumpy(s.ik.velocityLimits()); },
          "(nv,) the velocity limits update() enforces")
      .def(
          "pin",
          [](PyPinDrag& s, py::handle frame, PinDragMode mode, std::optional<double> gain, ArrayLike position,
             ArrayLike rotation) {
            const FrameId f = toFrameId(*s.model, frame);
            if (position.is_none() && rotation.is_none()) {
              s.ik.pin(f, mode, gain);
              return;
            }
            const Vector3d p = position.is_none() ? Vector3d::Zero() : toVector3(position, "position");
            const Matrix3d R = rotation.is_none() ? Matrix3d::Identity() : toRotation(rotation, "rotation");
            s.ik.pinAt(f, p, R, mode, gain);
          },
          py::arg("frame"), py::arg("mode") = PinDragMode::Position, py::arg("gain") = py::none(),
          py::arg("position") = py::none(), py::arg("rotation") = py::none(),
          "Pins a frame (name or index) where it is, or at position (3,) m / rotation (3, 3) or (w, x, y, z). "
          "gain (1/s) None: options.pin_gain.")
      .def(
          "drag",
          [](PyPinDrag& s, py::handle frame, PinDragMode mode, std::optional<double> gain) {
            s.ik.drag(toFrameId(*s.model, frame), mode, gain);
          },
          py::arg("frame"), py::arg("mode") = PinDragMode::Position, py::arg("gain") = py::none(),
          "Makes a frame a drag link; its target starts where it is.")
      .def(
          "set_drag_target",
          [](PyPinDrag& s, py::handle frame, ArrayLike position, ArrayLike velocity) {
            const Vector3d v = velocity.is_none() ? Vector3d::Zero() : toVector3(velocity, "velocity");
            s.ik.setDragTarget(toFrameId(*s.model, frame), toVector3(position, "position"), v);
          },
          py::arg("frame"), py::arg("position"), py::arg("velocity") = py::none(), "Target (3,) m, velocity (3,) m/s.")
      .def(
          "set_drag_orientation",
          [](PyPinDrag& s, py::handle frame, ArrayLike rotation) {
            s.ik.setDragOrientation(toFrameId(*s.model, frame), toRotation(rotation, "rotation"));
          },
          py::arg("frame"), py::arg("rotation"))
      .def(
          "release", [](PyPinDrag& s, py::handle frame) { s.ik.release(toFrameId(*s.model, frame)); }, py::arg("frame"))
      .def("release_all", [](PyPinDrag& s) { s.ik.releaseAll(); })
      .def(
          "role", [](const PyPinDrag& s, py::handle frame) { return s.ik.role(toFrameId(*s.model, frame)); },
          py::arg("frame"))
      .def(
          "set_desired_joints",
          [](PyPinDrag& s, ArrayLike v) { s.ik.setDesiredJoints(toVector(v, s.model->numJoints(), "desired joints")); },
          py::arg("joints"))
      .def(
          "set_joint_mobility",
          [](PyPinDrag& s, ArrayLike v) { s.ik.setJointMobility(toVector(v, s.model->numJoints(), "mobility")); },
          py::arg("mobility"))
      .def(
          "update", [](PyPinDrag& s, double dt) { return s.ik.update(dt); }, py::arg("dt"),
          "One step of Eq. 6-12 over dt > 0 seconds; returns a PinDragResult.");
}

}  // namespace kinetrack::python
