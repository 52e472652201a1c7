// The dynamics filter (NAK Eq. 1–5): kinetrack.DynamicsFilter (step per frame), filter_motion
// (a whole motion) and foot_contacts. Configurations as in kinematics: q (nq,), v and a (nv,).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/dynamics_filter_job.hpp"
#include "kinetrack/dynamics/com_adjustment.hpp"
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
  d["status"] = outcomeName(f);
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

// Wrenches from rows (fx, fy, fz, px, py, pz, mx, my, mz): world force at a world point plus a
// free moment; `links` one per row.
void readWrenches(const double* rows, const std::vector<LinkId>& links, std::vector<ExternalWrench>& out) {
  out.resize(links.size());
  for (std::size_t b = 0; b < links.size(); ++b) {
    const double* r = rows + 9 * b;
    out[b].link = links[b];
    out[b].force = Vector3d(r[0], r[1], r[2]);
    out[b].point = Vector3d(r[3], r[4], r[5]);
    out[b].moment = Vector3d(r[6], r[7], r[8]);
  }
}

// kinetrack.DynamicsFilter: the C++ filter plus converted inputs.
struct PyDynamicsFilter {
  std::unique_ptr<DynamicsFilter> filter;
  Configuration q;
  VectorXd v, a;
  std::vector<std::uint8_t> flags;
  std::vector<ExternalWrench> measured;
  std::vector<LinkId> links;  // of the contact bodies
};

const std::vector<ExternalWrench>& measuredOf(PyDynamicsFilter& f, const py::object& measured) {
  f.measured.clear();
  if (measured.is_none()) return f.measured;
  const auto n = static_cast<py::ssize_t>(f.links.size());
  const auto w = checkedArray(measured, {n, 9}, "measured");
  readWrenches(w.data(), f.links, f.measured);
  return f.measured;
}

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
  m.def(
      "fit_soles_to_stance",
      [](std::shared_ptr<Model> model, const py::list& contacts, ArrayLike qs, ArrayLike times, ArrayLike up,
         ArrayLike ground_velocity, double still_speed, int min_frames) {
        const Model& mm = *model;
        const auto Q = checkedArray(qs, {-1, nq(mm)}, "qs");
        const auto n = Q.shape(0);
        const VectorXd t = toVector(times, n, "times");
        std::vector<Configuration> q(static_cast<std::size_t>(n), Configuration(mm));
        for (py::ssize_t k = 0; k < n; ++k)
          readConfiguration(mm, Q.data() + k * nq(mm), q[static_cast<std::size_t>(k)]);
        const std::vector<double> tv(t.data(), t.data() + n);
        GroundPlane g;
        if (!up.is_none()) g.normal = toVector3(up, "up").normalized();
        if (!ground_velocity.is_none()) g.velocity = toVector3(ground_velocity, "ground_velocity");
        return contactsToList(mm,
                              fitSolesToStance(mm, contactsFromList(mm, contacts), q, tv, g, still_speed, min_frames));
      },
      py::arg("model"), py::arg("contacts"), py::arg("qs"), py::arg("times"), py::arg("up") = py::none(),
      py::arg("ground_velocity") = py::none(), py::arg("still_speed") = 0.15, py::arg("min_frames") = 5,
      "The contacts' soles refitted to the motion qs (n, nq) at times (n,) s: per body, the mean ground normal "
      "(up) in the link frame over the frames where its origin moves at most still_speed m/s (relative to "
      "ground_velocity) is the sole's normal; the points are moved along it onto the plane through the lowest "
      "(bodies with fewer than min_frames such frames unchanged). Same list layout as foot_contacts. ValueError "
      "for bad sizes, times not increasing, still_speed <= 0.");
  m.def(
      "sole_tilt",
      [](std::shared_ptr<Model> model, const py::dict& contact, ArrayLike up) {
        py::list one;
        one.append(contact);
        const Vector3d u = up.is_none() ? Vector3d::UnitZ() : toVector3(up, "up");
        return soleTilt(*model, contactsFromList(*model, one)[0], u);
      },
      py::arg("model"), py::arg("contact"), py::arg("up") = py::none(),
      "Tilt (rad) of a contact's sole plane against the model's zero-pose sole (normal up).");
  py::class_<PyDynamicsFilter>(
      m, "DynamicsFilter",
      "Nakamura's dynamics filter (docs/dynamics_filter.md): per frame, resolved-acceleration feedback to the "
      "reference, skyhook on the head, the least acceleration change (weighted, Eq. 3–5) that removes the residual "
      "base wrench with unilateral contact forces inside a friction pyramid, forward integration.")
      .def(py::init([](std::shared_ptr<Model> model, std::optional<py::list> contacts, py::object head,
                       const std::string& contact_source, double friction, std::optional<double> kp,
                       std::optional<double> kd, double contact_height, double contact_speed, ArrayLike ground_normal,
                       double ground_offset, ArrayLike gravity, std::optional<std::vector<int>> unactuated,
                       bool residual_before, bool pin_contacts, const std::string& contact_forces,
                       const std::string& weighting, std::optional<double> residual_softness,
                       std::optional<double> kp_base, std::optional<double> kd_base, double weight_base,
                       bool anchor_at_reference) {
             if (contact_forces != "solved" && contact_forces != "measured")
               throw py::value_error("contact_forces must be 'solved' or 'measured'");
             if (weighting != "unit" && weighting != "inertia")
               throw py::value_error("weighting must be 'unit' or 'inertia'");
             // Measured loads start from DynamicsFilterOptions::measuredLoads() (gains, softness).
             DynamicsFilterOptions o =
                 contact_forces == "measured" ? DynamicsFilterOptions::measuredLoads() : DynamicsFilterOptions{};
             o.weighting = weighting == "inertia" ? ChangeWeighting::InertiaDiagonal : ChangeWeighting::Constant;
             if (residual_softness) o.residual_softness = *residual_softness;
             o.weight_base = weight_base;
             o.anchor_at_reference = anchor_at_reference;
             if (!head.is_none()) o.head = toLinkId(*model, head);
             if (contact_source != "detect" && contact_source != "given")
               throw py::value_error("contact_source must be 'detect' or 'given'");
             o.contact_source = contact_source == "given" ? ContactSource::Given : ContactSource::Detect;
             o.friction = friction;
             if (kp) o.kp_joint = *kp;
             if (kd) o.kd_joint = *kd;
             if (kp_base || kp) o.kp_base = kp_base ? *kp_base : *kp;
             if (kd_base || kd) o.kd_base = kd_base ? *kd_base : *kd;
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
             for (const ContactBody& b : c) f->links.push_back(b.link);
             f->filter = std::make_unique<DynamicsFilter>(model, std::move(c), o);
             f->q = Configuration(*model);
             f->v = VectorXd::Zero(model->nv());
             f->a = VectorXd::Zero(model->nv());
             return f;
           }),
           py::arg("model"), py::arg("contacts") = py::none(), py::arg("head") = py::none(),
           py::arg("contact_source") = "detect", py::arg("friction") = 0.8, py::arg("kp") = py::none(),
           py::arg("kd") = py::none(), py::arg("contact_height") = 0.05, py::arg("contact_speed") = 0.8,
           py::arg("ground_normal") = py::none(), py::arg("ground_offset") = 0.0, py::arg("gravity") = py::none(),
           py::arg("unactuated") = py::none(), py::arg("residual_before") = true, py::arg("pin_contacts") = true,
           py::arg("contact_forces") = "solved", py::arg("weighting") = "unit",
           py::arg("residual_softness") = py::none(), py::arg("kp_base") = py::none(), py::arg("kd_base") = py::none(),
           py::arg("weight_base") = 1.0, py::arg("anchor_at_reference") = false,
           "contacts: list of {'link', 'points'} (default foot_contacts(model)); head: link for the skyhook (None: "
           "off); kp (1/s²), kd (1/s): feedback on every coordinate (default 100, 20), kp_base, kd_base on the base "
           "(default kp, kd); friction μ; contact thresholds (m, m/s); pin_contacts: held contacts lose their "
           "velocity within the step (no slide; False: Baumgarte contact_kd). contact_forces='measured': the "
           "measured wrenches given to step/filter_motion are applied as known loads and only the accelerations "
           "change to balance the base (OpenSim RRA's adjustment; gains default to the measured-loads preset: joints "
           "900, 60; base 10, 6; residual_softness 0.03); weighting 'unit' or 'inertia' (diag of the mass matrix); "
           "residual_softness σ ≥ 0: a base residual of σ·mass·1 m/s² costs as much as 1 m/s² of change (0: exact); "
           "weight_base: weight of the base's acceleration change (joints 1); anchor_at_reference: new contacts "
           "anchored at the reference's foot pose.")
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
             std::optional<std::vector<int>> contact, py::object measured) {
            const Model& model = f.filter->model();
            readConfiguration(model, q, f.q);
            f.v = toVector(v, model.nv(), "v");
            f.a = toVector(a, model.nv(), "a");
            f.flags.clear();
            if (contact) f.flags.assign(contact->begin(), contact->end());
            const std::vector<ExternalWrench>& w = measuredOf(f, measured);
            return frameDict(model, f.filter->step(f.q, f.v, f.a, dt, f.flags, w));
          },
          py::arg("q"), py::arg("v"), py::arg("a"), py::arg("dt"), py::arg("contact") = py::none(),
          py::arg("measured") = py::none(),
          "One frame (reference q, v, a; step dt s; contact flags per body with contact_source='given'; measured "
          "(bodies, 9): per contact body fx, fy, fz (N), px, py, pz (m), mx, my, mz (N m), world frame, required "
          "with contact_forces='measured'): dict with "
          "status, q, v, acceleration, tau, residual_before, residual_after (unactuated rows), in_contact, "
          "contact_forces (bodies, 3) N, binding_unilateral, binding_friction.");
  m.def(
      "filter_motion",
      [](PyDynamicsFilter& f, ArrayLike qs, ArrayLike times, std::optional<std::vector<int>> contact,
         py::object measured) {
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
        std::vector<std::vector<ExternalWrench>> loads;
        if (!measured.is_none()) {
          const auto nb = static_cast<py::ssize_t>(f.links.size());
          const auto w = checkedArray(measured, {n, nb, 9}, "measured");
          loads.resize(static_cast<std::size_t>(n));
          for (py::ssize_t k = 0; k < n; ++k)
            readWrenches(w.data() + k * nb * 9, f.links, loads[static_cast<std::size_t>(k)]);
        }
        const FilteredMotion out = released([&] { return filterMotion(*f.filter, q, tv, flags, loads); });
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
          status.append(outcomeName(fr));
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
      py::arg("measured") = py::none(),
      "A whole motion (qs (n, nq), times (n,) s; contact flags (n·bodies,) with contact_source='given'; measured "
      "(n, bodies, 9) wrenches as in DynamicsFilter.step; "
      "derivatives by central differences): dict q (n, nq), tau (n, nv), residual_before/after (n, nu), status.");
  m.def(
      "estimate_com_adjustment",
      [](std::shared_ptr<Model> model, py::object link, ArrayLike qs, ArrayLike times, ArrayLike loads,
         std::vector<py::object> load_links, std::optional<std::vector<int>> unactuated,
         std::optional<std::vector<int>> moment_rows, ArrayLike gravity, ArrayLike up) {
        const Model& mm = *model;
        const auto Q = checkedArray(qs, {-1, nq(mm)}, "qs");
        const auto n = Q.shape(0);
        const VectorXd t = toVector(times, n, "times");
        std::vector<Configuration> q(static_cast<std::size_t>(n), Configuration(mm));
        for (py::ssize_t k = 0; k < n; ++k)
          readConfiguration(mm, Q.data() + k * nq(mm), q[static_cast<std::size_t>(k)]);
        std::vector<LinkId> links;
        for (const py::object& l : load_links) links.push_back(toLinkId(mm, l));
        const auto nl = static_cast<py::ssize_t>(links.size());
        const auto w = checkedArray(loads, {n, nl, 9}, "loads");
        std::vector<std::vector<ExternalWrench>> wl(static_cast<std::size_t>(n));
        for (py::ssize_t k = 0; k < n; ++k) readWrenches(w.data() + k * nl * 9, links, wl[static_cast<std::size_t>(k)]);
        const std::vector<int> u = unactuated ? *unactuated : std::vector<int>{0, 1, 2, 3, 4, 5};
        const std::vector<int> rows = moment_rows ? *moment_rows : std::vector<int>{3, 4, 5};
        const std::vector<double> tv(t.data(), t.data() + n);
        const TrajectoryDerivatives d = differentiate(mm, q, tv);
        const ComAdjustment c =
            estimateComAdjustment(mm, toLinkId(mm, link), q, d, wl, u, rows,
                                  gravity.is_none() ? kStandardGravity : toVector3(gravity, "gravity"),
                                  up.is_none() ? Vector3d::UnitZ() : toVector3(up, "up"));
        py::dict out;
        out["offset"] = toNumpy(c.offset);
        out["axis_kept"] = c.axis_kept;
        out["mean_before"] = toNumpy(c.mean_before);
        out["mean_after"] = toNumpy(c.mean_after);
        out["frames"] = c.frames;
        return out;
      },
      py::arg("model"), py::arg("link"), py::arg("qs"), py::arg("times"), py::arg("loads"), py::arg("load_links"),
      py::arg("unactuated") = py::none(), py::arg("moment_rows") = py::none(), py::arg("gravity") = py::none(),
      py::arg("up") = py::none(),
      "OpenSim RRA's mass-centre adjustment: the constant offset (m, link frame; the link axis nearest `up` kept) "
      "of `link`'s centre of mass that removes the mean residual moments of the motion (qs (n, nq), times) under "
      "`loads` (n, k, 9: fx, fy, fz, px, py, pz, mx, my, mz per wrench, on `load_links`). unactuated: residual "
      "rows (default the floating base's 0–5), moment_rows: which of them are moments (default 3, 4, 5). Returns "
      "dict offset, axis_kept, mean_before, mean_after, frames.");
  m.def(
      "dynamics_filter",
      [](const std::string& model, const std::string& input, const std::string& grf, const std::string& grf_mode,
         double slope_deg, double cutoff, std::optional<double> start, std::optional<double> end,
         const std::string& adjust_com, const std::string& sole, std::optional<double> weight_base,
         const std::string& out, const std::string& torques, const std::string& summary_json,
         const std::string& report_csv, std::optional<double> height, std::optional<double> mass,
         const std::string& weighting, std::optional<double> residual_softness, double grf_threshold, double friction,
         double contact_height, double contact_speed, std::optional<double> kp, std::optional<double> kd,
         std::optional<double> kp_base, std::optional<double> kd_base, double force_tracking,
         std::optional<double> ground_height, bool skyhook, bool pin, bool anchor_at_reference) {
        app::FilterJobOptions o;
        o.model.model = model;
        o.model.height = height;
        o.model.mass = mass;
        o.input = input;
        o.grf = grf;
        o.grf_mode = grf_mode;
        o.slope_deg = slope_deg;
        o.cutoff = cutoff;
        if (start) o.time_start = *start;
        if (end) o.time_end = *end;
        o.adjust_com = adjust_com;
        o.sole = sole;
        if (weight_base) o.weight_base = *weight_base;
        o.out = out;
        o.torques = torques;
        o.summary_json = summary_json;
        o.report_csv = report_csv;
        o.weighting = weighting;
        if (residual_softness) o.residual_softness = *residual_softness;
        o.grf_threshold = grf_threshold;
        o.friction = friction;
        o.contact_height = contact_height;
        o.contact_speed = contact_speed;
        if (kp) o.kp = *kp;
        if (kd) o.kd = *kd;
        if (kp_base) o.kp_base = *kp_base;
        if (kd_base) o.kd_base = *kd_base;
        o.force_tracking = force_tracking;
        if (ground_height) o.ground_height = *ground_height;
        o.no_skyhook = !skyhook;
        o.no_pin = !pin;
        o.anchor_at_reference = anchor_at_reference;
        std::vector<std::string> warnings;
        app::Reporter reporter;
        reporter.warning = [&](const std::string& w) { warnings.push_back(w); };
        const app::FilterJobResult r = released([&] { return app::runDynamicsFilter(o, reporter); });
        const Model& m = *r.input.model;
        const auto n = static_cast<py::ssize_t>(r.motion.frames.size());
        py::array_t<double> q({n, static_cast<py::ssize_t>(nq(m))}), tau({n, static_cast<py::ssize_t>(m.nv())});
        py::list status;
        for (py::ssize_t k = 0; k < n; ++k) {
          const DynamicsFilterFrame& fr = r.motion.frames[static_cast<std::size_t>(k)];
          writeConfiguration(fr.q, q.mutable_data(k, 0));
          for (int j = 0; j < m.nv(); ++j) tau.mutable_at(k, j) = fr.tau[j];
          status.append(outcomeName(fr));
        }
        const auto table = [](const std::vector<std::string>& columns, const Eigen::MatrixXd& values) {
          return py::dict(py::arg("columns") = columns, py::arg("values") = toNumpy(values));
        };
        py::dict d;
        d["model"] = std::const_pointer_cast<Model>(r.input.model);
        d["times"] = doubles(r.input.t);
        d["q"] = q;
        d["tau"] = tau;
        d["status"] = status;
        d["filtered"] = table(r.filtered.columns, r.filtered.values);
        d["torques"] = table(r.torques.columns, r.torques.values);
        py::dict report = table(r.frames.columns, r.frames.values);
        report["status"] = r.frames.status;
        d["report"] = report;
        d["summary"] = py::module_::import("json").attr("loads")(app::summaryJson(r, o));
        d["text"] = app::summaryText(r, o);
        d["warnings"] = warnings;
        return d;
      },
      py::arg("model"), py::arg("input"), py::kw_only(), py::arg("grf") = "", py::arg("grf_mode") = "apply",
      py::arg("slope_deg") = 0.0, py::arg("cutoff") = 6.0, py::arg("start") = py::none(), py::arg("end") = py::none(),
      py::arg("adjust_com") = "", py::arg("sole") = "auto", py::arg("weight_base") = py::none(), py::arg("out") = "",
      py::arg("torques") = "", py::arg("summary_json") = "", py::arg("report_csv") = "", py::arg("height") = py::none(),
      py::arg("mass") = py::none(), py::arg("weighting") = "unit", py::arg("residual_softness") = py::none(),
      py::arg("grf_threshold") = 20.0, py::arg("friction") = 0.8, py::arg("contact_height") = 0.05,
      py::arg("contact_speed") = 0.8, py::arg("kp") = py::none(), py::arg("kd") = py::none(),
      py::arg("kp_base") = py::none(), py::arg("kd_base") = py::none(), py::arg("force_tracking") = 0.0,
      py::arg("ground_height") = py::none(), py::arg("skyhook") = true, py::arg("pin") = true,
      py::arg("anchor_at_reference") = false,
      R"doc(`kinetrack dynamics filter` (the same job, app::runDynamicsFilter, with the CLI's defaults): model a
built-in name (height, mass scale it), URDF or .osim; input a joint CSV, OpenSim coordinates
(.mot/.sto) or a BVH (tracked on the model first); grf: an ExternalLoads XML (grf_mode "apply": its
wrenches applied, "contacts": contact intervals only; grf_threshold N); slope_deg: the walk put on a
down slope (Fig. 6); cutoff: low-pass of the input (Hz); start/end: time range (s); adjust_com: RRA's
mass-centre adjustment of this body; sole: auto, stance or model; weighting: unit or inertia;
residual_softness, weight_base, kp, kd, kp_base, kd_base (None: the mode's defaults); friction,
contact_height (m), contact_speed (m/s), force_tracking, ground_height (m; None: from the feet);
skyhook, pin, anchor_at_reference as the CLI's --no-skyhook, --no-pin, --anchor-at-reference.
out, torques, summary_json, report_csv: the CLI's files, written when given. Returns a dict: model
(filtered on), times (N,), q (N, nq), tau (N, nv), status (N,), filtered and torques (dicts of
columns and values (N, C): the --out and --torques tables in the input's layout), report (columns,
values (N, C), status: the --report-csv rows), summary (the --summary-json fields), text (the CLI's
table), warnings. Raises ValueError for bad options or files.)doc");
}

}  // namespace kinetrack::python
