// kinetrack.prior: the GPM seed (25-DoF DH upper body, joint-angle densities, LN / GP) and the
// learned whole-body prior for sparse-input tracking (docs/gpm.md).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/prior_job.hpp"
#include "kinetrack/prior/gpm_study.hpp"
#include "kinetrack/prior/human_prior.hpp"
#include "kinetrack/prior/prior_posture.hpp"

namespace kinetrack::python {
namespace {

using namespace kinetrack::prior;

Vector25d toTheta(py::handle obj) { return toVector(obj, kUpperBodyDof, "theta"); }

py::array_t<double> thetaArray(const Vector25d& t) { return toNumpy(t); }

/// Two hand poses from positions (2, 3) and rotations (2, 3, 3).
std::array<Transform, 2> toHands(py::handle positions, py::handle rotations) {
  const Array p = checkedArray(positions, {2, 3}, "hand_positions");
  const Array r = checkedArray(rotations, {2, 3, 3}, "hand_rotations");
  std::array<Transform, 2> h;
  for (int s = 0; s < 2; ++s) {
    h[static_cast<std::size_t>(s)].p = Vector3d(p.data() + 3 * s);
    h[static_cast<std::size_t>(s)].R = rotationFromRaw(r.data() + 9 * s, false);
  }
  return h;
}

py::dict handsDict(const std::array<Transform, 2>& h) {
  py::array_t<double> p({2, 3}), R({2, 3, 3});
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 3; ++i) {
      p.mutable_at(s, i) = h[static_cast<std::size_t>(s)].p[i];
      for (int j = 0; j < 3; ++j) R.mutable_at(s, i, j) = h[static_cast<std::size_t>(s)].R(i, j);
    }
  return py::dict(py::arg("positions") = p, py::arg("rotations") = R);
}

IkMethod toMethod(const std::string& m) {
  if (m == "LN") return IkMethod::LeastNorm;
  if (m == "GP") return IkMethod::GradientProjection;
  throw py::value_error("method: expected 'LN' or 'GP', got '" + m + "'");
}

/// The solver with the fit and prior it points to kept alive.
struct PyGpm {
  std::shared_ptr<const SubjectFit> fit;
  std::shared_ptr<const DensityPrior> prior;
  GradientProjectionIk ik;
  PyGpm(std::shared_ptr<const SubjectFit> f, std::shared_ptr<const DensityPrior> p, const GpmOptions& o)
      : fit(std::move(f)), prior(std::move(p)), ik(fit->model, prior.get(), o) {}
};

/// PriorPosture with the prior it reads kept alive (the solver is kept alive by py::keep_alive).
struct PyPosture {
  std::shared_ptr<const HumanPrior> prior;
  PriorPosture posture;
  PyPosture(DynamicalIk& ik, std::shared_ptr<const HumanPrior> p, const PriorPostureOptions& o)
      : prior(std::move(p)), posture(ik, *prior, o) {}
};

/// A sparse-target solver (SparsePriorIk or SparseDynamicalIk) with its model and prior kept alive.
template <class Ik, class Options>
struct PySparseSolver {
  std::shared_ptr<Model> model;
  std::shared_ptr<const HumanPrior> prior;
  Ik ik;
  std::vector<Transform> targets;
  PySparseSolver(std::shared_ptr<Model> m, const std::vector<std::string>& frames, std::shared_ptr<const HumanPrior> p,
                 const Options& o)
      : model(std::move(m)), prior(std::move(p)), ik(model, frames, prior.get(), o), targets(frames.size()) {}
  /// Reads positions (n, 3) and rotations (n, 3, 3) into `targets`.
  void setTargets(py::handle positions, py::handle rotations) {
    const auto n = static_cast<py::ssize_t>(targets.size());
    const Array p = checkedArray(positions, {n, 3}, "positions");
    const Array r = checkedArray(rotations, {n, 3, 3}, "rotations");
    for (py::ssize_t k = 0; k < n; ++k)
      targets[static_cast<std::size_t>(k)] = {rotationFromRaw(r.data() + 9 * k, false), Vector3d(p.data() + 3 * k)};
  }
  py::dict result(const SparseFrameResult& res) const {
    return py::dict(py::arg("q") = configurationArray(ik.state()), py::arg("position_error") = res.position_error,
                    py::arg("orientation_error") = res.orientation_error, py::arg("fallbacks") = res.fallbacks,
                    py::arg("status") = res.status, py::arg("gap") = res.gap);
  }
};
using PySparse = PySparseSolver<SparsePriorIk, SparseIkOptions>;
using PySparseDyn = PySparseSolver<SparseDynamicalIk, PriorPostureOptions>;

}  // namespace

void bindPrior(py::module_& m) {
  py::module_ pr =
      m.def_submodule("prior", "GPM: gradient projection with a learned joint-angle density (docs/gpm.md).");
  pr.attr("joint_names") = UpperBodyModel::jointNames();

  py::class_<SubjectFit, std::shared_ptr<SubjectFit>>(pr, "SubjectFit", R"doc(
A subject's 25-DoF DH upper-body model and recorded joint angles (fit_subject).)doc")
      .def_readonly("subject", &SubjectFit::subject)
      .def_property_readonly(
          "theta",
          [](const SubjectFit& f) {
            py::array_t<double> a({static_cast<py::ssize_t>(f.theta.size()), py::ssize_t(25)});
            for (std::size_t k = 0; k < f.theta.size(); ++k)
              for (int i = 0; i < kUpperBodyDof; ++i) a.mutable_at(static_cast<py::ssize_t>(k), i) = f.theta[k][i];
            return a;
          },
          "recorded joint angles (N, 25), rad")
      .def(
          "hands",
          [](const SubjectFit& f, int frame) { return handsDict(f.hands.at(static_cast<std::size_t>(frame))); },
          py::arg("frame"), "hand targets of a frame: dict positions (2, 3) m, rotations (2, 3, 3), pelvis frame")
      .def_property_readonly("lower", [](const SubjectFit& f) { return thetaArray(f.model.lower); })
      .def_property_readonly("upper", [](const SubjectFit& f) { return thetaArray(f.model.upper); })
      .def_property_readonly("quality",
                             [](const SubjectFit& f) {
                               return py::dict(py::arg("hand_position_rms") = f.quality.hand_position_rms,
                                               py::arg("hand_position_max") = f.quality.hand_position_max,
                                               py::arg("hand_orientation_rms") = f.quality.hand_orientation_rms,
                                               py::arg("frames") = f.quality.frames);
                             })
      .def(
          "forward_kinematics",
          [](const SubjectFit& f, py::handle theta) {
            UpperBodyData d;
            upperBodyForwardKinematics(f.model, d, toTheta(theta));
            return handsDict(d.hand);
          },
          py::arg("theta"), "hand poses (dict positions (2, 3), rotations (2, 3, 3)) at theta (25,)");

  pr.def(
      "fit_subject",
      [](const std::string& subject, const std::vector<std::string>& clips, double rate, bool center_twists) {
        SubjectFitOptions o;
        o.rate = rate;
        o.center_twists = center_twists;
        return std::make_shared<SubjectFit>(released([&] { return fitSubject(subject, clips, o); }));
      },
      py::arg("subject"), py::arg("clips"), py::arg("rate") = 0.0, py::arg("center_twists") = false,
      "The 25-DoF model and recorded angles of a subject from its captures (rate > 0 keeps ~rate frames/s; "
      "center_twists puts the zero of the bone-axis twists at the subject's median, as `experiment gpm`).");

  py::class_<DensityPrior, std::shared_ptr<DensityPrior>>(pr, "DensityPrior",
                                                          "Joint-angle densities per workspace cell.")
      .def_property_readonly("inc", [](const DensityPrior& p) { return p.grid().inc; })
      .def("occupied_cells", &DensityPrior::occupiedCells, py::arg("group"))
      .def(
          "gradient",
          [](const DensityPrior& p, py::handle theta, py::handle hand_positions) {
            if (p.numJoints() != kUpperBodyDof) throw py::value_error("gradient: not a 25-DoF upper-body prior");
            const Vector25d t = toTheta(theta);
            const Array hp = checkedArray(hand_positions, {2, 3}, "hand_positions");
            std::array<Transform, 2> h;
            h[0].p = Vector3d(hp.data());
            h[1].p = Vector3d(hp.data() + 3);
            const auto keys = upperBodyKeyPoints(h);
            Vector25d g;
            const int fallbacks =
                p.gradient(std::span<const double>(t.data(), 25), keys, std::span<double>(g.data(), 25));
            return py::make_tuple(thetaArray(g), fallbacks);
          },
          py::arg("theta"), py::arg("hand_positions"),
          "(d/dθ (p_max/p) per joint (25,), groups in an empty cell) for the hands' positions (2, 3)");

  pr.def(
      "upper_body_prior",
      [](const std::vector<std::shared_ptr<SubjectFit>>& fits, int inc, int min_samples) {
        std::vector<const SubjectFit*> f;
        for (const auto& x : fits) f.push_back(x.get());
        DensityOptions o;
        o.inc = inc;
        o.min_samples = min_samples;
        return std::make_shared<DensityPrior>(upperBodyPrior(f, o));
      },
      py::arg("fits"), py::arg("inc") = 1, py::arg("min_samples") = DensityOptions{}.min_samples,
      "Densities from every frame of the fits, inc × inc × inc cells of the hands' workspace.");

  py::class_<PyGpm>(pr, "GradientProjection", R"doc(
LN (Eq. 3) and GP (Eq. 4-5) on a subject's model; solve() is one frame of `iterations` updates.)doc")
      .def(py::init([](std::shared_ptr<SubjectFit> fit, std::shared_ptr<DensityPrior> prior, double gain,
                       int iterations, double max_prior_step) {
             GpmOptions o;
             o.gain = gain;
             o.iterations = iterations;
             o.max_prior_step = max_prior_step;
             return std::make_unique<PyGpm>(std::move(fit), std::move(prior), o);
           }),
           py::arg("fit"), py::arg("prior") = nullptr, py::arg("gain") = GpmOptions{}.gain,
           py::arg("iterations") = GpmOptions{}.iterations, py::arg("max_prior_step") = GpmOptions{}.max_prior_step)
      .def(
          "solve",
          [](PyGpm& g, py::handle theta, py::handle hand_positions, py::handle hand_rotations,
             const std::string& method) {
            Vector25d t = toTheta(theta);
            const GpmFrameResult r = g.ik.solve(toHands(hand_positions, hand_rotations), t, toMethod(method));
            return py::dict(py::arg("theta") = thetaArray(t), py::arg("position_error") = r.position_error,
                            py::arg("orientation_error") = r.orientation_error, py::arg("fallbacks") = r.fallbacks,
                            py::arg("limited") = r.limited, py::arg("status") = r.status, py::arg("gap") = r.gap);
          },
          py::arg("theta"), py::arg("hand_positions"), py::arg("hand_rotations"), py::arg("method") = "GP",
          "One frame from theta (25,) toward the hands (positions (2, 3), rotations (2, 3, 3)); returns a dict "
          "with the new theta.");

  pr.def(
      "run_subject",
      [](std::shared_ptr<SubjectFit> fit, std::shared_ptr<DensityPrior> prior, const std::string& method) {
        const IkMethod mth = toMethod(method);
        return released([&] { return runSubject(*fit, prior.get(), mth, GpmOptions{}).rms_deg; });
      },
      py::arg("fit"), py::arg("prior") = nullptr, py::arg("method") = "GP",
      "RMS joint-angle error (Eq. 6, deg) of LN or GP replaying the subject's recorded hand poses.");

  // --- whole-body prior ------------------------------------------------------------------------
  py::class_<HumanPrior, std::shared_ptr<HumanPrior>>(pr, "HumanPrior", "A joint-angle prior learned on a model.")
      .def_readonly("model_name", &HumanPrior::model_name)
      .def_readonly("joint_names", &HumanPrior::joint_names)
      .def(
          "write", [](const HumanPrior& p, const std::string& path) { writeHumanPrior(path, p); }, py::arg("path"));
  pr.def(
      "read_prior", [](const std::string& path) { return std::make_shared<HumanPrior>(readHumanPrior(path)); },
      py::arg("path"), "A prior file (`kinetrack prior build`); kinetrack.ParseError for a broken one.");
  pr.def(
      "build_human_prior",
      [](std::shared_ptr<Model> model, py::handle motion, int inc) {
        const Array q = checkedArray(motion, {kAny, nq(*model)}, "motion");
        std::vector<Configuration> qs(static_cast<std::size_t>(q.shape(0)), Configuration(*model));
        for (py::ssize_t k = 0; k < q.shape(0); ++k)
          readConfiguration(*model, q.data() + k * q.shape(1), qs[static_cast<std::size_t>(k)]);
        DensityOptions o;
        o.inc = inc;
        return std::make_shared<HumanPrior>(buildHumanPrior(*model, {qs}, o));
      },
      py::arg("model"), py::arg("motion"), py::arg("inc") = 1, "A prior from configurations (N, nq) of the model.");

  py::class_<PySparse>(pr, "SparsePriorIk", R"doc(
Gradient-projection IK from a few pose targets, a HumanPrior in the null space (docs/gpm.md).)doc")
      .def(py::init(
               [](std::shared_ptr<Model> model, std::vector<std::string> targets, std::shared_ptr<HumanPrior> prior) {
                 return std::make_unique<PySparse>(std::move(model), targets, std::move(prior), SparseIkOptions{});
               }),
           py::arg("model"), py::arg("targets"), py::arg("prior") = nullptr)
      .def(
          "set_state", [](PySparse& s, py::handle q) { s.ik.setState(toConfiguration(*s.model, q)); }, py::arg("q"),
          "Sets the state q (nq,).")
      .def_property_readonly("q", [](const PySparse& s) { return configurationArray(s.ik.state()); })
      .def(
          "solve",
          [](PySparse& s, py::handle positions, py::handle rotations, bool use_prior) {
            s.setTargets(positions, rotations);
            return s.result(s.ik.solve(s.targets, use_prior));
          },
          py::arg("positions"), py::arg("rotations"), py::arg("use_prior") = true,
          "One frame toward the targets (positions (n, 3) m, rotations (n, 3, 3)); dict with the new q (nq,).");

  py::class_<PriorPostureOptions>(pr, "PriorPostureOptions", "Options of PriorPosture (defaults as in C++).")
      .def(py::init<>())
      .def_readwrite("gain", &PriorPostureOptions::gain, "k of the prior gradient")
      .def_readwrite("max_step", &PriorPostureOptions::max_step, "cap of k|∇H_i| per step (rad)")
      .def_readwrite("weight", &PriorPostureOptions::weight, "μ of the posture term");
  py::class_<PyPosture>(pr, "PriorPosture", R"doc(
The learned prior inside DYN: a posture task in ik.tasks (id: task, removed again when this object
is freed) whose velocity reference update(dt) sets, before each step, from the prior's gradient at
the solver's state (docs/gpm.md, "The prior inside DYN").

    ik = kinetrack.DynamicalIk(model, options)     # options.gain_mode = GainMode.per_step
    posture = kinetrack.prior.PriorPosture(ik, prior)
    posture.update(dt); ik.step(dt))doc")
      .def(py::init([](DynamicalIk& ik, std::shared_ptr<HumanPrior> prior, std::optional<PriorPostureOptions> o) {
             if (!prior) throw py::value_error("prior: a HumanPrior is required");
             return std::make_unique<PyPosture>(ik, std::move(prior), o.value_or(PriorPostureOptions{}));
           }),
           py::arg("ik"), py::arg("prior"), py::arg("options") = py::none(), py::keep_alive<1, 2>())
      .def(
          "update", [](PyPosture& p, double dt) { return p.posture.update(dt); }, py::arg("dt"),
          "Sets the posture task's velocities from the prior at the solver's state; returns the empty-cell "
          "fallbacks.")
      .def(
          "enable", [](PyPosture& p, bool on) { p.posture.enable(on); }, py::arg("on"),
          "Turns the posture term off (the task disabled) or back on.")
      .def_property_readonly(
          "task", [](const PyPosture& p) { return p.posture.task().value; },
          "Id of its posture task in ik.tasks (TaskSet.posture_velocities(task), ...).");

  py::class_<PySparseDyn>(pr, "SparseDynamicalIk", R"doc(
DYN from a few pose targets with, when given, the HumanPrior as its posture term: what
`kinetrack track --targets ... --prior P` runs (docs/gpm.md, "The prior inside DYN").)doc")
      .def(py::init([](std::shared_ptr<Model> model, std::vector<std::string> targets,
                       std::shared_ptr<HumanPrior> prior, std::optional<PriorPostureOptions> o) {
             return std::make_unique<PySparseDyn>(std::move(model), targets, std::move(prior),
                                                  o.value_or(PriorPostureOptions{}));
           }),
           py::arg("model"), py::arg("targets"), py::arg("prior") = nullptr, py::arg("options") = py::none())
      .def(
          "set_state", [](PySparseDyn& s, py::handle q) { s.ik.setState(toConfiguration(*s.model, q)); }, py::arg("q"),
          "Sets the state q (nq,).")
      .def_property_readonly("q", [](const PySparseDyn& s) { return configurationArray(s.ik.state()); })
      .def(
          "solve",
          [](PySparseDyn& s, py::handle positions, py::handle rotations, double dt) {
            s.setTargets(positions, rotations);
            return s.result(s.ik.solve(s.targets, dt));
          },
          py::arg("positions"), py::arg("rotations"), py::arg("dt"),
          "One DYN step of dt (s) toward the targets (positions (n, 3) m, rotations (n, 3, 3)); dict with the new q.");

  pr.def(
      "build",
      [](const std::vector<std::string>& clips, const std::string& out, const std::string& model, double rate, int inc,
         int min_samples) {
        app::PriorBuildOptions o;
        o.clips = clips, o.out = out, o.model.model = model, o.rate = rate, o.inc = inc, o.min_samples = min_samples;
        const app::PriorBuildResult r = released([&] { return app::runPriorBuild(o); });
        py::list groups;
        for (const auto& g : r.groups)
          groups.append(py::dict(py::arg("name") = g.name, py::arg("joints") = g.joints,
                                 py::arg("occupied") = g.occupied, py::arg("cells") = g.cells));
        return py::dict(py::arg("model") = r.model_name, py::arg("joints") = r.joints, py::arg("groups") = groups,
                        py::arg("frames_kept") = r.frames_kept);
      },
      py::arg("clips"), py::arg("out"), py::kw_only(), py::arg("model") = "human66", py::arg("rate") = 30.0,
      py::arg("inc") = 1, py::arg("min_samples") = app::PriorBuildOptions{}.min_samples,
      "`kinetrack prior build` (the same job): the clips tracked onto the model, the densities learned and written "
      "to out. Returns a dict: model, joints, groups (name, joints, occupied, cells), frames_kept per clip.");
  pr.def(
      "track_sparse",
      [](const std::string& model, const std::string& input, const std::string& targets, const std::string& prior,
         const std::string& solver, const std::string& out) {
        app::SparseTrackOptions o;
        o.track.model.model = model;
        o.track.input = input;
        o.track.files.joints = out;
        o.targets = targets, o.prior = prior, o.solver = solver;
        const app::SparseTrackResult r = released([&] { return app::runSparseTrack(o); });
        const auto n = static_cast<py::ssize_t>(r.q.size());
        py::array_t<double> q({n, py::ssize_t(nq(*r.model))});
        py::array_t<bool> gaps(n);
        for (py::ssize_t k = 0; k < n; ++k) {
          writeConfiguration(r.q[static_cast<std::size_t>(k)], q.mutable_data() + k * q.shape(1));
          gaps.mutable_data()[k] = r.gap[static_cast<std::size_t>(k)] != 0;
        }
        return py::dict(py::arg("times") = doubles(r.times), py::arg("q") = q, py::arg("gaps") = gaps,
                        py::arg("frames") = r.frames, py::arg("position_error_mm") = doubles(r.position_error_mm),
                        py::arg("frame_us") = doubles(r.frame_us), py::arg("summary") = app::summaryText(r, o));
      },
      py::arg("model"), py::arg("input"), py::arg("targets"), py::kw_only(), py::arg("prior") = "",
      py::arg("solver") = "dyn", py::arg("out") = "",
      "`kinetrack track --targets … [--prior …]` (the same job): the capture tracked from a few targets (head, "
      "hands, feet, pelvis or frame names) with DYN and the prior as its posture term (solver 'dyn') or gradient "
      "projection ('gp'). out: the joint CSV. Returns a dict: times, q (N, nq), gaps, frames (the target frames), "
      "position_error_mm and frame_us per solved frame, summary (the CLI's table).");
}

}  // namespace kinetrack::python
