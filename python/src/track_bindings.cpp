// `kinetrack track` as a Python call: load a capture (BVH, MVNX, pose-target CSV), plan its
// targets on a model and run the tracker over every frame with the library's pipeline
// (track/pipeline.hpp, the code the CLI runs), the GIL released. Returns the joint trajectories
// as numpy arrays and the summary as a dict.
#include <pybind11/stl.h>

#include <chrono>
#include <functional>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::python {
namespace {

/// A loaded capture and the reader options it was loaded with (from-clip models need the units).
struct PyCapture {
  track::Capture capture;
  io::BvhUnits units = io::BvhUnits::Auto;
  double rate = 0.0;
  std::string path;
};

std::shared_ptr<PyCapture> loadCapturePy(const std::string& path, const std::string& units, double rate) {
  auto c = std::make_shared<PyCapture>();
  c->units = io::parseBvhUnits(units);
  c->rate = rate;
  c->path = path;
  track::CaptureOptions o;
  o.units = c->units;
  o.rate = rate;
  c->capture = released([&] { return track::loadCapture(path, o); });
  return c;
}

struct PyTrackResult {
  std::shared_ptr<Model> model;
  py::array_t<double> times, q, mnte, rmse, step_us;
  py::array_t<bool> gaps;
  py::dict summary;
};

using SummaryInt = Field<track::TrackSummary, int>;
using SummaryDouble = Field<track::TrackSummary, double>;
constexpr SummaryInt kIntFields[] = {{"frames", &track::TrackSummary::frames},
                                     {"gaps", &track::TrackSummary::gaps},
                                     {"frames_after_transient", &track::TrackSummary::frames_after_transient},
                                     {"non_finite_steps", &track::TrackSummary::non_finite},
                                     {"converged", &track::TrackSummary::converged},
                                     {"stationary", &track::TrackSummary::stationary},
                                     {"iteration_limit", &track::TrackSummary::iteration_limit},
                                     {"infeasible", &track::TrackSummary::infeasible},
                                     {"failed", &track::TrackSummary::failed}};
constexpr SummaryDouble kDoubleFields[] = {{"transient_s", &track::TrackSummary::transient_s},
                                           {"mnte_median", &track::TrackSummary::mnte_median},
                                           {"mnte_p95", &track::TrackSummary::mnte_p95},
                                           {"mnte_max", &track::TrackSummary::mnte_max},
                                           {"rmse_median", &track::TrackSummary::rmse_median},
                                           {"limit_violation_max_rad", &track::TrackSummary::limit_violation_max_rad},
                                           {"row_violation_max", &track::TrackSummary::row_violation_max},
                                           {"step_us_p50", &track::TrackSummary::step_us_p50},
                                           {"step_us_p99", &track::TrackSummary::step_us_p99},
                                           {"step_us_max", &track::TrackSummary::step_us_max},
                                           {"substeps_mean", &track::TrackSummary::substeps_mean}};

py::dict summaryDict(const track::TrackSummary& s) {
  py::dict d;
  addFields(d, s, kIntFields);
  addFields(d, s, kDoubleFields);
  d["joint_rms_deg"] = s.has_truth ? py::float_(s.joint_rms_deg) : py::object(py::none());
  return d;
}

std::shared_ptr<PyCapture> captureOf(py::handle capture_arg, const std::string& units, double rate) {
  if (py::isinstance<py::str>(capture_arg)) return loadCapturePy(capture_arg.cast<std::string>(), units, rate);
  if (!py::isinstance<PyCapture>(capture_arg))
    throw py::type_error("capture: expected a path (str) or a kinetrack.Capture");
  return capture_arg.cast<std::shared_ptr<PyCapture>>();
}

// The options `track` and `retarget` share (the CLI's flags of the same names).
track::TrackerOptions trackerOptions(const std::string& solver, double max_step_deg, int threads, double transient) {
  track::TrackerOptions to;
  to.method = track::parseMethod(solver);
  to.max_step_rotation = max_step_deg * M_PI / 180.0;
  if (threads < 0) throw py::value_error("threads: expected ≥ 0, got " + std::to_string(threads));
  to.pairwise.threads = threads;
  if (!(transient >= 0.0)) throw py::value_error("transient: expected ≥ 0 s");
  return to;
}

// The job of `kinetrack track` and `kinetrack retarget` after their set-up: `plan` (run without
// the GIL) gives the model, targets and truth; every frame is tracked with the GIL released.
PyTrackResult runJob(const PyCapture& cap, const track::TrackerOptions& to, double transient,
                     const std::function<track::TrackSetup()>& plan, std::shared_ptr<Model> model,
                     std::chrono::steady_clock::time_point start) {
  const track::Capture& capture = cap.capture;
  const py::ssize_t n = capture.clip.numFrames();
  track::TrackRecord record;
  track::TrackSetup setup;
  std::vector<double> rows;
  {
    py::gil_scoped_release release;
    setup = plan();
    const int width = nq(setup.model);
    rows.resize(static_cast<std::size_t>(n * width));
    record = track::runTracking(
        setup.model, capture, setup.plan, to,
        [&](int f, const Configuration& q, const track::FrameOutcome&) {
          writeConfiguration(q, rows.data() + static_cast<std::ptrdiff_t>(f) * width);
        },
        setup.truth.empty() ? nullptr : &setup.truth);
  }
  PyTrackResult result;
  result.model = model ? std::move(model) : std::make_shared<Model>(std::move(setup.model));
  result.q = py::array_t<double>({n, py::ssize_t(nq(*result.model))}, rows.data());
  result.times = doubles(record.times);
  result.mnte = doubles(record.mnte);
  result.rmse = doubles(record.rmse);
  result.step_us = doubles(record.step_us);
  result.gaps = py::array_t<bool>(n);
  for (py::ssize_t f = 0; f < n; ++f) result.gaps.mutable_data()[f] = record.gap[static_cast<std::size_t>(f)] != 0;
  result.summary = summaryDict(track::summarize(record, transient, !setup.truth.empty()));
  result.summary["input"] = cap.path;
  result.summary["model"] = result.model->name();
  result.summary["dof"] = result.model->numJoints();
  result.summary["targets"] = setup.plan.bindings.size();
  result.summary["map_entries_skipped"] = setup.skipped;
  result.summary["clip_segments_unmapped"] = setup.unmapped;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.summary["wall_s"] = seconds;
  result.summary["frames_per_second"] = seconds > 0.0 ? static_cast<double>(n) / seconds : 0.0;
  return result;
}

PyTrackResult trackPy(py::object model_arg, py::object capture_arg, const std::string& solver, const std::string& map,
                      const std::string& calibration, double kappa, double max_step_deg, int max_substeps, int threads,
                      double transient, const std::string& units, double rate) {
  const auto start = std::chrono::steady_clock::now();
  const std::shared_ptr<PyCapture> cap = captureOf(capture_arg, units, rate);
  track::TrackerOptions to = trackerOptions(solver, max_step_deg, threads, transient);
  to.kappa = kappa;
  to.max_substeps = max_substeps;
  const bool from_clip = py::isinstance<py::str>(model_arg) && model_arg.cast<std::string>() == "from-clip";
  if (from_clip) {
    if (!cap->capture.bvh) throw py::value_error("model 'from-clip' needs a BVH capture");
    return runJob(
        *cap, to, transient, [&] { return track::setupFromClip(cap->capture, cap->units, cap->rate <= 0.0); }, nullptr,
        start);
  }
  if (!py::isinstance<Model>(model_arg)) throw py::type_error("model: expected a kinetrack.Model or \"from-clip\"");
  std::shared_ptr<Model> given = model_arg.cast<std::shared_ptr<Model>>();
  track::PlanOptions po;
  po.calibration = calibration;
  return runJob(
      *cap, to, transient, [&] { return track::setupOnModel(*given, cap->capture, map, po); }, given, start);
}

// `kinetrack retarget`: the robot's limits (an iCub gets its coupled rows and real velocity limits,
// icubForRetargeting), robot pairs through the maps, DYN with the velocity limits as hard bounds.
PyTrackResult retargetPy(std::shared_ptr<Model> robot, py::object capture_arg, const std::string& solver,
                         const std::string& map, const std::string& segment_map, const std::string& calibration,
                         double max_step_deg, int threads, double shoulder_velocity, double torso_velocity,
                         double transient) {
  const auto start = std::chrono::steady_clock::now();
  const std::shared_ptr<PyCapture> cap = captureOf(capture_arg, "auto", 0.0);
  track::TrackerOptions to = trackerOptions(solver, max_step_deg, threads, transient);
  to.dynamical.use_model_velocity_limits = true;
  if (isIcub(*robot)) robot = std::make_shared<Model>(icubForRetargeting(*robot, shoulder_velocity, torso_velocity));
  return runJob(
      *cap, to, transient,
      [&] {
        track::SegmentPairs pairs = track::resolveRobotPairs(*robot, cap->capture, segment_map, map);
        track::PlanOptions po;
        po.calibration = calibration;
        track::TrackSetup setup;
        setup.plan = track::planTracking(*robot, cap->capture, pairs.pairs, po);
        setup.model = *robot;
        setup.skipped = std::move(pairs.skipped);
        setup.unmapped = std::move(pairs.unmapped);
        return setup;
      },
      robot, start);
}

}  // namespace

void bindTrack(py::module_& m) {
  py::class_<PyCapture, std::shared_ptr<PyCapture>>(m, "Capture", "A capture loaded for tracking (load_capture).")
      .def_property_readonly("kind",
                             [](const PyCapture& c) {
                               switch (c.capture.kind) {
                                 case track::CaptureKind::Bvh: return "bvh";
                                 case track::CaptureKind::Mvnx: return "mvnx";
                                 default: return "csv";
                               }
                             })
      .def_property_readonly(
          "clip",
          [](const std::shared_ptr<PyCapture>& c) {
            return std::shared_ptr<io::MotionClip>(c, &c->capture.clip);  // no copy; keeps the capture alive
          },
          "The capture's MotionClip (shared, not copied)")
      .def_property_readonly("calibration_names",
                             [](const PyCapture& c) {
                               std::vector<std::string> names;
                               for (const auto& [name, clip] : c.capture.calibrations) names.push_back(name);
                               return names;
                             })
      .def_readonly("path", &PyCapture::path);
  m.def("load_capture", &loadCapturePy, py::arg("path"), py::arg("units") = "auto", py::arg("rate") = 0.0,
        "Reads a capture by extension (.bvh, .mvnx, .csv pose targets) for track(); units for BVH ('auto', 'm', "
        "'cm', 'in', 'cmu'); rate (Hz) > 0 replaces the file's frame times. ParseError for a bad file.");

  py::class_<PyTrackResult>(m, "TrackResult", R"doc(
The result of track(): model (the model tracked on), times (N,) s, q (N, nq) joint trajectories
(base position m, base quaternion w, x, y, z, joints rad or m: the rows of the CLI's joint CSV),
gaps (N,) bool (state held: the frame had missing data), mnte (N,), rmse (N,) rad/s, step_us (N,)
solve time per frame in µs, summary (dict: the CLI's summary figures plus wall_s and
frames_per_second of the whole call).)doc")
      .def_readonly("model", &PyTrackResult::model)
      .def_readonly("times", &PyTrackResult::times)
      .def_readonly("q", &PyTrackResult::q)
      .def_readonly("gaps", &PyTrackResult::gaps)
      .def_readonly("mnte", &PyTrackResult::mnte)
      .def_readonly("rmse", &PyTrackResult::rmse)
      .def_readonly("step_us", &PyTrackResult::step_us)
      .def_readonly("summary", &PyTrackResult::summary)
      .def("__iter__", [](const PyTrackResult& r) { return py::iter(py::make_tuple(r.q, r.summary)); });
  m.def("track", &trackPy, py::arg("model"), py::arg("capture"), py::arg("solver") = "dynamical", py::kw_only(),
        py::arg("map") = "", py::arg("calibration") = "", py::arg("kappa") = 1.0, py::arg("max_step_deg") = 5.0,
        py::arg("max_substeps") = 64, py::arg("threads") = 0, py::arg("transient") = 2.0, py::arg("units") = "auto",
        py::arg("rate") = 0.0,
        R"doc(Tracks a capture onto a model, as `kinetrack track` does (same pipeline, same numbers).

model: a Model, or "from-clip" (the BVH's own skeleton, with the file's joint values as ground truth).
capture: a path (.bvh, .mvnx, .csv; units and rate as in load_capture) or a Capture.
solver: "dynamical" (DYN), "wholebody", "wholebody-ipopt" or "pairwise" (threads: 0 = one per core).
map: segment map ("" = auto, a built-in map name or a JSON file); calibration: "none", "first",
"frame:N", "rest", "npose", … (default per format); kappa: DYN per-step gain K·Δt (0 < κ < 2);
max_step_deg / max_substeps: DYN sub-stepping; transient: s excluded from the statistics.
Returns a TrackResult (iterable as (q, summary)). Releases the GIL while tracking.)doc");
  m.def("retarget", &retargetPy, py::arg("robot"), py::arg("capture"), py::arg("solver") = "dynamical", py::kw_only(),
        py::arg("map") = "", py::arg("segment_map") = "", py::arg("calibration") = "", py::arg("max_step_deg") = 5.0,
        py::arg("threads") = 0, py::arg("shoulder_velocity") = 2.0, py::arg("torso_velocity") = 1.0,
        py::arg("transient") = 2.0,
        R"doc(Human motion onto a humanoid robot, as `kinetrack retarget` does: orientation targets from the human
segments on robot links through a robot map (map: "" = by the robot's name, a built-in name or a
JSON file; segment_map for the capture), a position target on the base, the robot's joint and
velocity limits as hard bounds. An iCub URDF gets its coupled shoulder rows and the given shoulder
and torso velocity limits (rad/s). Returns a TrackResult on the robot (result.model).)doc");
}

}  // namespace kinetrack::python
