// Rigid-body dynamics (RNEA, CRBA, ABA, centre of mass, energy, momentum) as free functions over
// (model, DynamicsData, …), generalised coordinates as in kinematics: q (nq,), v and a (nv,).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/simulate_job.hpp"
#include "kinetrack/dynamics/rigid_body.hpp"

namespace kinetrack::python {
namespace {

/// kinetrack.DynamicsData: the C++ workspace plus converted inputs, sized once.
struct PyDynamicsData {
  explicit PyDynamicsData(std::shared_ptr<const Model> m)
      : model(std::move(m)), data(*model), q(*model), v(model->nv()), a(model->nv()) {}
  std::shared_ptr<const Model> model;
  DynamicsData data;
  Configuration q;
  VectorXd v, a;
  std::vector<ExternalWrench> wrenches;

  void check(const Model& m) const {
    if (&m != model.get()) throw py::value_error("dynamics data was built for another model: DynamicsData(model)");
  }
  void read(const Model& m, py::handle q_in, py::handle v_in, const char* a_name, py::handle a_in) {
    check(m);
    readConfiguration(m, q_in, q);
    if (!v_in.is_none()) v = Eigen::Map<const VectorXd>(checkedArray(v_in, {m.nv()}, "v").data(), m.nv());
    if (!a_in.is_none()) a = Eigen::Map<const VectorXd>(checkedArray(a_in, {m.nv()}, a_name).data(), m.nv());
  }
  // External wrenches from a list of dicts {link, force, point, moment} (world frame, N, m, N m).
  void readWrenches(const Model& m, const std::optional<py::list>& list) {
    wrenches.clear();
    if (!list) return;
    for (const py::handle item : *list) {
      const py::dict w = py::reinterpret_borrow<py::dict>(item);
      ExternalWrench e;
      e.link = toLinkId(m, w["link"]);
      if (w.contains("force")) e.force = toVector3(w["force"], "wrench force");
      if (w.contains("point")) e.point = toVector3(w["point"], "wrench point");
      if (w.contains("moment")) e.moment = toVector3(w["moment"], "wrench moment");
      wrenches.push_back(e);
    }
  }
};

Vector3d gravityOf(py::handle g) { return g.is_none() ? kStandardGravity : toVector3(g, "gravity"); }

constexpr const char* kWrenchDoc =
    " wrenches: optional list of dicts {'link': name or index, 'force': (3,) N, 'point': (3,) m, 'moment': (3,) "
    "N m}, world frame. gravity: (3,) m/s², default (0, 0, -9.80665).";

}  // namespace

void bindDynamics(py::module_& m) {
  py::class_<PyDynamicsData>(m, "DynamicsData",
                             "Per-thread workspace of the dynamics functions for one model (sized once). Raises "
                             "ValueError for non-physical mass properties.")
      .def(py::init([](std::shared_ptr<Model> model) { return std::make_unique<PyDynamicsData>(std::move(model)); }),
           py::arg("model"));
  m.def(
      "rnea",
      [](const Model& model, PyDynamicsData& d, ArrayLike q, ArrayLike v, ArrayLike a, std::optional<py::list> wrenches,
         ArrayLike gravity) {
        d.read(model, q, v, "a", a);
        d.readWrenches(model, wrenches);
        return toNumpy(rnea(model, d.data, d.q, d.v, d.a, d.wrenches, gravityOf(gravity)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("a"), py::arg("wrenches") = py::none(),
      py::arg("gravity") = py::none(),
      (std::string("Inverse dynamics τ = M(q) a + h(q, v) − Σ Jᵀw (nv,): base residual (force N; moment N m "
                   "about p_B, world frame) then joint torques (N m) or forces (N).") +
       kWrenchDoc)
          .c_str());
  m.def(
      "crba",
      [](const Model& model, PyDynamicsData& d, ArrayLike q) {
        d.read(model, q, py::none(), "a", py::none());
        return toNumpy(crba(model, d.data, d.q));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "The joint-space mass matrix M(q) (nv, nv), symmetric.");
  m.def(
      "nonlinear_effects",
      [](const Model& model, PyDynamicsData& d, ArrayLike q, ArrayLike v, ArrayLike gravity) {
        d.read(model, q, v, "a", py::none());
        return toNumpy(nonlinearEffects(model, d.data, d.q, d.v, gravityOf(gravity)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("gravity") = py::none(),
      "h(q, v) (nv,): Coriolis, centrifugal and gravity terms.");
  m.def(
      "aba",
      [](const Model& model, PyDynamicsData& d, ArrayLike q, ArrayLike v, ArrayLike tau,
         std::optional<py::list> wrenches, ArrayLike gravity) {
        d.read(model, q, v, "tau", tau);
        d.readWrenches(model, wrenches);
        return toNumpy(aba(model, d.data, d.q, d.v, d.a, d.wrenches, gravityOf(gravity)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("wrenches") = py::none(),
      py::arg("gravity") = py::none(),
      (std::string("Forward dynamics a = M⁻¹(τ + Σ Jᵀw − h) (nv,) by articulated bodies.") + kWrenchDoc).c_str());
  m.def(
      "center_of_mass",
      [](const Model& model, PyDynamicsData& d, ArrayLike q) {
        d.read(model, q, py::none(), "a", py::none());
        return toNumpy(centerOfMass(model, d.data, d.q));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "Whole-body centre of mass (3,) in m, world frame.");
  m.def(
      "kinetic_energy",
      [](const Model& model, PyDynamicsData& d, ArrayLike q, ArrayLike v) {
        d.read(model, q, v, "a", py::none());
        return kineticEnergy(model, d.data, d.q, d.v);
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "½ vᵀ M v in J.");
  m.def(
      "spatial_momentum",
      [](const Model& model, PyDynamicsData& d, ArrayLike q, ArrayLike v) {
        d.read(model, q, v, "a", py::none());
        const Vector6d h = spatialMomentum(model, d.data, d.q, d.v);
        return toNumpy(h);
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
      "(6,) whole-body momentum about the world origin: angular (kg m²/s) then linear (kg m/s).");
  m.def(
      "simulate",
      [](py::object model, double duration, double step, double rate, const std::string& integrator, double gravity,
         const std::string& initial, double base_height, double velocity, unsigned seed,
         const std::vector<std::string>& holds, double posture_gain, const std::string& solver,
         const std::string& schedule, int threads, int refine, const std::string& out) {
        app::SimulateOptions o;
        if (!py::isinstance<py::str>(model))
          throw py::type_error("model: a built-in model name or a URDF path (as `kinetrack simulate --model`)");
        o.model.model = model.cast<std::string>();
        o.duration = duration, o.step = step, o.rate = rate, o.integrator = integrator, o.gravity = gravity;
        o.initial = initial, o.base_height = base_height, o.velocity = velocity, o.seed = seed;
        for (const std::string& h : holds) o.holds.push_back(app::parseHold(h));
        o.posture_gain = posture_gain, o.solver = solver, o.schedule = schedule, o.threads = threads;
        o.refine = refine, o.out = out;
        const app::SimulateResult r = released([&] { return app::runSimulate(o); });
        const py::ssize_t n = static_cast<py::ssize_t>(r.q.size());
        py::array_t<double> q({n, py::ssize_t(nq(*r.model))});
        for (py::ssize_t k = 0; k < n; ++k)
          writeConfiguration(r.q[static_cast<std::size_t>(k)], q.mutable_data() + k * q.shape(1));
        return py::dict(py::arg("times") = doubles(r.times), py::arg("q") = q,
                        py::arg("energy_change") = doubles(r.energy_change),
                        py::arg("hold_drift") = doubles(r.hold_drift), py::arg("steps") = r.steps,
                        py::arg("hold_force_z") = r.hold_force_z, py::arg("diverged") = r.diverged,
                        py::arg("summary") = app::summaryText(r, o));
      },
      py::arg("model"), py::kw_only(), py::arg("duration") = 2.0, py::arg("step") = 1e-3, py::arg("rate") = 100.0,
      py::arg("integrator") = "rk4", py::arg("gravity") = 9.80665, py::arg("initial") = "zero",
      py::arg("base_height") = 0.0, py::arg("velocity") = 0.0, py::arg("seed") = 1,
      py::arg("holds") = std::vector<std::string>{}, py::arg("posture_gain") = 0.0, py::arg("solver") = "auto",
      py::arg("schedule") = "serial", py::arg("threads") = 1, py::arg("refine") = 1, py::arg("out") = "",
      R"doc(`kinetrack simulate` (the same job): forward dynamics of a built-in model or URDF, ABA or the
assembly–disassembly method with held frames (holds: "FRAME" or "FRAME@T", let go at T s),
initial "zero", "random" or a joint CSV, a random initial velocity (std per coordinate, projected
onto what the holds allow), PD holding the initial posture (posture_gain rad/s). out: the joint
CSV. Returns a dict: times (R,), q (R, nq) at the output rate, energy_change (R,) J, hold_drift
(R,) m, steps, hold_force_z (per hold, N), diverged (why it stopped early, or ""), summary.)doc");
}

}  // namespace kinetrack::python
