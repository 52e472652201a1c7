// The dynamics filter (NAK Eq. 1–5): kinetrack.DynamicsFilter (step per frame), filter_motion
// (a whole motion) and foot_contacts. Configurations as in kinematics: q (nq,), v and a (nv,).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/dynamics/dynamics_filter.hpp"

namespace kinetrack::python {
namespace {

py::list contactsToList(const Model& m, const std::vector<ContactBody>& contacts) {
  py::list out;
  for (const ContactBody& b : contacts) {
    py::dict d;
    d["name"] = b.name;
    d["link"] = m.linkName(b.link);
    py::array_t<double> p({static_cast<py::ssize_t>(b.points.size()), py::ssize_t{3}});
    for (std::size_t i = 0; i < b.points.size(); ++i)
      for (int k = 0; k < 3; ++k) p.mutable_at(static_cast<py::ssize_t>(i), k) = b.points[i][k];
    d["points"] = p;
    out.append(d);
  }
  return out;
}

std::vector<ContactBody> contactsFromList(const Model& m, const py::list& list) {
  std::vector<ContactBody> out;
  for (const py::handle item : list) {
    const py::dict d = py::reinterpret_borrow<py::dict>(item);
    ContactBody b;
    b.link = toLinkId(m, d["link"]);
    b.name = d.contains("name") ? py::str(d["name"]).cast<std::string>() : m.linkName(b.link);
    const auto pts = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(d["points"]);
    if (!pts || pts.ndim() != 2 || pts.shape(1) != 3) throw py::value_error("contact points must be (k, 3)");
    for (py::ssize_t i = 0; i < pts.shape(0); ++i) b.points.emplace_back(pts.at(i, 0), pts.at(i, 1), pts.at(i, 2));
    out.push_back(std::move(b));
  }
  return out;
}

py::dict frameDict(const Model& m, const DynamicsFilterFrame& f) {
  py::dict d;
  d["status"] = toString(f.status);
  d["q"] = configurationArray(f.q);
  d["v"] = toNumpy(f.v);
  d["acceleration"] = toNumpy(f.acceleration);
  d["desired"] = toNumpy(f.desired);
  d["change"] = toNumpy(f.change);
  d["tau"] = toNumpy(f.tau);
  d["residual_before"] = toNumpy(f.residual_before);
  d["residual_after"] = toNumpy(f.residual_after);
  d["in_contact"] = doubles(f.in_contact);
  py::array_t<double> forces({static_cast<py::ssize_t>(f.wrenches.size()), py::ssize_t{3}});
  for (std::size_t b = 0; b < f.wrenches.size(); ++b)
    for (int k = 0; k < 3; ++k) forces.mutable_at(static_cast<py::ssize_t>(b), k) = f.wrenches[b].force[k];
  d["contact_forces"] = forces;
  d["binding_unilateral"] = f.binding_unilateral;
  d["binding_friction"] = f.binding_friction;
  (void)m;
  return d;
}

// kinetrack.DynamicsFilter: the C++ filter plus converted inputs.
struct PyDynamicsFilter {
  std::unique_ptr<DynamicsFilter> filter;
  Configuration q;
  VectorXd v, a;
  std::vector<std::uint8_t> flags;
};

}  // namespace

void bindDynamicsFilter(py::module_& m) {
  m.def(
      "foot_contacts",
      [](std::shared_ptr<Model> model, ArrayLike up) {
        const Vector3d u = up.is_none() ? Vector3d::UnitZ() : toVector3(up, "up");
        return contactsToList(*model, footContacts(*model, u));
      },
      py::arg("model"), py::arg("up") = py::none(),
      "The two feet of a built-in human or OpenSim gait model: list of {'name', 'link', 'points' (4, 3) m in the "
      "link frame}. Raises ValueError for other models.");
  py::class_<PyDynamicsFilter>(
      m, "DynamicsFilter",
      "Nakamura's dynamics filter (docs/dynamics_filter.md): per frame, resolved-acceleration feedback to the "
      "reference, skyhook on the head, the least acceleration change (weighted, Eq. 3–5) that removes the residual "
      "base wrench with unilateral contact forces inside a friction pyramid, forward integration.")
      .def(py::init([](std::shared_ptr<Model> model, std::optional<py::list> contacts, py::object head,
                       const std::string& contact_source, double friction, double kp, double kd, double contact_height,
                       double contact_speed, ArrayLike ground_normal, double ground_offset, ArrayLike gravity,
                       std::optional<std::vector<int>> unactuated, bool residual_before, bool pin_contacts) {
             DynamicsFilterOptions o;
             if (!head.is_none()) o.head = toLinkId(*model, head);
             if (contact_source != "detect" && contact_source != "given")
               throw py::value_error("contact_source must be 'detect' or 'given'");
             o.contact_source = contact_source == "given" ? ContactSource::Given : ContactSource::Detect;
             o.friction = friction;
             o.kp_base = o.kp_joint = kp;
             o.kd_base = o.kd_joint = kd;
             o.contact_height = contact_height;
             o.contact_speed = contact_speed;
             if (!ground_normal.is_none()) o.ground.normal = toVector3(ground_normal, "ground_normal");
             o.ground.offset = ground_offset;
             if (!gravity.is_none()) o.gravity = toVector3(gravity, "gravity");
             if (unactuated) o.unactuated = *unactuated;
             o.residual_before = residual_before;
             o.pin_contacts = pin_contacts;
             std::vector<ContactBody> c = contacts ? contactsFromList(*model, *contacts) : footContacts(*model);
             auto f = std::make_unique<PyDynamicsFilter>();
             f->filter = std::make_unique<DynamicsFilter>(model, std::move(c), o);
             f->q = Configuration(*model);
             f->v = VectorXd::Zero(model->nv());
             f->a = VectorXd::Zero(model->nv());
             return f;
           }),
           py::arg("model"), py::arg("contacts") = py::none(), py::arg("head") = py::none(),
           py::arg("contact_source") = "detect", py::arg("friction") = 0.8, py::arg("kp") = 100.0, py::arg("kd") = 20.0,
           py::arg("contact_height") = 0.05, py::arg("contact_speed") = 0.8, py::arg("ground_normal") = py::none(),
           py::arg("ground_offset") = 0.0, py::arg("gravity") = py::none(), py::arg("unactuated") = py::none(),
           py::arg("residual_before") = true, py::arg("pin_contacts") = true,
           "contacts: list of {'link', 'points'} (default foot_contacts(model)); head: link for the skyhook (None: "
           "off); kp (1/s²), kd (1/s): feedback on every coordinate; friction μ; contact thresholds (m, m/s); "
           "pin_contacts: held contacts lose their velocity within the step (no slide; False: Baumgarte "
           "contact_kd).")
      .def(
          "reset",
          [](PyDynamicsFilter& f, ArrayLike q, ArrayLike v) {
            const Model& model = f.filter->model();
            readConfiguration(model, q, f.q);
            f.v = toVector(v, model.nv(), "v");
            f.filter->reset(f.q, f.v);
          },
          py::arg("q"), py::arg("v"), "Start from (q, v); contacts released.")
      .def(
          "step",
          [](PyDynamicsFilter& f, ArrayLike q, ArrayLike v, ArrayLike a, double dt,
             std::optional<std::vector<int>> contact) {
            const Model& model = f.filter->model();
            readConfiguration(model, q, f.q);
            f.v = toVector(v, model.nv(), "v");
            f.a = toVector(a, model.nv(), "a");
            f.flags.clear();
            if (contact) f.flags.assign(contact->begin(), contact->end());
            return frameDict(model, f.filter->step(f.q, f.v, f.a, dt, f.flags));
          },
          py::arg("q"), py::arg("v"), py::arg("a"), py::arg("dt"), py::arg("contact") = py::none(),
          "One frame (reference q, v, a; step dt s; contact flags per body with contact_source='given'): dict with "
          "status, q, v, acceleration, tau, residual_before, residual_after (unactuated rows), in_contact, "
          "contact_forces (bodies, 3) N, binding_unilateral, binding_friction.");
  m.def(
      "filter_motion",
      [](PyDynamicsFilter& f, ArrayLike qs, ArrayLike times, std::optional<std::vector<int>> contact) {
        const Model& model = f.filter->model();
        const auto Q = checkedArray(qs, {-1, nq(model)}, "qs");
        const auto n = Q.shape(0);
        const VectorXd t = toVector(times, n, "times");
        std::vector<Configuration> q(static_cast<std::size_t>(n), Configuration(model));
        for (py::ssize_t k = 0; k < n; ++k)
          readConfiguration(model, Q.data() + k * nq(model), q[static_cast<std::size_t>(k)]);
        const std::vector<double> tv(t.data(), t.data() + n);
        std::vector<std::uint8_t> flags;
        if (contact) flags.assign(contact->begin(), contact->end());
        const FilteredMotion out = released([&] { return filterMotion(*f.filter, q, tv, flags); });
        const auto nu = static_cast<py::ssize_t>(f.filter->unactuated().size());
        py::array_t<double> qo({n, static_cast<py::ssize_t>(nq(model))}),
            tau({n, static_cast<py::ssize_t>(model.nv())}), rb({n, nu}), ra({n, nu});
        py::list status;
        for (py::ssize_t k = 0; k < n; ++k) {
          const DynamicsFilterFrame& fr = out.frames[static_cast<std::size_t>(k)];
          writeConfiguration(fr.q, qo.mutable_data(k, 0));
          for (int i = 0; i < model.nv(); ++i) tau.mutable_at(k, i) = fr.tau[i];
          for (py::ssize_t i = 0; i < nu; ++i)
            rb.mutable_at(k, i) = fr.residual_before[i], ra.mutable_at(k, i) = fr.residual_after[i];
          status.append(toString(fr.status));
        }
        py::dict d;
        d["q"] = qo;
        d["tau"] = tau;
        d["residual_before"] = rb;
        d["residual_after"] = ra;
        d["status"] = status;
        return d;
      },
      py::arg("filter"), py::arg("qs"), py::arg("times"), py::arg("contact") = py::none(),
      "A whole motion (qs (n, nq), times (n,) s; contact flags (n·bodies,) with contact_source='given'; "
      "derivatives by central differences): dict q (n, nq), tau (n, nv), residual_before/after (n, nu), status.");
}

}  // namespace kinetrack::python
