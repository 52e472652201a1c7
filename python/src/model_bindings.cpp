// kinetrack.Model (immutable, shared by solvers and threads) and kinetrack.Data (per thread).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/model_job.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"

namespace kinetrack::python {

void PyData::check(const Model& m) const {
  if (&m != model.get())
    throw py::value_error("data was built for model '" + model->name() + "', not for this model ('" + m.name() +
                          "'): use kinetrack.Data(model)");
}

namespace {

std::shared_ptr<Model> load(const std::string& name, std::optional<double> height, std::optional<double> mass,
                            bool fixed_base) {
  io::LoadedModel loaded;
  {
    py::gil_scoped_release release;
    loaded = io::loadModel(io::ModelSpec{name, height, fixed_base, mass});
  }
  if (!loaded.warnings.empty()) {
    py::object warn = py::module_::import("warnings").attr("warn");
    for (const std::string& w : loaded.warnings) warn(name + ": " + w);
  }
  return std::make_shared<Model>(std::move(loaded.model));
}

py::list jointTypes(const Model& m) {
  py::list l;
  for (int j = 0; j < m.numJoints(); ++j) l.append(toString(m.jointType(JointId(j))));
  return l;
}

py::array_t<double> jointAxes(const Model& m) {
  py::array_t<double> a({m.numJoints(), 3});
  auto r = a.mutable_unchecked<2>();
  for (int j = 0; j < m.numJoints(); ++j)
    for (int k = 0; k < 3; ++k) r(j, k) = m.jointAxis(JointId(j))[k];
  return a;
}

template <class F>
py::array_t<int> intArray(int n, F f) {
  py::array_t<int> a(n);
  for (int i = 0; i < n; ++i) a.mutable_data()[i] = f(i);
  return a;
}

// Read-only zero-copy views of a std::vector<Transform> (rotations (n, 3, 3), positions (n, 3)),
// alive as long as the owning Python object `base`.
static_assert(sizeof(Transform) == 12 * sizeof(double), "Transform must be R (9) then p (3) doubles");

py::array readOnly(py::array a) {
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

py::array rotationsView(const std::vector<Transform>& t, py::handle base) {
  const auto n = static_cast<py::ssize_t>(t.size());
  constexpr py::ssize_t d = sizeof(double);
  // Eigen's Matrix3d is column-major: R(r, c) sits at (3c + r) doubles.
  return readOnly(py::array(py::dtype::of<double>(), {n, py::ssize_t(3), py::ssize_t(3)},
                            {static_cast<py::ssize_t>(sizeof(Transform)), d, 3 * d}, t.front().R.data(), base));
}

py::array positionsView(const std::vector<Transform>& t, py::handle base) {
  const auto n = static_cast<py::ssize_t>(t.size());
  return readOnly(py::array(py::dtype::of<double>(), {n, py::ssize_t(3)},
                            {static_cast<py::ssize_t>(sizeof(Transform)), static_cast<py::ssize_t>(sizeof(double))},
                            t.front().p.data(), base));
}

// Model::geoms as a list of dicts (name, link, link_name, shape, size, rotation, position, mesh,
// collision, visual, rgba).
py::list geomList(const Model& self) {
  py::list out;
  for (const Geom& g : self.geoms()) {
    py::dict d;
    d["name"] = g.name;
    d["link"] = g.link.value;
    d["link_name"] = self.linkName(g.link);
    d["shape"] = toString(g.shape);
    d["size"] = toNumpy(g.size);
    d["rotation"] = toNumpy(g.placement.R);
    d["position"] = toNumpy(g.placement.p);
    d["mesh"] = g.mesh;
    d["collision"] = g.collision;
    d["visual"] = g.visual;
    d["rgba"] = toNumpy(g.rgba);
    out.append(d);
  }
  return out;
}

}  // namespace

void bindModel(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>> model(m, "Model", R"doc(
An immutable multibody model: a tree of links joined by 1-DoF joints (revolute, continuous,
prismatic, custom), a fixed or floating base, joint limits and named frames.

Build one with Model.human66(), Model.human48(), Model.builtin(name), Model.load(path) (URDF,
MJCF or OpenSim .osim). One model serves many Data objects and solvers (threads included).

Configuration vectors q have nq = 7 + num_joints entries: base position (m), base orientation as a
unit quaternion (w, x, y, z), joint coordinates (rad or m). Velocities have nv = nv_base + num_joints
entries: (base linear velocity, base angular velocity in the world frame, joint rates); nv_base is 6
for a floating base and 0 for a fixed one.)doc");
  model
      .def_static(
          "human66",
          [](double height, double mass, bool fixed_base, bool clinical_limits) {
            if (!clinical_limits) return load("human66", height, mass, fixed_base);
            HumanModelOptions o;
            o.dimensions = HumanDimensions::fromHeight(height);
            o.mass = mass;
            o.base = fixed_base ? BaseType::Fixed : BaseType::Floating;
            o.clinical_limits = true;
            return std::make_shared<Model>(makeHuman66(o));
          },
          py::arg("height") = 1.75, py::arg("mass") = kDefaultBodyMass, py::arg("fixed_base") = false,
          py::arg("clinical_limits") = false,
          "The 23-segment Xsens human with 22 spherical joints (66 DoF), segment lengths scaled to body height "
          "(m, 0.5-2.5) and de Leva mass properties scaled to body mass (kg, 20-300). clinical_limits: bounded "
          "joints (human48's limits widened by 15 deg on the axes human48 has, +-30 deg on the others), as the "
          "labeller uses it; default: continuous joints.")
      .def_static(
          "human48",
          [](double height, double mass, bool fixed_base) { return load("human48", height, mass, fixed_base); },
          py::arg("height") = 1.75, py::arg("mass") = kDefaultBodyMass, py::arg("fixed_base") = false,
          "The 48-DoF human with clinical joint axes and position limits (height in m, mass in kg).")
      .def_static(
          "builtin",
          [](const std::string& name, double height, double mass, bool fixed_base) {
            return load(name, height, mass, fixed_base);
          },
          py::arg("name"), py::arg("height") = 1.75, py::arg("mass") = kDefaultBodyMass, py::arg("fixed_base") = false,
          "A built-in model by name (see builtin_model_names()).")
      .def_static(
          "load",
          [](const std::string& path, bool fixed_base) { return load(path, std::nullopt, std::nullopt, fixed_base); },
          py::arg("path"), py::arg("fixed_base") = false,
          "A URDF file (floating base unless fixed_base), an MJCF file (.xml with a <mujoco> root or .mjcf: floating "
          "when a top-level body has a free joint, fixed otherwise or with fixed_base) or an OpenSim .osim model "
          "(fixed base at ground, Y up). "
          "Raises ParseError (file, line) for a missing or malformed file; reader warnings go to warnings.warn.")
      .def(
          "with_markers",
          [](const Model& self, const std::string& marker_set, std::optional<double> height) {
            io::MarkerSet set =
                marker_set.ends_with(".json") ? io::readMarkerSet(marker_set) : io::builtinMarkerSet(marker_set);
            if (height && set.reference_height > 0.0) set = io::scaledMarkerSet(set, *height);
            return std::make_shared<Model>(io::withMarkers(self, set));
          },
          py::arg("marker_set"), py::arg("height") = py::none(),
          "A copy with one frame per marker of a marker set (a built-in name, see marker_set_names(), or a "
          "JSON file); height (m) rescales a set written for another body height.")
      .def_property_readonly("name", &Model::name)
      .def_property_readonly(
          "up", [](const Model& self) { return toNumpy(self.up()); },
          "the world's up direction: +Z (kinetrack, URDF), +Y (OpenSim); marker data must match it")
      .def_property_readonly(
          "nq", [](const Model& self) { return nq(self); }, "7 + num_joints")
      .def_property_readonly("nv", &Model::nv, "nv_base + num_joints")
      .def_property_readonly("nv_base", &Model::nvBase, "6 for a floating base, 0 for a fixed one")
      .def_property_readonly("floating_base", [](const Model& self) { return self.baseType() == BaseType::Floating; })
      .def_property_readonly("num_joints", &Model::numJoints)
      .def_property_readonly("num_links", &Model::numLinks)
      .def_property_readonly("num_frames", &Model::numFrames)
      .def_property_readonly("joint_names", &Model::jointNames, "list of str, model order (q[7:] and v[nv_base:])")
      .def_property_readonly("link_names", &Model::linkNames, "list of str, parents before children")
      .def_property_readonly("frame_names", &Model::frameNames, "list of str")
      .def_property_readonly("joint_types", &jointTypes, "'revolute', 'continuous', 'prismatic' or 'custom' per joint")
      .def_property_readonly("joint_axes", &jointAxes, "(num_joints, 3): unit axis of each joint in its joint frame")
      .def_property_readonly(
          "lower_limits", [](const Model& self) { return toNumpy(self.lowerPositionLimits()); },
          "(num_joints,) position limits (rad or m); -inf when none")
      .def_property_readonly(
          "upper_limits", [](const Model& self) { return toNumpy(self.upperPositionLimits()); },
          "(num_joints,) position limits (rad or m); +inf when none")
      .def_property_readonly(
          "velocity_limits", [](const Model& self) { return toNumpy(self.upperVelocityLimits()); },
          "(num_joints,) velocity limits (rad/s or m/s); +inf when none")
      .def_property_readonly(
          "effort_limits", [](const Model& self) { return toNumpy(self.effortLimits()); },
          "(num_joints,) effort limits (N m or N); +inf when none")
      .def_property_readonly("total_mass", &Model::totalMass, "kg (0 for a kinematic model)")
      .def_property_readonly("geoms", &geomList,
                             "list of dict, one per geometric shape on a link (URDF <visual>/<collision>, MJCF "
                             "<geom>): name, link (index), link_name, shape ('sphere', 'capsule', 'cylinder', "
                             "'box', 'ellipsoid', 'mesh'), size (3,) (sphere: radius; capsule/cylinder: radius, "
                             "half-length along z; box: half extents; ellipsoid: semi-axes; mesh: scale), rotation "
                             "(3, 3) and position (3,) of the shape in the link frame, mesh (file path), collision, "
                             "visual, rgba (4,)")
      .def_property_readonly(
          "link_parents",
          [](const Model& self) {
            return intArray(self.numLinks(), [&](int l) { return self.parent(LinkId(l)).value; });
          },
          "(num_links,) parent link index, -1 for the root")
      .def_property_readonly(
          "frame_links",
          [](const Model& self) {
            return intArray(self.numFrames(), [&](int f) { return self.frameLink(FrameId(f)).value; });
          },
          "(num_frames,) link each frame is attached to")
      .def(
          "frame_id", [](const Model& self, const std::string& name) { return self.frameId(name).value; },
          py::arg("name"), "Index of a frame; ValueError listing the frames when unknown.")
      .def(
          "joint_id", [](const Model& self, const std::string& name) { return self.jointId(name).value; },
          py::arg("name"), "Index of a joint (q[7 + index], v[nv_base + index]).")
      .def(
          "link_id", [](const Model& self, const std::string& name) { return self.linkId(name).value; },
          py::arg("name"))
      .def(
          "link_mass", [](const Model& self, NameOrIndex link) { return self.inertial(toLinkId(self, link)).mass; },
          py::arg("link"), "Mass of a link (kg), by name or index.")
      .def(
          "neutral", [](const Model& self) { return configurationArray(Configuration(self)); },
          "(nq,) the zero configuration: base at the origin, identity orientation, joints 0.")
      .def(
          "to_urdf", [](const Model& self) { return io::toUrdf(self); }, "The model as URDF text.")
      .def("__repr__", [](const Model& self) {
        return "<kinetrack.Model '" + self.name() + "': " + std::to_string(self.numJoints()) + " joints, " +
               (self.baseType() == BaseType::Floating ? "floating" : "fixed") + " base, " +
               std::to_string(self.numFrames()) + " frames>";
      });

  m.def(
      "model_info",
      [](const std::string& model, std::optional<double> height, std::optional<double> mass, bool fixed_base) {
        const io::LoadedModel lm = released([&] { return app::loadModel({model, height, fixed_base, mass}); });
        return py::module_::import("json").attr("loads")(app::modelInfoJson(lm));
      },
      py::arg("model"), py::kw_only(), py::arg("height") = py::none(), py::arg("mass") = py::none(),
      py::arg("fixed_base") = false,
      "`kinetrack model info --json` (the same job): a model's report as a dict (name, source, height, mass, base, "
      "dof, nv, links with mass, com and inertia, joints with type, axis and limits, frames, linear constraints, "
      "mimics). model: a built-in name, or a URDF, MJCF or .osim path.");
  m.def("builtin_model_names", &builtinModelNames, "Names accepted by Model.builtin: human66, human48.");
  m.def("marker_set_names", &io::builtinMarkerSetNames, "Built-in marker sets for Model.with_markers.");
  m.def(
      "icub_for_retargeting",
      [](const Model& urdf, double shoulder_velocity, double torso_velocity) {
        return std::make_shared<Model>(icubForRetargeting(urdf, shoulder_velocity, torso_velocity));
      },
      py::arg("model"), py::arg("shoulder_velocity") = 2.0, py::arg("torso_velocity") = 1.0,
      "The iCub as the real robot is retargeted to: the URDF model plus the 14 coupled shoulder/forearm "
      "rows (COUPLING.md; hard limits of DYN and of PinDragIk) and the real robot's velocity limits (rad/s). "
      "ValueError when the model is not an iCub.");

  py::class_<PyData>(m, "Data", R"doc(
Per-thread kinematics workspace of one model, sized once: forward_kinematics writes into it and
frame_jacobian reads it. Use one Data per thread; never share one between threads.

Placements are read-only zero-copy views, valid after forward_kinematics (frames: with
update_frames=True, the default) and updated in place by the next call (copy them to keep them):
link_rotations (num_links, 3, 3) R_WL, link_positions (num_links, 3) p_WL in m, frame_rotations
(num_frames, 3, 3), frame_positions (num_frames, 3).)doc")
      .def(py::init([](std::shared_ptr<Model> model) { return std::make_unique<PyData>(std::move(model)); }),
           py::arg("model"))
      .def_property_readonly("model", [](const PyData& d) { return std::const_pointer_cast<Model>(d.model); })
      .def_property_readonly("link_rotations",
                             [](py::object self) { return rotationsView(self.cast<PyData&>().data.link, self); })
      .def_property_readonly("link_positions",
                             [](py::object self) { return positionsView(self.cast<PyData&>().data.link, self); })
      .def_property_readonly("frame_rotations",
                             [](py::object self) { return rotationsView(self.cast<PyData&>().data.frame, self); })
      .def_property_readonly("frame_positions",
                             [](py::object self) { return positionsView(self.cast<PyData&>().data.frame, self); });
}

}  // namespace kinetrack::python
