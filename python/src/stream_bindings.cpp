// kinetrack.StreamTracker: targets in, one frame at a time, a configuration out, with any
// tracking method (track/stream_tracker.hpp) — what a live capture feed drives from Python.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/track/stream_tracker.hpp"
#include "options.hpp"
#include "sequence.hpp"

namespace kinetrack::python {
namespace {

/// The tracker plus the converted targets of one frame (sized once: track() does not allocate).
struct PyStreamTracker {
  PyStreamTracker(std::shared_ptr<const Model> model, std::vector<track::StreamTarget> targets,
                  const track::TrackerOptions& options)
      : tracker(std::move(model), std::move(targets), options),
        R(static_cast<std::size_t>(tracker.numTargets()), Matrix3d::Identity()),
        p(static_cast<std::size_t>(tracker.numTargets()), Vector3d::Zero()) {}
  track::StreamTracker tracker;
  std::vector<Matrix3d> R;
  std::vector<Vector3d> p;

  [[nodiscard]] py::ssize_t targets() const { return tracker.numTargets(); }
  // Checked views of one frame's (or N frames') rotations and positions.
  [[nodiscard]] std::pair<Array, bool> rotations(py::handle r, bool sequence) const {
    const py::array a = py::array::ensure(r);
    const bool quaternions = a && a.ndim() == (sequence ? 3 : 2);
    if (sequence)
      return {quaternions ? checkedArray(r, {kAny, targets(), 4}, "rotations (quaternions w, x, y, z per target)")
                          : checkedArray(r, {kAny, targets(), 3, 3}, "rotations (one (3, 3) per target)"),
              quaternions};
    return {quaternions ? checkedArray(r, {targets(), 4}, "rotations (quaternions w, x, y, z per target)")
                        : checkedArray(r, {targets(), 3, 3}, "rotations (one (3, 3) per target)"),
            quaternions};
  }
  // Frame k of the checked arrays into R, p (no allocation), then one tracked frame.
  track::FrameOutcome trackFrame(double time, const Array& rot, bool quaternions, const Array& pos, py::ssize_t k,
                                 bool valid) {
    const py::ssize_t stride = quaternions ? 4 : 9;
    for (py::ssize_t t = 0; t < targets(); ++t) {
      R[static_cast<std::size_t>(t)] = rotationFromRaw(rot.data() + (k * targets() + t) * stride, quaternions);
      const double* v = pos.data() + (k * targets() + t) * 3;
      p[static_cast<std::size_t>(t)] = Vector3d(v[0], v[1], v[2]);
    }
    return tracker.track(time, R, p, valid);
  }
};

void bindTrackerOptions(py::module_& m) {
  py::enum_<track::Method>(m, "Method", "Tracking methods (DYN paper §5.1).")
      .value("dynamical", track::Method::Dynamical)
      .value("wholebody", track::Method::WholeBody)
      .value("wholebody_ipopt", track::Method::WholeBodyIpopt)
      .value("pairwise", track::Method::Pairwise);
  py::class_<track::TrackerOptions> o(m, "TrackerOptions", "Options of a tracking run and its frame solver.");
  o.def_readwrite("method", &track::TrackerOptions::method)
      .def_readwrite("solver", &track::TrackerOptions::solver,
                     "a registered frame solver's name (frame_solvers(): 'marker-ik', 'pin-drag', ...); "
                     "empty: `method`")
      .def_readwrite("marker_ik", &track::TrackerOptions::marker_ik, "MarkerIkOptions (solver 'marker-ik')")
      .def_readwrite("pin_drag", &track::TrackerOptions::pin_drag, "PinDragOptions (solver 'pin-drag')")
      .def_readwrite("kappa", &track::TrackerOptions::kappa, "DYN per-step gain K·Δt, 0 < κ < 2")
      .def_readwrite("max_step_rotation", &track::TrackerOptions::max_step_rotation,
                     "DYN sub-stepping: largest target rotation per step (rad)")
      .def_readwrite("max_substeps", &track::TrackerOptions::max_substeps)
      .def_readwrite("dynamical", &track::TrackerOptions::dynamical, "DynamicalIkOptions")
      .def_readwrite("wholebody", &track::TrackerOptions::wholebody, "InstantaneousIkOptions")
      .def_readwrite("pairwise", &track::TrackerOptions::pairwise, "PairwiseIkOptions")
      .def_readwrite("first_frame_iterations", &track::TrackerOptions::first_frame_iterations)
      .def_readwrite("first_frame_interval", &track::TrackerOptions::first_frame_interval, "s");
  keywordInit(o);
  py::class_<track::StreamTarget> t(m, "StreamTarget", "A target of a stream: orientation and/or position of a frame.");
  t.def_readwrite("frame", &track::StreamTarget::frame)
      .def_readwrite("orientation", &track::StreamTarget::orientation)
      .def_readwrite("position", &track::StreamTarget::position)
      .def_readwrite("weight", &track::StreamTarget::weight);
  keywordInit(t);
  py::class_<track::FrameOutcome, ik::Result>(m, "FrameOutcome", "One tracked frame.")
      .def_readonly("rmse", &track::FrameOutcome::rmse, "angular-velocity RMSE over the frame (rad/s)")
      .def_readonly("non_finite", &track::FrameOutcome::non_finite);
}

}  // namespace

void bindStream(py::module_& m) {
  bindTrackerOptions(m);
  m.def(
      "frame_solvers",
      [] {
        py::list out;
        for (const track::FrameSolverInfo& i : track::frameSolvers()) {
          py::dict d;
          d["name"] = i.name;
          d["description"] = i.description;
          d["orientation"] = i.orientation;
          d["position"] = i.position;
          out.append(d);
        }
        return out;
      },
      "The registered frame solvers (name, description, and which target kinds each holds): the names "
      "TrackerOptions(solver=...) takes.");
  py::class_<PyStreamTracker>(m, "StreamTracker", R"doc(
Tracks a stream of frames with any method: each frame gives a time (s, increasing) and, per target
in the order given, a world orientation ((3, 3) R_WT or a quaternion (w, x, y, z)) and a world
position (m; ignored for orientation-only targets). The first frame is reached from the initial
state (set_state). Frames with valid=False are gaps (state held).

    tracker = kinetrack.StreamTracker(model, [kinetrack.StreamTarget(frame="Pelvis", position=True),
                                              kinetrack.StreamTarget(frame="Head")],
                                      kinetrack.TrackerOptions(method=kinetrack.Method.dynamical))
    outcome = tracker.track(t, rotations (T, 3, 3), positions (T, 3)))doc")
      .def(py::init([](std::shared_ptr<Model> model, std::vector<track::StreamTarget> targets,
                       std::optional<track::TrackerOptions> options) {
             return std::make_unique<PyStreamTracker>(std::shared_ptr<const Model>(std::move(model)),
                                                      std::move(targets), options.value_or(track::TrackerOptions{}));
           }),
           py::arg("model"), py::arg("targets"), py::arg("options") = py::none())
      .def_property_readonly("num_targets", [](const PyStreamTracker& s) { return s.targets(); })
      .def_property_readonly("state", [](const PyStreamTracker& s) { return configurationArray(s.tracker.state()); })
      .def(
          "set_state",
          [](PyStreamTracker& s, ArrayLike q) { s.tracker.setState(toConfiguration(s.tracker.solver().model(), q)); },
          py::arg("q"))
      .def(
          "track",
          [](PyStreamTracker& s, double time, ArrayLike rotations, ArrayLike positions, bool valid) {
            const auto [rot, quaternions] = s.rotations(rotations, false);
            const Array pos = checkedArray(positions, {s.targets(), 3}, "positions (one (3,) per target)");
            py::gil_scoped_release release;
            return s.trackFrame(time, rot, quaternions, pos, 0, valid);
          },
          py::arg("time"), py::arg("rotations"), py::arg("positions"), py::arg("valid") = true,
          "One frame; returns a FrameOutcome (status, iterations, mnte, gap, rmse).")
      .def(
          "track_sequence",
          [](PyStreamTracker& s, ArrayLike times, ArrayLike rotations, ArrayLike positions, ArrayLike valid) {
            const auto [rot, quaternions] = s.rotations(rotations, true);
            const py::ssize_t n = rot.shape(0);
            const Array t = checkedArray(times, {n}, "times (one per frame, s)");
            const Array pos = checkedArray(positions, {n, s.targets(), 3}, "positions (N, targets, 3)");
            const Array ok = valid.is_none() ? Array() : checkedArray(valid, {n}, "valid (one per frame)");
            SequenceOutput out(n, nq(s.tracker.solver().model()));
            py::array_t<bool> gaps(n);
            {
              py::gil_scoped_release release;
              for (py::ssize_t k = 0; k < n; ++k) {
                const track::FrameOutcome o =
                    s.trackFrame(t.data()[k], rot, quaternions, pos, k, valid.is_none() || ok.data()[k] != 0.0);
                out.write(k, s.tracker.state(), o);
                gaps.mutable_data()[k] = o.gap;
              }
            }
            py::dict d = out.dict();
            d["gap"] = gaps;
            return d;
          },
          py::arg("times"), py::arg("rotations"), py::arg("positions"), py::arg("valid") = py::none(),
          "N frames in one call, the GIL released: times (N,), rotations (N, T, 3, 3) or (N, T, 4), positions "
          "(N, T, 3), valid (N,) optional. Returns a dict: q (N, nq), status, iterations, mnte, limit_violation, gap.");
}

}  // namespace kinetrack::python
