// Labelling of unlabelled optical markers (markers::Labeller, issue 16): a labeller on an OpenSim
// model's markers or on a model with a marker set, one frame at a time (label) or a whole trial
// (label_trial), and the unlabelled-points CSV reader.
#include <pybind11/stl.h>

#include <cmath>
#include <limits>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/label_job.hpp"
#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/subject/marker_model.hpp"
#include "options.hpp"

namespace kinetrack::python {
namespace {

static_assert(sizeof(Vector3d) == 3 * sizeof(double), "Vector3d must be three packed doubles");

// Python `kinetrack.Labeller`: the immutable labeller model and the per-thread labeller.
struct PyLabeller {
  std::shared_ptr<const markers::LabellerModel> model;
  markers::Labeller labeller;
};

app::LabellingSubjectOptions subjectOptions(const std::string& model, const std::string& marker_set,
                                            const std::string& static_trial, const std::string& vsk,
                                            std::optional<double> height, bool joint_limits,
                                            const std::string& marker_axes) {
  app::LabellingSubjectOptions o;
  o.model = model;
  o.markerset = marker_set;
  o.static_trial = static_trial;
  o.vsk = vsk;
  o.height = height;
  o.joint_limits = joint_limits;
  o.marker_axes = marker_axes;
  o.quiet = true;
  return o;
}

// A model by name (.osim, built-in, URDF): the library's labelling subject, as `kinetrack markers
// label` loads it (static-trial start pose or calibration, human66's clinical limits, VSK height).
// A kinetrack.Model: its marker set at `reference`.
std::shared_ptr<const markers::LabellerModel> labellerModelPy(py::object model, const std::string& marker_set,
                                                              const std::vector<std::string>& markers,
                                                              py::object reference,
                                                              const app::LabellingSubjectOptions& subject) {
  if (py::isinstance<py::str>(model)) {
    if (!reference.is_none()) throw py::value_error("reference is for a kinetrack.Model; give static= for a file");
    return released([&] { return app::loadLabellingSubject(subject, markers).model; });
  }
  if (!py::isinstance<Model>(model)) throw py::type_error("model: expected a model path or name, or a kinetrack.Model");
  if (marker_set.empty())
    throw py::value_error("marker_set is required with a kinetrack.Model (see marker_set_names(), or a JSON file)");
  auto m = std::make_shared<const Model>(model.cast<const Model&>());
  io::MarkerSet set = app::loadMarkerSet(marker_set, std::nullopt, m->name());
  if (!markers.empty())
    std::erase_if(set.markers, [&](const io::MarkerSetMarker& mk) {
      return std::find(markers.begin(), markers.end(), mk.name) == markers.end();
    });
  const Configuration q = reference.is_none() ? Configuration(*m) : toConfiguration(*m, reference, "reference");
  return std::make_shared<const markers::LabellerModel>(markers::labellerModel(subject::markerModel(m, set, q)));
}

// (P, 3) points as P Vector3d (no copy for a C-contiguous float64 array).
std::span<const Vector3d> pointRows(const Array& a) {
  return {reinterpret_cast<const Vector3d*>(a.data()), static_cast<std::size_t>(a.shape(0))};
}

py::dict frameDict(const markers::FrameLabels& L, const Configuration& pose) {
  py::array_t<int> mp(static_cast<py::ssize_t>(L.marker_point.size()));
  std::copy(L.marker_point.begin(), L.marker_point.end(), mp.mutable_data());
  py::array_t<double> confidence(static_cast<py::ssize_t>(L.marker_point.size()));
  for (std::size_t i = 0; i < L.marker_point.size(); ++i)  // NaN for a gap
    confidence.mutable_data()[i] =
        i < L.confidence.size() && L.marker_point[i] >= 0 ? L.confidence[i] : std::numeric_limits<double>::quiet_NaN();
  return py::dict(py::arg("marker_point") = mp, py::arg("confidence") = confidence, py::arg("unsure") = L.unsure,
                  py::arg("swaps_corrected") = L.swaps_corrected, py::arg("state") = markers::toString(L.state),
                  py::arg("assigned") = L.assigned, py::arg("gaps") = L.gaps, py::arg("ghosts") = L.ghosts,
                  py::arg("points") = L.points, py::arg("invalid_points") = L.invalid_points,
                  py::arg("rigid_rejections") = L.rigid_rejections, py::arg("relabelled") = L.relabelled,
                  py::arg("ik_rms") = L.state == markers::TrackState::Lost ? std::nan("") : L.ik.rms_error,
                  py::arg("ik_microseconds") = L.ik_microseconds, py::arg("q") = configurationArray(pose));
}

py::dict trialDict(const markers::LabelTrialResult& r, const io::PointCloud& cloud, const Model& model,
                   const io::MarkerTrajectories* labelled = nullptr) {
  const auto n = static_cast<py::ssize_t>(r.frames.size()), m = static_cast<py::ssize_t>(r.names.size());
  py::array_t<int> mp({n, m});
  py::array_t<double> positions({n, m, py::ssize_t(3)}), q({n, py::ssize_t(nq(model))}), rms(n), times(n);
  py::array_t<int> assigned(n), unsure(n), swaps(n);
  py::array_t<double> confidence({n, m});
  const bool has_confidence = r.confidence.size() == static_cast<std::size_t>(n * m);
  std::vector<std::string> states;
  const io::MarkerTrajectories t = labelled != nullptr ? *labelled : r.trajectories(cloud);
  for (py::ssize_t f = 0; f < n; ++f) {
    const markers::LabelledFrame& row = r.frames[static_cast<std::size_t>(f)];
    for (py::ssize_t i = 0; i < m; ++i) {
      mp.mutable_data()[f * m + i] = r.point(static_cast<int>(f), static_cast<int>(i));
      confidence.mutable_data()[f * m + i] =
          has_confidence && mp.data()[f * m + i] >= 0
              ? static_cast<double>(r.confidence[static_cast<std::size_t>(f * m + i)])
              : std::numeric_limits<double>::quiet_NaN();
      const Vector3d& p = t.position(static_cast<int>(f), static_cast<int>(i));
      for (int c = 0; c < 3; ++c) positions.mutable_data()[(f * m + i) * 3 + c] = p[c];
    }
    writeConfiguration(r.poses[static_cast<std::size_t>(f)], q.mutable_data() + f * q.shape(1));
    rms.mutable_data()[f] = row.ik_rms;
    times.mutable_data()[f] = row.time;
    assigned.mutable_data()[f] = row.assigned;
    unsure.mutable_data()[f] = row.unsure;
    swaps.mutable_data()[f] = row.swaps_corrected;
    states.emplace_back(markers::toString(row.state));
  }
  return py::dict(py::arg("marker_names") = r.names, py::arg("times") = times, py::arg("marker_point") = mp,
                  py::arg("confidence") = confidence, py::arg("positions") = positions, py::arg("q") = q,
                  py::arg("ik_rms") = rms, py::arg("assigned") = assigned, py::arg("unsure") = unsure,
                  py::arg("swaps_corrected") = swaps, py::arg("state") = states,
                  py::arg("initialisations") = r.initialisations(), py::arg("lost_frames") = r.lostFrames(),
                  py::arg("unsure_frames") = r.unsureFrames());
}

}  // namespace

void bindLabeller(py::module_& m) {
  py::enum_<markers::PredictionSpace>(m, "PredictionSpace",
                                      "Where the labeller's constant-velocity prediction extrapolates.")
      .value("markers", markers::PredictionSpace::Markers, "every marker's world position (default)")
      .value("joints", markers::PredictionSpace::Joints, "the pose on the configuration manifold");
  py::class_<markers::LabellerOptions> opt(m, "LabellerOptions",
                                           "Options of Labeller (gates in m; docs/labelling.md explains each).");
  opt.def_readwrite("gate_radius", &markers::LabellerOptions::gate_radius, "m")
      .def_readwrite("gate_growth", &markers::LabellerOptions::gate_growth, "m per unseen frame")
      .def_readwrite("gate_max", &markers::LabellerOptions::gate_max, "m")
      .def_readwrite("max_candidates", &markers::LabellerOptions::max_candidates)
      .def_readwrite("rigid_tolerance", &markers::LabellerOptions::rigid_tolerance, "m; 0 disables the check")
      .def_readwrite("rigid_learning_rate", &markers::LabellerOptions::rigid_learning_rate)
      .def_readwrite("lost_fraction", &markers::LabellerOptions::lost_fraction)
      .def_readwrite("reinit_after", &markers::LabellerOptions::reinit_after, "s")
      .def_readwrite("prediction", &markers::LabellerOptions::prediction, "a PredictionSpace")
      .def_readwrite("init_headings", &markers::LabellerOptions::init_headings)
      .def_readwrite("init_vertical_offset", &markers::LabellerOptions::init_vertical_offset,
                     "m; the rigid fits also start this far above and below the cloud's median; 0: only there")
      .def_readwrite("init_gate", &markers::LabellerOptions::init_gate, "m")
      .def_readwrite("init_refine_rounds", &markers::LabellerOptions::init_refine_rounds)
      .def_readwrite("init_refine_gate", &markers::LabellerOptions::init_refine_gate, "m")
      .def_readwrite("init_max_rms", &markers::LabellerOptions::init_max_rms, "m")
      .def_readwrite("posture_weight", &markers::LabellerOptions::posture_weight)
      .def_readwrite("limb_search", &markers::LabellerOptions::limb_search, "per-limb re-search on/off")
      .def_readwrite("limb_error", &markers::LabellerOptions::limb_error, "m")
      .def_readwrite("limb_gate", &markers::LabellerOptions::limb_gate, "m")
      .def_readwrite("limb_search_interval", &markers::LabellerOptions::limb_search_interval, "frames")
      .def_readwrite("init_pose_weight", &markers::LabellerOptions::init_pose_weight, "m² per rad²")
      .def_readwrite("swap_check_distance", &markers::LabellerOptions::swap_check_distance, "m; 0 disables it")
      .def_readwrite("crowd_distance", &markers::LabellerOptions::crowd_distance,
                     "m; two labelled points closer (and than half their reference distance) are a marker and "
                     "a ghost; 0 disables it")
      .def_readwrite("confidence_sigma", &markers::LabellerOptions::confidence_sigma,
                     "m; the scale of a label's confidence (logistic of the squared-distance margin)")
      .def_readwrite("unsure_threshold", &markers::LabellerOptions::unsure_threshold,
                     "a label below this confidence is unsure")
      .def_readwrite("drop_unsure", &markers::LabellerOptions::drop_unsure,
                     "leave unsure labels out (gaps); the pose is still solved with them")
      .def_readwrite("max_points", &markers::LabellerOptions::max_points);
  keywordInit(opt);

  py::class_<PyLabeller>(m, "Labeller", R"doc(
Real-time labelling of unlabelled optical markers, closed with marker IK (docs/labelling.md).
model: a model file or name loaded as `kinetrack markers label` loads it (an OpenSim .osim with its
markers; a built-in model or URDF with marker_set, a built-in set name or a JSON file; static: a
labelled static trial giving the start pose, and for marker sets the calibrated offsets; vsk or
height: a built-in model's height; joint_limits: human66's clinical limits; marker_axes of the
static trial: auto, y-up, z-up), or a kinetrack.Model with marker_set and reference (the start
pose, (nq,), default the zero pose); markers: only these markers (default all). Points are in the model's
world (m): Y up for an OpenSim model, Z up for kinetrack's.)doc")
      .def(py::init([](py::object model, const std::string& marker_set, const std::vector<std::string>& markers,
                       py::object reference, std::optional<markers::LabellerOptions> options,
                       const std::string& static_trial, const std::string& vsk, std::optional<double> height,
                       bool joint_limits, const std::string& marker_axes) {
             const std::string name = py::isinstance<py::str>(model) ? model.cast<std::string>() : "";
             auto lm = labellerModelPy(
                 std::move(model), marker_set, markers, std::move(reference),
                 subjectOptions(name, marker_set, static_trial, vsk, height, joint_limits, marker_axes));
             return std::make_unique<PyLabeller>(
                 PyLabeller{lm, markers::Labeller(lm, options.value_or(markers::LabellerOptions{}))});
           }),
           py::arg("model"), py::arg("marker_set") = "", py::arg("markers") = std::vector<std::string>{},
           py::arg("reference") = py::none(), py::arg("options") = py::none(), py::kw_only(), py::arg("static") = "",
           py::arg("vsk") = "", py::arg("height") = py::none(), py::arg("joint_limits") = true,
           py::arg("marker_axes") = "auto")
      .def_property_readonly("marker_names", [](const PyLabeller& s) { return s.model->names(); })
      .def_property_readonly(
          "initialisations", [](const PyLabeller& s) { return s.labeller.initialisations(); },
          "frames that (re)initialised the track since construction (label() and start())")
      .def_property_readonly(
          "model", [](const PyLabeller& s) { return std::const_pointer_cast<Model>(s.model->model); },
          "the model with its marker frames")
      .def(
          "label",
          [](PyLabeller& s, ArrayLike points, double time) {
            const Array pts = checkedArray(points, {kAny, 3}, "points (one (3,) position per point, m)");
            const markers::FrameLabels* L = nullptr;
            {
              py::gil_scoped_release release;
              L = &s.labeller.label(pointRows(pts), time);
            }
            return frameDict(*L, s.labeller.pose());
          },
          py::arg("points"), py::arg("time"),
          "Labels one frame of points (P, 3), any order; time (s) increases from call to call. Returns a dict: "
          "marker_point (M,) (index of each marker's point, -1 = gap), confidence (M,) (each label's in [0, 1], "
          "NaN for a gap), unsure (labels below options.unsure_threshold), swaps_corrected, state ('tracking', "
          "'initialised', 'lost'), assigned, gaps, ghosts, points, invalid_points, rigid_rejections, relabelled, "
          "ik_rms (m), ik_microseconds, q (the solved pose).")
      .def(
          "start",
          [](PyLabeller& s, ArrayLike points, double time, ArrayLike marker_point) {
            const Array pts = checkedArray(points, {kAny, 3}, "points (one (3,) position per point, m)");
            const auto nm = static_cast<py::ssize_t>(s.model->numMarkers());
            const py::array_t<int, py::array::c_style | py::array::forcecast> mp(marker_point);
            if (mp.ndim() != 1 || mp.shape(0) != nm)
              throw py::value_error(
                  "marker_point: expected (" + std::to_string(nm) +
                  ",) (one point index per marker, -1 = gap), got shape " +
                  py::str(py::tuple(py::cast(std::vector<py::ssize_t>(mp.shape(), mp.shape() + mp.ndim()))))
                      .cast<std::string>());
            const markers::FrameLabels* L = nullptr;
            {
              py::gil_scoped_release release;
              L = &s.labeller.start(pointRows(pts), time,
                                    std::span<const int>(mp.data(), static_cast<std::size_t>(nm)));
            }
            return frameDict(*L, s.labeller.pose());
          },
          py::arg("points"), py::arg("time"), py::arg("marker_point"),
          "Starts (or restarts) the track from known labels instead of a search: marker_point (M,) is the index "
          "in points (P, 3) of each marker's point, -1 for a gap (a frame labelled by hand or by an earlier run). "
          "The pose is fitted to them; nothing checks that they are right. Returns label()'s dict. Raises "
          "ValueError for a marker_point of the wrong size, an index out of range or used twice, fewer than 3 "
          "labelled points, or a time that does not increase.")
      .def(
          "label_trial",
          [](PyLabeller& s, const std::vector<ArrayLike>& frames, ArrayLike times) {
            const Array t = checkedArray(times, {static_cast<py::ssize_t>(frames.size())}, "times (one per frame, s)");
            io::PointCloud cloud;
            for (std::size_t k = 0; k < frames.size(); ++k) {
              const Array pts = checkedArray(frames[k], {kAny, 3}, "frames[k] (one (3,) position per point, m)");
              cloud.addFrame(static_cast<long>(k + 1), t.data()[k], pointRows(pts));
            }
            markers::LabelTrialResult r;
            {
              py::gil_scoped_release release;
              r = markers::labelTrial(s.model, cloud, s.labeller.options());
            }
            return trialDict(r, cloud, *s.model->model);
          },
          py::arg("frames"), py::arg("times"),
          "Labels a whole trial with a fresh labeller (same model and options): frames is a list of (P_k, 3) "
          "point arrays, times (N,). Returns a dict: marker_names, times, marker_point (N, M) (index into the "
          "frame's points after NaN points are dropped, -1 = gap), confidence (N, M) (each label's in [0, 1], NaN "
          "for a gap), positions (N, M, 3) (the picked points, NaN for a gap), q (N, nq), ik_rms, assigned, "
          "unsure (N,), swaps_corrected (N,), state, initialisations, lost_frames, unsure_frames.");

  m.def(
      "label_markers",
      [](const std::string& model, const std::string& input, bool strip_labels, const std::string& marker_set,
         const std::vector<std::string>& markers, const std::string& static_trial, const std::string& vsk,
         std::optional<double> height, bool joint_limits, const std::string& marker_axes, const std::string& units,
         const std::string& out, const std::string& ik_out, const std::string& report, const std::string& summary_json,
         const std::string& confidence, bool drop_unsure, std::optional<markers::LabellerOptions> options,
         const std::string& scale_setup, const std::string& model_out) {
        app::LabelOptions o;
        o.subject = subjectOptions(model, marker_set, static_trial, vsk, height, joint_limits, marker_axes);
        o.subject.scale_setup = scale_setup;
        o.model_out = model_out;
        o.input = input;
        o.strip_labels = strip_labels;
        o.units = units;
        o.marker_names = markers;
        o.out = out;
        o.ik_out = ik_out;
        o.report = report;
        o.summary_json = summary_json;
        o.confidence = confidence;
        if (options) o.labeller = *options;
        if (drop_unsure) o.labeller.drop_unsure = true;
        const app::LabelResult r = released([&] { return app::runLabel(o); });
        io::PointCloud cloud;  // the labelled points in the file's axes (r.labelled): the dict's positions
        py::dict d = trialDict(r.trial, cloud, *r.subject.model->model, &r.labelled);
        d["summary"] = py::module_::import("json").attr("loads")(app::summaryJson(r, o));
        d["description"] = r.subject.description;
        if (r.subject.calibration) {
          py::dict c;
          c["method"] = r.subject.calibration->method;
          c["scale"] = r.subject.calibration->scale;
          c["markers_placed"] = r.subject.calibration->markers_placed;
          c["static_rms"] = r.subject.calibration->rms_before;
          c["frames"] = r.subject.calibration->frames;
          d["calibration"] = c;
        }
        return d;
      },
      py::arg("model"), py::arg("input"), py::kw_only(), py::arg("strip_labels") = false, py::arg("marker_set") = "",
      py::arg("markers") = std::vector<std::string>{}, py::arg("static") = "", py::arg("vsk") = "",
      py::arg("height") = py::none(), py::arg("joint_limits") = true, py::arg("marker_axes") = "auto",
      py::arg("units") = "mm", py::arg("out") = "", py::arg("ik_out") = "", py::arg("report") = "",
      py::arg("summary_json") = "", py::arg("confidence") = "", py::arg("drop_unsure") = false,
      py::arg("options") = py::none(), py::arg("scale_setup") = "", py::arg("model_out") = "",
      R"doc(`kinetrack markers label` as a call (the same job): labels every frame of input (a long CSV
frame,time,x,y,z in `units`, a C3D, or a labelled .trc/.c3d with strip_labels=True) on the model
loaded as Labeller(model, ...) loads a file or name, with `options` (LabellerOptions; default
ones); drop_unsure=True (--drop-unsure) leaves labels below the confidence threshold out. Writes
the files given (out: labelled TRC, ik_out: joint angles .mot, report: per-frame CSV, confidence:
per-frame per-marker confidence CSV, summary_json). Returns label_trial's dict (the positions in
the input file's axes) plus summary (the --summary-json fields: unsure_frames, unsure_labels,
swaps_corrected, min_confidence among them) and description. An .osim model with `static` is
calibrated on it first (uniform scale, robust static pose, markers placed; `scale_setup`: OpenSim's
Scale tool instead; marker_set may be an OpenSim MarkerSet .xml replacing the model's markers;
model_out writes the calibrated .osim); the dict then has calibration (method, scale,
markers_placed, static_rms in m, frames).)doc");

  m.def(
      "read_point_csv",
      [](const std::string& path, double scale) {
        const io::PointCloud c = released([&] { return io::readPointCsv(path, scale); });
        py::list frames;
        for (int f = 0; f < c.numFrames(); ++f) {
          const auto pts = c.frame(f);
          py::array_t<double> a({static_cast<py::ssize_t>(pts.size()), py::ssize_t(3)});
          for (std::size_t k = 0; k < pts.size(); ++k)
            for (int j = 0; j < 3; ++j) a.mutable_data()[k * 3 + static_cast<std::size_t>(j)] = pts[k][j];
          frames.append(a);
        }
        return py::dict(py::arg("frames") = frames, py::arg("times") = doubles(c.times),
                        py::arg("frame_numbers") = c.frame_numbers, py::arg("dropped") = c.dropped);
      },
      py::arg("path"), py::arg("scale") = 1.0,
      "Reads an unlabelled points CSV (frame,time,x,y,z; scale 0.001 for mm): frames (list of (P, 3)), times, "
      "frame_numbers, dropped (NaN points per frame). Raises ParseError naming the line and field.");
}

}  // namespace kinetrack::python
