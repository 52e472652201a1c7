// The IK solvers: the task set every solver shares (targets set from numpy), DYN (DynamicalIk),
// the whole-body per-frame solver (InstantaneousIk) and the pair-wise one (PairwiseIk), each with
// a vectorised solve_sequence that runs the whole loop in C++ with the GIL released.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"
#include "kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp"
#include "options.hpp"
#include "sequence.hpp"

namespace kinetrack::python {
namespace {

TargetId targetId(int t) { return TargetId(t); }
ik::PostureTaskId postureId(int t) { return ik::PostureTaskId(t); }

bool isScalar(py::handle x) { return py::isinstance<py::float_>(x) || py::isinstance<py::int_>(x); }

void setOrientationPy(ik::TaskSet& tasks, int t, ArrayLike rotation, ArrayLike angular_velocity) {
  const Matrix3d R = toRotation(rotation, "rotation");
  if (angular_velocity.is_none())
    tasks.setOrientation(targetId(t), R);
  else
    tasks.setOrientation(targetId(t), R, toVector3(angular_velocity, "angular_velocity"));
}

void setPositionPy(ik::TaskSet& tasks, int t, ArrayLike position, ArrayLike velocity) {
  const Vector3d p = toVector3(position, "position");
  if (velocity.is_none())
    tasks.setPosition(targetId(t), p);
  else
    tasks.setPosition(targetId(t), p, toVector3(velocity, "velocity"));
}

// --- solve_sequence ------------------------------------------------------------------------------

// The checked inputs of a sequence: per frame k, positions[k, i] goes to the i-th live task with
// a position component (id order), rotations[k, j] to the j-th with an orientation component.
struct Sequence {
  std::vector<TargetId> position_tasks, orientation_tasks;
  Array positions, rotations;
  bool quaternions = false;
  py::ssize_t frames = -1;

  Sequence(const ik::TaskSet& tasks, ArrayLike p, py::handle r) {
    for (std::size_t i = 0; i < tasks.all().size(); ++i) {
      const ik::FrameTask& t = tasks.all()[i];
      if (!t.alive) continue;
      if (t.hasPosition()) position_tasks.emplace_back(static_cast<int>(i));
      if (t.hasOrientation()) orientation_tasks.emplace_back(static_cast<int>(i));
    }
    const auto np = static_cast<py::ssize_t>(position_tasks.size());
    const auto no = static_cast<py::ssize_t>(orientation_tasks.size());
    if (np > 0) {
      positions = checkedArray(p, {kAny, np, 3}, "positions (one (3,) per position task)");
      frames = positions.shape(0);
    } else if (!p.is_none()) {
      throw py::value_error("positions given but no task has a position component");
    }
    if (no > 0) {
      const py::array a = py::array::ensure(r);
      quaternions = a && a.ndim() == 3;
      rotations = quaternions ? checkedArray(r, {kAny, no, 4}, "rotations (quaternions w, x, y, z per task)")
                              : checkedArray(r, {kAny, no, 3, 3}, "rotations (one (3, 3) per orientation task)");
      if (frames >= 0 && rotations.shape(0) != frames)
        throw py::value_error("positions and rotations must have the same number of frames (" + std::to_string(frames) +
                              " vs " + std::to_string(rotations.shape(0)) + ")");
      frames = rotations.shape(0);
    } else if (!r.is_none()) {
      throw py::value_error("rotations given but no task has an orientation component");
    }
    if (frames < 0) throw py::value_error("the solver has no tasks: add targets before solve_sequence");
  }

  /// Sets frame k's target values (no allocation).
  void apply(ik::TaskSet& tasks, py::ssize_t k) const {
    for (std::size_t i = 0; i < position_tasks.size(); ++i) {
      const double* v = positions.data() + (k * static_cast<py::ssize_t>(position_tasks.size()) + i) * 3;
      tasks.setPosition(position_tasks[i], Vector3d(v[0], v[1], v[2]));
    }
    const py::ssize_t stride = quaternions ? 4 : 9;
    for (std::size_t j = 0; j < orientation_tasks.size(); ++j) {
      const double* v = rotations.data() + (k * static_cast<py::ssize_t>(orientation_tasks.size()) + j) * stride;
      tasks.setOrientation(orientation_tasks[j], rotationFromRaw(v, quaternions));
    }
  }
};

constexpr const char* kSequenceDoc = R"doc(

Targets per frame, in task-id order: positions (N, P, 3) in m for the P tasks with a position
component (position and pose tasks), rotations (N, O, 3, 3) or quaternions (N, O, 4) ordered
(w, x, y, z) for the O tasks with an orientation component. Returns a dict of numpy arrays:
q (N, nq) the configuration after each frame, status (N,) int8 (Status values), iterations (N,),
mnte (N,), limit_violation (N,) in rad or m. The loop runs in C++ with the GIL released.)doc";

// Runs `solve(k)` (returning an ik::Result-derived value) for every frame with the GIL released.
template <class Solver, class SolveFrame>
py::dict runSequence(Solver& solver, const Sequence& seq, SolveFrame solve) {
  SequenceOutput out(seq.frames, nq(solver.model()));
  {
    py::gil_scoped_release release;
    for (py::ssize_t k = 0; k < seq.frames; ++k) {
      seq.apply(solver.tasks(), k);
      const ik::Result r = solve(k);
      out.write(k, solver.state(), r);
    }
  }
  return out.dict();
}

// The members every solver class shares: tasks, state, set_state.
template <class Solver, class... Extra>
void bindSolverCommon(py::class_<Solver, Extra...>& cls) {
  cls.def_property_readonly("model", [](const Solver& s) { return std::const_pointer_cast<Model>(s.sharedModel()); })
      .def_property_readonly(
          "tasks", [](Solver& s) -> ik::TaskSet& { return s.tasks(); }, py::return_value_policy::reference_internal,
          "The solver's TaskSet: add targets, set their values every frame.")
      .def_property_readonly(
          "state", [](const Solver& s) { return configurationArray(s.state()); }, "(nq,) the current configuration")
      .def(
          "set_state", [](Solver& s, ArrayLike q) { s.setState(toConfiguration(s.model(), q)); }, py::arg("q"),
          "Sets the configuration (nq,) (DYN: and clears the velocity).");
}

// A per-frame solver class (InstantaneousIk, PairwiseIk): constructor (model, options), the
// common members, solve() with the GIL released and solve_sequence.
template <class Solver, class Options, class Make>
void bindPerFrameSolver(py::module_& m, const char* name, const char* doc, Make make) {
  py::class_<Solver> cls(m, name, doc);
  cls.def(py::init([make](std::shared_ptr<Model> model, std::optional<Options> options) {
            return std::make_unique<Solver>(make(std::move(model), options.value_or(Options{})));
          }),
          py::arg("model"), py::arg("options") = py::none());
  bindSolverCommon(cls);
  cls.def("solve", &Solver::solve, py::call_guard<py::gil_scoped_release>(),
          "Solves the current targets from the state (warm start). Releases the GIL.")
      .def(
          "solve_sequence",
          [](Solver& s, ArrayLike positions, ArrayLike rotations) {
            const Sequence seq(s.tasks(), positions, rotations);
            return runSequence(s, seq, [&](py::ssize_t) { return static_cast<ik::Result>(s.solve()); });
          },
          py::arg("positions") = py::none(), py::arg("rotations") = py::none(),
          (std::string("One solve per frame, warm-started from the previous frame.") + kSequenceDoc).c_str());
}

void bindTaskSet(py::module_& m) {
  py::enum_<TargetType>(m, "TargetType", "What of a frame a task targets (PinDragMode is an alias).")
      .value("position", TargetType::Position)
      .value("orientation", TargetType::Orientation)
      .value("pose", TargetType::Pose);
  py::class_<ik::TaskSet> cls(m, "TaskSet", R"doc(
The tasks of one solver (solver.tasks). Frame tasks (DynamicalIk, InstantaneousIk, PairwiseIk,
PinDragIk): positions, orientations and poses of model frames, with weights (W of DYN Eq. 10, per
component) and gains (K in 1/s, DYN only); add_* return an int id; set_position / set_orientation
give values every frame (world frame: p in m, rotation as a (3, 3) matrix R_WT or a quaternion
(w, x, y, z); optional velocities in m/s and rad/s, world frame). Marker and coordinate tasks
(MarkerIk) and posture tasks (MarkerIk and DynamicalIk): add_marker, add_coordinate, add_posture and
their remove_*, set_*_enabled and set_*_weight(s), each kind with its own ids. A TaskSet accepts only
the kinds its solver reads: adding another raises ValueError naming the solver.)doc");
  cls.def(
         "add_position",
         [](ik::TaskSet& t, const std::string& frame, double weight, double gain) {
           return t.addPosition(frame, {weight, gain}).value;
         },
         py::arg("frame"), py::arg("weight") = 1.0, py::arg("gain") = 10.0)
      .def(
          "add_orientation",
          [](ik::TaskSet& t, const std::string& frame, double weight, double gain) {
            return t.addOrientation(frame, {weight, gain}).value;
          },
          py::arg("frame"), py::arg("weight") = 1.0, py::arg("gain") = 10.0)
      .def(
          "add_pose",
          [](ik::TaskSet& t, const std::string& frame, double pw, double ow, double pg, double og) {
            return t.addPose(frame, {pw, pg}, {ow, og}).value;
          },
          py::arg("frame"), py::arg("position_weight") = 1.0, py::arg("orientation_weight") = 1.0,
          py::arg("position_gain") = 10.0, py::arg("orientation_gain") = 10.0)
      .def(
          "remove", [](ik::TaskSet& t, int id) { t.remove(targetId(id)); }, py::arg("task"))
      .def(
          "set_enabled", [](ik::TaskSet& t, int id, bool on) { t.setEnabled(targetId(id), on); }, py::arg("task"),
          py::arg("enabled"))
      .def(
          "set_weights", [](ik::TaskSet& t, int id, double pw, double ow) { t.setWeights(targetId(id), pw, ow); },
          py::arg("task"), py::arg("position_weight"), py::arg("orientation_weight"))
      .def(
          "set_gains", [](ik::TaskSet& t, int id, double pg, double og) { t.setGains(targetId(id), pg, og); },
          py::arg("task"), py::arg("position_gain"), py::arg("orientation_gain"))
      .def("set_position", &setPositionPy, py::arg("task"), py::arg("position"), py::arg("velocity") = py::none(),
           "Target position (3,) in m (world), optional velocity (3,) in m/s.")
      .def("set_orientation", &setOrientationPy, py::arg("task"), py::arg("rotation"),
           py::arg("angular_velocity") = py::none(),
           "Target orientation: a (3, 3) rotation matrix R_WT or a (4,) quaternion (w, x, y, z); optional "
           "world-frame angular velocity (3,) in rad/s. ValueError for a matrix that is not a rotation.")
      .def(
          "frame", [](const ik::TaskSet& t, int id) { return t.model().frameName(t.frame(targetId(id))); },
          py::arg("task"), "Name of the task's frame.")
      .def(
          "type",
          [](const ik::TaskSet& t, int id) {
            const TargetType k = t.type(targetId(id));
            return k == TargetType::Position ? "position" : k == TargetType::Orientation ? "orientation" : "pose";
          },
          py::arg("task"))
      .def("__len__", &ik::TaskSet::size)
      // Posture tasks (ik::PostureTask; DynamicalIk and MarkerIk read them): their own int ids.
      .def(
          "add_posture",
          [](ik::TaskSet& t, ArrayLike weights, double gain) {
            if (isScalar(weights)) return t.addPosture(weights.cast<double>(), gain).value;
            return t.addPosture(toVector(weights, t.model().numJoints(), "weights"), gain).value;
          },
          py::arg("weights") = 1.0, py::arg("gain") = 10.0,
          "A posture task: one weight for every joint or (n_joints,) weights ≥ 0, and the gain K (1/s, DYN "
          "only) of the pull towards its pose. Returns its id (posture ids are their own). DYN reads it as "
          "the secondary objective ½Σw_j(ν_j − v*_j)², v*_j = v_j + K(value_j − s_j) (the pose term only where "
          "a value is set, v_j only when velocities are set); MarkerIk as Σw_j(s_j − value_j)².")
      .def(
          "set_posture_weights",
          [](ik::TaskSet& t, int id, ArrayLike w) {
            t.setWeights(postureId(id), toVector(w, t.model().numJoints(), "weights"));
          },
          py::arg("task"), py::arg("weights"))
      .def(
          "set_posture_gain", [](ik::TaskSet& t, int id, double gain) { t.setGain(postureId(id), gain); },
          py::arg("task"), py::arg("gain"))
      .def(
          "set_posture_values",
          [](ik::TaskSet& t, int id, ArrayLike v) {
            t.setValues(postureId(id), toVector(v, t.model().numJoints(), "values"));
          },
          py::arg("task"), py::arg("values"), "The pose (n_joints,), rad or m; NaN leaves a joint out of the pull.")
      .def(
          "set_posture_velocities",
          [](ik::TaskSet& t, int id, ArrayLike v) {
            if (v.is_none())
              t.clearVelocities(postureId(id));
            else
              t.setVelocities(postureId(id), toVector(v, t.model().numJoints(), "velocities"));
          },
          py::arg("task"), py::arg("velocities"),
          "The joint velocity reference (n_joints,), rad/s or m/s, finite (DYN only); None clears it.")
      .def(
          "set_posture_enabled", [](ik::TaskSet& t, int id, bool on) { t.setEnabled(postureId(id), on); },
          py::arg("task"), py::arg("enabled"))
      .def(
          "remove_posture", [](ik::TaskSet& t, int id) { t.remove(postureId(id)); }, py::arg("task"))
      .def(
          "posture_weights", [](const ik::TaskSet& t, int id) { return toNumpy(t[postureId(id)].weights); },
          py::arg("task"))
      .def(
          "posture_values", [](const ik::TaskSet& t, int id) { return toNumpy(t[postureId(id)].values); },
          py::arg("task"))
      .def(
          "posture_velocities", [](const ik::TaskSet& t, int id) { return toNumpy(t[postureId(id)].velocities); },
          py::arg("task"), "The velocity reference (zeros unless set).")
      .def_property_readonly(
          "postures",
          [](const ik::TaskSet& t) {
            std::vector<int> ids;
            for (std::size_t i = 0; i < t.postures().size(); ++i)
              if (t.postures()[i].alive) ids.push_back(static_cast<int>(i));
            return ids;
          },
          "Ids of the live posture tasks.");
  bindMarkerTasks(cls);
}

void bindResults(py::module_& m) {
  py::enum_<ik::Status>(m, "Status", "How a solve or step ended, best to worst.")
      .value("converged", ik::Status::Converged)
      .value("stationary", ik::Status::Stationary)
      .value("iteration_limit", ik::Status::IterationLimit)
      .value("infeasible", ik::Status::Infeasible)
      .value("failed", ik::Status::Failed);
  py::class_<ik::Result>(m, "Result", "Fields every solver's result carries (numerical outcomes, never raised).")
      .def_readonly("status", &ik::Result::status)
      .def_readonly("iterations", &ik::Result::iterations)
      .def_readonly("mnte", &ik::Result::mnte, "MNTE (DYN Eq. 15) of the orientation targets")
      .def_readonly("limit_violation", &ik::Result::limit_violation, "rad or m")
      .def_readonly("row_violation", &ik::Result::row_violation)
      .def_readonly("gap", &ik::Result::gap, "no valid data this frame: the state was held")
      .def("__repr__", [](const ik::Result& r) {
        return std::string("<kinetrack.Result ") + ik::toString(r.status) + ", " + std::to_string(r.iterations) +
               " iterations, mnte " + std::to_string(r.mnte) + ">";
      });
  py::class_<StepResult, ik::Result>(m, "StepResult", "One DYN step.")
      .def_readonly("qp_iterations", &StepResult::qp_iterations)
      .def_readonly("active_bounds", &StepResult::active_bounds)
      .def_readonly("max_gain_dt", &StepResult::max_gain_dt, "largest K·Δt (stable below 2)")
      .def_readonly("unstable_gain", &StepResult::unstable_gain)
      .def_readonly("diverging", &StepResult::diverging)
      .def_readonly("non_finite", &StepResult::non_finite)
      .def_readonly("residual_norm", &StepResult::residual_norm, "‖r‖ before the step");
  py::class_<SolveResult, ik::Result>(m, "SolveResult", "One whole-body per-frame solve.")
      .def_readonly("rejected_steps", &SolveResult::rejected_steps)
      .def_readonly("qp_iterations", &SolveResult::qp_iterations)
      .def_readonly("evaluations", &SolveResult::evaluations)
      .def_readonly("initial_cost", &SolveResult::initial_cost)
      .def_readonly("cost", &SolveResult::cost)
      .def_readonly("max_orientation_error", &SolveResult::max_orientation_error, "rad")
      .def_readonly("max_position_error", &SolveResult::max_position_error, "m")
      .def_readonly("damping", &SolveResult::damping);
  py::class_<PairwiseSolveResult, ik::Result>(m, "PairwiseSolveResult", "One pair-wise per-frame solve.")
      .def_readonly("subsystems", &PairwiseSolveResult::subsystems)
      .def_readonly("not_converged", &PairwiseSolveResult::not_converged)
      .def_readonly("total_iterations", &PairwiseSolveResult::total_iterations)
      .def_readonly("max_pair_orientation_error", &PairwiseSolveResult::max_pair_orientation_error, "rad")
      .def_readonly("max_orientation_error", &PairwiseSolveResult::max_orientation_error, "rad")
      .def_readonly("max_position_error", &PairwiseSolveResult::max_position_error, "m")
      .def_readonly("unenforced_row_violation", &PairwiseSolveResult::unenforced_row_violation)
      .def_readonly("wall_time", &PairwiseSolveResult::wall_time, "s");
}

void bindOptions(py::module_& m) {
  py::enum_<BaseIntegrator>(m, "BaseIntegrator")
      .value("exponential_baumgarte", BaseIntegrator::ExponentialBaumgarte)
      .value("exponential", BaseIntegrator::Exponential)
      .value("euler_baumgarte", BaseIntegrator::EulerBaumgarte);
  py::enum_<TargetVelocitySource>(m, "TargetVelocitySource")
      .value("zero", TargetVelocitySource::Zero)
      .value("finite_difference", TargetVelocitySource::FiniteDifference);
  py::enum_<Discretization>(m, "Discretization")
      .value("paper", Discretization::Paper)
      .value("consistent", Discretization::Consistent);
  py::enum_<GainMode>(m, "GainMode").value("continuous", GainMode::Continuous).value("per_step", GainMode::PerStep);
  py::class_<DynamicalIkOptions> dyn(m, "DynamicalIkOptions",
                                     "Options of DynamicalIk (units per field; defaults as in C++).");
  dyn.def_readwrite("damping", &DynamicalIkOptions::damping, "λ of ½λ‖ν‖²")
      .def_readwrite("collision_damping", &DynamicalIkOptions::collision_damping,
                     "λ added while collision rows are in the QP")
      .def_readwrite("limit_gain", &DynamicalIkOptions::limit_gain, "tanh slope k (1/rad)")
      .def_readwrite("default_velocity_limit", &DynamicalIkOptions::default_velocity_limit, "rad/s or m/s")
      .def_readwrite("discrete_safe_limits", &DynamicalIkOptions::discrete_safe_limits)
      .def_readwrite("use_model_velocity_limits", &DynamicalIkOptions::use_model_velocity_limits)
      .def_readwrite("base_linear_velocity_limit", &DynamicalIkOptions::base_linear_velocity_limit, "m/s")
      .def_readwrite("base_angular_velocity_limit", &DynamicalIkOptions::base_angular_velocity_limit, "rad/s")
      .def_readwrite("integrator", &DynamicalIkOptions::integrator)
      .def_readwrite("baumgarte_gain", &DynamicalIkOptions::baumgarte_gain, "ρ (1/s)")
      .def_readwrite("velocity_source", &DynamicalIkOptions::velocity_source)
      .def_readwrite("gain_mode", &DynamicalIkOptions::gain_mode)
      .def_readwrite("discretization", &DynamicalIkOptions::discretization)
      .def_readwrite("midpoint_jacobian", &DynamicalIkOptions::midpoint_jacobian)
      .def_readwrite("sparse_qp", &DynamicalIkOptions::sparse_qp);
  keywordInit(dyn);

  py::enum_<InstantaneousIkBackend>(m, "InstantaneousIkBackend")
      .value("native", InstantaneousIkBackend::Native)
      .value("ipopt", InstantaneousIkBackend::Ipopt);
  py::enum_<OrientationResidual>(m, "OrientationResidual")
      .value("chordal", OrientationResidual::Chordal)
      .value("sine", OrientationResidual::Sine);
  py::class_<InstantaneousIkOptions> inst(m, "InstantaneousIkOptions", "Options of InstantaneousIk.");
  inst.def_readwrite("backend", &InstantaneousIkOptions::backend)
      .def_readwrite("orientation_tolerance", &InstantaneousIkOptions::orientation_tolerance, "rad")
      .def_readwrite("position_tolerance", &InstantaneousIkOptions::position_tolerance, "m")
      .def_readwrite("orientation_residual", &InstantaneousIkOptions::orientation_residual)
      .def_readwrite("max_iterations", &InstantaneousIkOptions::max_iterations)
      .def_readwrite("step_tolerance", &InstantaneousIkOptions::step_tolerance)
      .def_readwrite("function_tolerance", &InstantaneousIkOptions::function_tolerance)
      .def_readwrite("feasibility_tolerance", &InstantaneousIkOptions::feasibility_tolerance)
      .def_readwrite("initial_damping", &InstantaneousIkOptions::initial_damping)
      .def_readwrite("min_damping", &InstantaneousIkOptions::min_damping)
      .def_readwrite("max_damping", &InstantaneousIkOptions::max_damping)
      .def_readwrite("keep_damping", &InstantaneousIkOptions::keep_damping)
      .def_readwrite("sparse_qp", &InstantaneousIkOptions::sparse_qp);
  keywordInit(inst);

  py::class_<PairwiseIkOptions> pair(m, "PairwiseIkOptions", "Options of PairwiseIk.");
  pair.def_readwrite("threads", &PairwiseIkOptions::threads, "0 = one per hardware thread")
      .def_readwrite("spin_microseconds", &PairwiseIkOptions::spin_microseconds, "µs")
      .def_readwrite("solver", &PairwiseIkOptions::solver, "InstantaneousIkOptions of each subsystem")
      .def_readwrite("merge_coupled_subsystems", &PairwiseIkOptions::merge_coupled_subsystems);
  keywordInit(pair);
}

}  // namespace

void bindIk(py::module_& m) {
  bindTaskSet(m);
  bindResults(m);
  bindOptions(m);

  py::class_<DynamicalIk> dyn(m, "DynamicalIk", R"doc(
DYN, dynamical inverse kinematics (DYN paper §3): each step computes world-frame residuals at the
previous state, corrected velocities v* = v + K r (Eq. 9), solves the limit-constrained velocity QP
(Eq. 10-13) and integrates over dt seconds. One QP per step, no iterations.

    ik = kinetrack.DynamicalIk(model)
    t = ik.tasks.add_orientation("Pelvis", weight=1.0, gain=10.0)   # K in 1/s
    ik.tasks.set_orientation(t, R)          # (3, 3) or quaternion (w, x, y, z)
    result = ik.step(0.01)                  # StepResult
    q, v = ik.state, ik.velocity            # (nq,), (nv,)

solve_sequence(dt, positions, rotations) runs many frames in one call.)doc");
  dyn.def(py::init([](std::shared_ptr<Model> model, std::optional<DynamicalIkOptions> options) {
            return std::make_unique<DynamicalIk>(std::shared_ptr<const Model>(std::move(model)),
                                                 options.value_or(DynamicalIkOptions{}));
          }),
          py::arg("model"), py::arg("options") = py::none());
  bindSolverCommon(dyn);
  dyn.def_property("options", &DynamicalIk::options, &DynamicalIk::setOptions, "DynamicalIkOptions (a copy)")
      .def_property_readonly(
          "velocity", [](const DynamicalIk& s) { return toNumpy(s.velocity()); }, "(nv,) ν of the last step")
      .def("step", &DynamicalIk::step, py::arg("dt"), "One DYN step of dt > 0 seconds; returns a StepResult.")
      .def("mnte", &DynamicalIk::mnte, "MNTE of the orientation targets at the current state.")
      .def(
          "solve_sequence",
          [](DynamicalIk& s, ArrayLike dt, ArrayLike positions, ArrayLike rotations, int steps_per_frame) {
            const Sequence seq(s.tasks(), positions, rotations);
            if (steps_per_frame < 1) throw py::value_error("steps_per_frame must be ≥ 1");
            const bool scalar = py::isinstance<py::float_>(dt) || py::isinstance<py::int_>(dt);
            const Array dts = scalar ? Array() : checkedArray(dt, {seq.frames}, "dt (one per frame)");
            const double dt0 = scalar ? dt.cast<double>() : 0.0;
            return runSequence(s, seq, [&](py::ssize_t k) {
              const double h = (scalar ? dt0 : dts.data()[k]) / steps_per_frame;
              ik::Result worst;
              for (int i = 0; i < steps_per_frame; ++i) {
                const StepResult r = s.step(h);
                worst.status = ik::worst(worst.status, r.status);
                worst.limit_violation = std::max(worst.limit_violation, r.limit_violation);
              }
              worst.iterations = steps_per_frame;
              worst.mnte = s.mnte();
              return worst;
            });
          },
          py::arg("dt"), py::arg("positions") = py::none(), py::arg("rotations") = py::none(),
          py::arg("steps_per_frame") = 1,
          (std::string("DYN over N frames: frame k sets its targets and takes steps_per_frame steps over dt "
                       "(s; a number or one per frame, (N,)). mnte is at the state after the frame.") +
           kSequenceDoc)
              .c_str());

  bindPerFrameSolver<InstantaneousIk, InstantaneousIkOptions>(
      m, "InstantaneousIk", R"doc(
Whole-body per-frame IK (SPEC §3): each solve iterates bounded Levenberg-Marquardt (or Ipopt, with
backend=InstantaneousIkBackend.ipopt) from the current state to the frame's targets; solve()
returns a SolveResult.)doc",
      [](std::shared_ptr<const Model> model, const InstantaneousIkOptions& o) {
        return makeInstantaneousIk(std::move(model), o);
      });
  bindPerFrameSolver<PairwiseIk, PairwiseIkOptions>(
      m, "PairwiseIk", R"doc(
Pair-wise per-frame IK (DYN §5.1): one small subsystem per pair of adjacent targets, solved on a
thread pool; position targets only on the root link. solve() returns a PairwiseSolveResult.)doc",
      [](std::shared_ptr<const Model> model, const PairwiseIkOptions& o) { return PairwiseIk(std::move(model), o); });
}

}  // namespace kinetrack::python
