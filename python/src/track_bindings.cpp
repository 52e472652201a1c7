// `kinetrack track` as a Python call: load a capture (BVH, MVNX, pose-target CSV), plan its
// targets on a model and run the tracker over every frame with the library's pipeline
// (track/pipeline.hpp, the code the CLI runs), the GIL released. Returns the joint trajectories
// as numpy arrays and the summary as a dict.
#include <pybind11/stl.h>

#include <cmath>
#include <optional>

#include <chrono>
#include <filesystem>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/batch.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/robot_map_auto.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::python {
namespace {

/// A loaded capture and the reader options it was loaded with (from-clip models need the units).
struct PyCapture {
  track::Capture capture;
  io::BvhUnits units = io::BvhUnits::Auto;
  std::string units_name = "auto";
  double rate = 0.0;
  std::string path;
};

std::shared_ptr<PyCapture> loadCapturePy(const std::string& path, const std::string& units, double rate) {
  auto c = std::make_shared<PyCapture>();
  c->units = io::parseBvhUnits(units);
  c->units_name = units;
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
  py::object quality = py::none();  ///< retarget: the quality report (dict of qualityJson)
  py::object motion = py::none();   ///< retarget: the robot-learning motion (dict of arrays)
};

// The motion as the arrays of its .npz file (track::writeRobotMotionNpz).
py::dict motionDict(const track::RobotMotion& m) {
  const auto n = static_cast<py::ssize_t>(m.times.size());
  const auto nj = static_cast<py::ssize_t>(m.joint_names.size());
  auto rows = [&](py::ssize_t cols, auto get) {
    py::array_t<double> a({n, cols});
    for (py::ssize_t f = 0; f < n; ++f)
      for (py::ssize_t c = 0; c < cols; ++c) a.mutable_at(f, c) = get(static_cast<std::size_t>(f), c);
    return a;
  };
  py::array_t<bool> gap(n);
  for (py::ssize_t f = 0; f < n; ++f) gap.mutable_data()[f] = m.gap[static_cast<std::size_t>(f)] != 0;
  return py::dict(
      py::arg("fps") = m.fps, py::arg("time") = doubles(m.times), py::arg("joint_names") = m.joint_names,
      py::arg("quat_order") = track::toString(m.order),
      py::arg("root_pos") = rows(3, [&](std::size_t f, py::ssize_t c) { return m.root_position[f][c]; }),
      py::arg("root_rot") = rows(4, [&](std::size_t f, py::ssize_t c) { return m.root_quaternion[f][c]; }),
      py::arg("dof_pos") = rows(nj, [&](std::size_t f, py::ssize_t c) { return m.joints[f][c]; }),
      py::arg("root_lin_vel") = rows(3, [&](std::size_t f, py::ssize_t c) { return m.root_linear_velocity[f][c]; }),
      py::arg("root_ang_vel") = rows(3, [&](std::size_t f, py::ssize_t c) { return m.root_angular_velocity[f][c]; }),
      py::arg("dof_vel") = rows(nj, [&](std::size_t f, py::ssize_t c) { return m.joint_velocity[f][c]; }),
      py::arg("gap") = gap);
}

std::shared_ptr<PyCapture> captureOf(py::handle capture_arg, const std::string& units, double rate) {
  if (py::isinstance<py::str>(capture_arg)) return loadCapturePy(capture_arg.cast<std::string>(), units, rate);
  if (!py::isinstance<PyCapture>(capture_arg))
    throw py::type_error("capture: expected a path (str) or a kinetrack.Capture");
  return capture_arg.cast<std::shared_ptr<PyCapture>>();
}

// The library's result as numpy arrays; the summary is the CLI's summary JSON (one field list)
// plus the wall time and frame rate of the whole call.
PyTrackResult toPython(const app::TrackResult& r, std::shared_ptr<Model> given) {
  PyTrackResult result;
  result.model = given ? std::move(given) : std::make_shared<Model>(*r.model);
  const auto n = static_cast<py::ssize_t>(r.q.size());
  const int width = nq(*result.model);
  result.q = py::array_t<double>({n, py::ssize_t(width)});
  for (py::ssize_t f = 0; f < n; ++f)
    writeConfiguration(r.q[static_cast<std::size_t>(f)], result.q.mutable_data() + f * width);
  result.times = doubles(r.record.times);
  result.mnte = doubles(r.record.mnte);
  result.rmse = doubles(r.record.rmse);
  result.step_us = doubles(r.record.step_us);
  result.gaps = py::array_t<bool>(n);
  for (py::ssize_t f = 0; f < n; ++f) result.gaps.mutable_data()[f] = r.record.gap[static_cast<std::size_t>(f)] != 0;
  result.summary = py::module_::import("json").attr("loads")(app::summaryJson(r)).cast<py::dict>();
  result.summary["wall_s"] = r.seconds;
  result.summary["frames_per_second"] = r.seconds > 0.0 ? static_cast<double>(n) / r.seconds : 0.0;
  if (r.quality) result.quality = py::module_::import("json").attr("loads")(track::qualityJson(*r.quality));
  if (r.motion) result.motion = motionDict(*r.motion);
  return result;
}

app::TrackFiles filesOf(const std::string& out, const std::string& summary_json, const std::string& mot,
                        const std::string& bvh) {
  app::TrackFiles f;
  f.joints = out;
  f.summary_json = summary_json;
  f.mot = mot;
  f.bvh = bvh;
  return f;
}

PyTrackResult trackPy(py::object model_arg, py::object capture_arg, const std::string& solver, const std::string& map,
                      const std::string& calibration, double kappa, double max_step_deg, int max_substeps, int threads,
                      double transient, const std::string& units, double rate, const std::string& out,
                      const std::string& summary_json, const std::string& mot, const std::string& bvh) {
  const std::shared_ptr<PyCapture> cap = captureOf(capture_arg, units, rate);
  app::TrackOptions o;
  o.input = cap->path;
  o.solver = solver;
  o.map = map;
  o.calibration = calibration;
  o.kappa = kappa;
  o.max_step_deg = max_step_deg;
  o.max_substeps = max_substeps;
  o.threads = threads;
  o.transient = transient;
  o.units = cap->units_name;
  o.rate = cap->rate;
  o.files = filesOf(out, summary_json, mot, bvh);
  std::shared_ptr<Model> given;
  const bool from_clip = py::isinstance<py::str>(model_arg) && model_arg.cast<std::string>() == "from-clip";
  if (from_clip) {
    o.model.model = "from-clip";
  } else {
    if (!py::isinstance<Model>(model_arg)) throw py::type_error("model: expected a kinetrack.Model or \"from-clip\"");
    given = model_arg.cast<std::shared_ptr<Model>>();
  }
  const app::TrackResult r = released([&] { return app::runTrack(o, {}, given.get(), &cap->capture); });
  return toPython(r, std::move(given));
}

// `kinetrack retarget`: the robot's limits (an iCub gets its coupled rows and real velocity limits,
// icubForRetargeting), robot pairs through the maps, DYN with the velocity limits as hard bounds.
PyTrackResult retargetPy(std::shared_ptr<Model> robot, py::object capture_arg, const std::string& solver,
                         const std::string& map, const std::string& segment_map, const std::string& calibration,
                         double max_step_deg, int threads, double shoulder_velocity, double torso_velocity,
                         double transient, const std::string& out, const std::string& summary_json,
                         const std::string& mot, const std::string& bvh, const std::string& save_map, bool contacts,
                         double contact_weight, double root_weight, const std::string& quality_json,
                         const std::string& quality_csv, const std::string& motion_out, double motion_rate,
                         const std::string& quat_order, bool collisions, double collision_margin) {
  const std::shared_ptr<PyCapture> cap = captureOf(capture_arg, "auto", 0.0);
  app::RetargetOptions o;
  o.save_map = save_map;
  o.input = cap->path;
  o.solver = solver;
  o.map = map;
  o.segment_map = segment_map;
  o.calibration = calibration;
  o.max_step_deg = max_step_deg;
  o.threads = threads;
  o.shoulder_velocity = shoulder_velocity;
  o.torso_velocity = torso_velocity;
  o.transient = transient;
  o.files = filesOf(out, summary_json, mot, bvh);
  o.contacts = contacts;
  o.contact_weight = contact_weight;
  o.root_weight = root_weight;
  o.quality_json = quality_json;
  o.quality_csv = quality_csv;
  o.motion_out = motion_out;
  o.motion_rate = motion_rate;
  o.quaternion_order = quat_order;
  o.collisions = collisions;
  o.collision_margin = collision_margin;
  const app::TrackResult r = released([&] { return app::runRetarget(o, {}, robot.get(), &cap->capture); });
  return toPython(r, nullptr);
}

// A robot map as a dict: name, description, detect, segments (canonical segment → robot frame,
// in map order), weights and offsets (3×3) of the entries that have them.
py::dict robotMapDict(const io::SegmentMap& m) {
  py::dict segments, weights, offsets;
  for (const io::SegmentMapEntry& e : m.entries) {
    segments[py::str(e.clip_segment)] = e.model_frame;
    if (e.weight != 1.0) weights[py::str(e.clip_segment)] = e.weight;
    if (!e.offset.isIdentity(0.0)) offsets[py::str(e.clip_segment)] = toNumpy(e.offset);
  }
  return py::dict(py::arg("name") = m.name, py::arg("description") = m.description, py::arg("detect") = m.detect,
                  py::arg("segments") = segments, py::arg("weights") = weights, py::arg("offsets") = offsets);
}

// `kinetrack demo`: the built-in synthetic walk tracked with DYN; the summary gains the demo's
// check (check_ok, check) beside the track summary's fields.
PyTrackResult demoPy(const std::string& model, double height, double mass, double duration, double rate,
                     double transient, const std::string& out) {
  app::DemoOptions o;
  o.model = model, o.height = height, o.mass = mass, o.duration = duration, o.rate = rate;
  o.transient = transient, o.out = out;
  const app::DemoResult d = released([&] { return app::runDemo(o); });
  PyTrackResult result = toPython(d.track, nullptr);
  result.summary["check_ok"] = d.check_ok;
  result.summary["check"] = d.checkLine();
  return result;
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
      .def_static(
          "from_arrays",
          [](const std::vector<std::string>& names, py::handle times, py::handle positions, py::handle rotations,
             std::optional<std::vector<int>> parents, const std::string& source) {
            const auto ns = static_cast<py::ssize_t>(names.size());
            const Array t = checkedArray(times, {kAny}, "times");
            const py::ssize_t n = t.shape(0);
            const Array p = checkedArray(positions, {n, ns, 3}, "positions");
            py::array r = py::array::ensure(rotations);
            const bool quaternions = r && r.ndim() == 3;
            const Array R = quaternions ? checkedArray(rotations, {n, ns, 4}, "rotations (quaternions w, x, y, z)")
                                        : checkedArray(rotations, {n, ns, 3, 3}, "rotations (matrices)");
            io::MotionClip clip;
            clip.source = source;
            clip.segment_names = names;
            if (parents) clip.segment_parent = *parents;
            clip.times.assign(t.data(), t.data() + n);
            clip.poses.resize(static_cast<std::size_t>(n * ns));
            const std::size_t stride = quaternions ? 4 : 9;
            for (py::ssize_t i = 0; i < n * ns; ++i) {
              Transform& X = clip.poses[static_cast<std::size_t>(i)];
              X.p = Vector3d(p.data()[3 * i], p.data()[3 * i + 1], p.data()[3 * i + 2]);
              const double* v = R.data() + stride * static_cast<std::size_t>(i);
              bool missing = false;
              for (std::size_t k = 0; k < stride; ++k) missing = missing || std::isnan(v[k]);
              X.R = missing ? Matrix3d::Constant(std::nan("")) : rotationFromRaw(v, quaternions);
            }
            auto c = std::make_shared<PyCapture>();
            c->capture = track::captureFromClip(std::move(clip));
            c->path = source;
            return c;
          },
          py::arg("names"), py::arg("times"), py::arg("positions"), py::arg("rotations"), py::kw_only(),
          py::arg("parents") = py::none(), py::arg("source") = "arrays",
          R"doc(A capture of segment poses from arrays, for track() and retarget() like a file's: names (S,), times
(N,) s increasing, positions (N, S, 3) m and rotations (N, S, 3, 3) segment-to-world matrices or
(N, S, 4) quaternions w, x, y, z, in a Z-up world; parents (S,) the parent index of each segment
(-1 for a root; parents before children; default all -1). Calibrated like a BVH (its first frame
by default); segment names are matched as a BVH's are (segment maps). A sample with a NaN is a gap.
ValueError naming the frame and segment for an orientation that is not a rotation, an infinite
position, times not increasing or a bad parent.)doc")
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
solve time per frame in µs, summary (dict: the fields of the CLI's --summary-json, plus wall_s
and frames_per_second of the whole call).)doc")
      .def_readonly("model", &PyTrackResult::model)
      .def_readonly("times", &PyTrackResult::times)
      .def_readonly("q", &PyTrackResult::q)
      .def_readonly("gaps", &PyTrackResult::gaps)
      .def_readonly("mnte", &PyTrackResult::mnte)
      .def_readonly("rmse", &PyTrackResult::rmse)
      .def_readonly("step_us", &PyTrackResult::step_us)
      .def_readonly("summary", &PyTrackResult::summary)
      .def_readonly("quality", &PyTrackResult::quality)
      .def_readonly("motion", &PyTrackResult::motion)
      .def("__iter__", [](const PyTrackResult& r) { return py::iter(py::make_tuple(r.q, r.summary)); });
  const app::DemoOptions demo;
  m.def("demo", &demoPy, py::kw_only(), py::arg("model") = demo.model, py::arg("height") = demo.height,
        py::arg("mass") = demo.mass, py::arg("duration") = demo.duration, py::arg("rate") = demo.rate,
        py::arg("transient") = demo.transient, py::arg("out") = "",
        R"doc(`kinetrack demo` (the same job): a procedurally generated walk of a built-in human model ("human66" or
"human48", height m, mass kg) of `duration` s at `rate` Hz, tracked with DYN from the zero pose.
out: the joint CSV `kinetrack demo --out` writes (the same bytes); "" = not written. Returns a
TrackResult whose summary also holds check_ok (joint RMS < 0.1°, MNTE p95 < 1e-4, no gaps, no
non-finite step) and check (the line the CLI prints). Releases the GIL.)doc");
  m.def("track", &trackPy, py::arg("model"), py::arg("capture"), py::arg("solver") = "dynamical", py::kw_only(),
        py::arg("map") = "", py::arg("calibration") = "", py::arg("kappa") = 1.0, py::arg("max_step_deg") = 5.0,
        py::arg("max_substeps") = 64, py::arg("threads") = 0, py::arg("transient") = 2.0, py::arg("units") = "auto",
        py::arg("rate") = 0.0, py::arg("out") = "", py::arg("summary_json") = "", py::arg("mot") = "",
        py::arg("bvh") = "",
        R"doc(Tracks a capture onto a model, as `kinetrack track` does (same pipeline, same numbers).

model: a Model, or "from-clip" (the BVH's own skeleton, with the file's joint values as ground truth).
capture: a path (.bvh, .mvnx, .csv; units and rate as in load_capture) or a Capture.
solver: "dynamical" (DYN), "wholebody", "wholebody-ipopt" or "pairwise" (threads: 0 = one per core).
map: segment map ("" = auto, a built-in map name or a JSON file); calibration: "none", "first",
"frame:N", "rest", "npose", … (default per format); kappa: DYN per-step gain K·Δt (0 < κ < 2);
max_step_deg / max_substeps: DYN sub-stepping; transient: s excluded from the statistics.
out, summary_json, mot, bvh: the files `kinetrack track` writes (--out, --summary-json, --mot-out,
--bvh-out), the same bytes; "" = not written.
Returns a TrackResult (iterable as (q, summary)). Releases the GIL while tracking.)doc");
  m.def("retarget", &retargetPy, py::arg("robot"), py::arg("capture"), py::arg("solver") = "dynamical", py::kw_only(),
        py::arg("map") = "", py::arg("segment_map") = "", py::arg("calibration") = "", py::arg("max_step_deg") = 5.0,
        py::arg("threads") = 0, py::arg("shoulder_velocity") = 2.0, py::arg("torso_velocity") = 1.0,
        py::arg("transient") = 2.0, py::arg("out") = "", py::arg("summary_json") = "", py::arg("mot") = "",
        py::arg("bvh") = "", py::arg("save_map") = "", py::arg("contacts") = true, py::arg("contact_weight") = 1000.0,
        py::arg("root_weight") = 10.0, py::arg("quality_json") = "", py::arg("quality_csv") = "",
        py::arg("motion_out") = "", py::arg("motion_rate") = 0.0, py::arg("quat_order") = "xyzw",
        py::arg("collisions") = true, py::arg("collision_margin") = 0.01,
        R"doc(Human motion onto a humanoid robot, as `kinetrack retarget` does: orientation targets from the human
segments on robot links through a robot map (map: "" = the built-in map detected from the robot's
names, else the automatic one; "auto", a built-in name or a JSON file: see robot_map; segment_map
for the capture), a position target on the base, the robot's joint and velocity limits as hard
bounds. An iCub URDF gets its coupled shoulder rows and the given shoulder and torso velocity limits
(rad/s). out, summary_json, mot, bvh: the files `kinetrack retarget` writes; save_map: write the
robot map used (JSON, readable as map). The robot stands on the ground (z = 0) and, with contacts,
its soles are held while the person's feet are down (contact_weight; root_weight for the base
position target); with collisions, its collision geometry stays above the ground and its links
collision_margin (m) apart. quality_json / quality_csv: the quality report and its per-frame series;
motion_out: root position, root quaternion (quat_order "xyzw" or "wxyz") and joint positions with
velocities, as .npz or CSV, resampled at motion_rate Hz when > 0. Returns a TrackResult on the
robot (result.model) whose `quality` is the report (dict) and `motion` the motion's arrays (dict:
fps, time, joint_names, quat_order, root_pos, root_rot, dof_pos, root_lin_vel, root_ang_vel,
dof_vel, gap).)doc");
  m.def(
      "robot_map",
      [](const Model& robot, const std::string& map) { return robotMapDict(track::resolveRobotMap(robot, map)); },
      py::arg("robot"), py::arg("map") = "",
      R"doc(The robot map retarget uses on `robot` (track::resolveRobotMap): map "" = the built-in map detected from
its frame and joint names (Unitree G1 23/29 DoF, H1, H1-2, iCub), else the automatic map; "auto" =
the automatic map; a built-in name; or a JSON file. Returns a dict: name, description, detect,
segments (canonical human segment → robot frame), weights and offsets (3×3) of the entries that
have them. ValueError naming what the automatic map could not find ("found 1 leg chain (needs 2)").)doc");
  m.def(
      "auto_robot_map", [](const Model& robot) { return robotMapDict(track::autoRobotMap(robot)); }, py::arg("robot"),
      R"doc(The automatic robot map of a humanoid (track::autoRobotMap, docs/segment_maps.md): from its kinematic tree
and zero pose, names only breaking ties; the description says what was found. A dict as robot_map.)doc");
  m.def(
      "robot_map_names", [] { return io::builtinRobotMapNames(); }, "The built-in robot maps' names, sorted.");
  m.def(
      "batch",
      [](const std::string& out, const std::string& manifest, const std::string& input_dir, int threads, bool resume,
         const std::string& model, const std::string& solver, const std::string& map, const std::string& calibration,
         const std::string& command, const std::string& args) {
        if (manifest.empty() == input_dir.empty()) throw py::value_error("give either manifest or input_dir");
        app::BatchRunOptions o;
        o.defaults.command = command;
        o.defaults.args = args;
        o.defaults.track.model.model = model;
        o.defaults.track.solver = solver;
        o.defaults.track.map = map;
        o.defaults.track.calibration = calibration;
        o.manifest = manifest;
        o.input_dir = input_dir;
        o.out = out;
        o.threads = threads;
        o.resume = resume;
        const app::BatchReport report = released([&] { return app::runBatch(o).report; });
        return py::dict(py::arg("exit") = report.exit, py::arg("ok") = report.ok, py::arg("failed") = report.failed,
                        py::arg("frames") = report.frames, py::arg("report") = report.text,
                        py::arg("report_csv") = (std::filesystem::path(out) / "report.csv").string());
      },
      py::arg("out"), py::kw_only(), py::arg("manifest") = "", py::arg("input_dir") = "", py::arg("threads") = 0,
      py::arg("resume") = false, py::arg("model") = "", py::arg("solver") = "dynamical", py::arg("map") = "",
      py::arg("calibration") = "", py::arg("command") = "track", py::arg("args") = "",
      R"doc(`kinetrack batch` (the library's batch, on a thread pool, the GIL released): every input of a
manifest (CSV or JSON, docs/batch.md) or of input_dir run as its row's command into out/<stem>.*,
status records in out/status, out/report.csv; the same files as `kinetrack batch`.
track rows: their options are the manifest's columns, tracked into out/<stem>.csv and .json.
retarget, "markers ik", "hand track", "dynamics id" rows: the row's input, model and outputs
plus its args cell (the single command's options, e.g. "--setup s.xml"), parsed with the
options the library declares for that command (the CLI's, without --plot) and run as its job;
what the command prints goes to out/logs/<stem>.log.
model, solver, map, calibration, command, args: defaults of rows without those cells (command
also picks the files of input_dir). Returns a dict: exit (0 when every input is ok), ok, failed,
frames, report (the table the CLI prints), report_csv.)doc");
}

}  // namespace kinetrack::python
