// `kinetrack experiment labelling`: issue 16's proof. Real labelled trials (the gait2354 walk on
// its OpenSim model, the Vicon Plug-in Gait trial on human66 calibrated on its static trial) have
// their labels stripped and their points shuffled every frame; separate runs add Gaussian noise,
// dropouts in runs, ghosts (uniform in the volume and within 3 cm of real markers), planted label
// swaps and a 1 s occlusion of every marker. Each run is labelled causally and scored against the
// truth: labelling accuracy (per run and per marker), ghosts given a label, frames to re-acquire
// after the occlusion, the labels' confidence against their truth (wrong labels the labeller
// flagged as unsure, and those it gave confidently), and the joint rotations against marker IK of
// the same points with their true labels (frames whose labels are all right). Trials held out
// (issue 40: the Rajagopal walk and the gait2354 walk from the generic model, kept out of tuning)
// are reported apart. Fixed seeds: runs
// repeat. Writes DIR/labelling.csv, DIR/labelling_markers.csv, DIR/labelling_frames.csv and a
// table (the CLI plots DIR/labelling.png and DIR/labelling_markers.png).
#include "kinetrack/experiments/labelling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/markers/scenarios.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/subject/marker_model.hpp"
#include "kinetrack/track/marker_trial.hpp"

namespace kinetrack::experiments {
namespace {

namespace fs = std::filesystem;

struct NamedScenario {
  std::string name;
  markers::ScenarioOptions options;
};

std::vector<NamedScenario> scenarios(std::uint64_t seed) {
  using O = markers::ScenarioOptions;
  std::vector<NamedScenario> s;
  auto add = [&](std::string name, O o) {
    o.seed = seed + s.size();
    s.push_back({std::move(name), o});
  };
  add("clean", {});
  add("noise 1 mm", {.noise_sigma = 0.001});
  add("noise 2 mm", {.noise_sigma = 0.002});
  add("noise 3 mm", {.noise_sigma = 0.003});
  add("dropouts 5%", {.dropout_fraction = 0.05});
  add("dropouts 20%", {.dropout_fraction = 0.20});
  add("ghosts 3 uniform", {.ghosts_uniform = 3});
  add("ghosts 3 near (3 cm)", {.ghosts_near = 3});
  add("ghosts 5 (2+3)", {.ghosts_uniform = 2, .ghosts_near = 3});
  add("swaps 4 planted", {.swaps = 4});
  add("occlusion 1 s", {.occlusion_start = 0.8, .occlusion_duration = 1.0});
  add("2 mm + 5% + 3 ghosts", {.noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2});
  add("3 mm + 20% + 5 ghosts", {.noise_sigma = 0.003, .dropout_fraction = 0.20, .ghosts_uniform = 2, .ghosts_near = 3});
  return s;
}

struct Trial {
  std::string name;
  bool held_out = false;  // kept out of tuning (issue 40)
  app::LabellingSubject subject;
  io::MarkerTrajectories trial;  // model world, m
};

using Row = LabellingRun;

// The labeller's IK (same markers, bounds, warm start and posture prior as the labeller's: the
// last pose, or its constant-velocity extrapolation with PredictionSpace::Joints) on the
// scenario's points with their true labels, from the same start (the
// labeller's first solved pose): the joint angles had every label been right. The prior matters
// on a redundant model (human66's spine and shoulders fit the same markers in many poses).
std::vector<Configuration> trueLabelIk(const markers::LabellerModel& lm, const markers::ScenarioTrial& s,
                                       const Configuration& start) {
  const Model& model = *lm.model;
  ik::MarkerIk ik = subject::makeMarkerIk(lm);
  const double weight = markers::LabellerOptions{}.posture_weight;
  const bool joint_space = markers::LabellerOptions{}.prediction == markers::PredictionSpace::Joints;
  std::vector<int> joints;
  for (int j = 0; j < model.numJoints(); ++j)
    if (!(lm.lower[j] == lm.upper[j]))
      ik.tasks().addCoordinate(model.jointName(JointId(j)), weight), joints.push_back(j);
  std::vector<double> values(joints.size());
  Configuration prev = start, curr = start, pred = start;
  VectorXd nu(model.nv());
  std::vector<Configuration> out;
  std::vector<Vector3d> target(lm.markers.size());
  for (int f = 0; f < s.cloud.numFrames(); ++f) {
    std::fill(target.begin(), target.end(), Vector3d::Constant(NAN));
    const std::size_t off = s.cloud.offsets[static_cast<std::size_t>(f)];
    const auto pts = s.cloud.frame(f);
    int present = 0;
    for (std::size_t p = 0; p < pts.size(); ++p)
      if (s.truth[off + p] >= 0) target[static_cast<std::size_t>(s.truth[off + p])] = pts[p], ++present;
    if (present >= 3) {
      // The labeller's warm start and posture target: the last pose (marker-space prediction)
      // or its extrapolation on the configuration manifold.
      if (joint_space) {
        difference(model, prev, curr, nu);
        integrate(model, curr, nu, 1.0, pred);
      } else {
        pred = curr;
      }
      for (std::size_t k = 0; k < joints.size(); ++k) values[k] = pred.joints[joints[k]];
      ik.setState(pred);
      (void)ik.solve(target, values);
      prev = curr;
      curr = ik.state();
    }
    out.push_back(curr);
  }
  return out;
}

// Rotation of every link relative to its parent at two poses: the angle between them (deg), per
// link. Joint angles compared this way do not depend on Euler branches (human66's knee triple
// jumps between equivalent branches near 90° of flexion).
void jointRotationDifferences(const Model& m, Data& a, Data& b, const Configuration& qa, const Configuration& qb,
                              std::vector<double>& out) {
  forwardKinematics(m, a, qa);
  forwardKinematics(m, b, qb);
  out.clear();
  for (int l = 1; l < m.numLinks(); ++l) {
    const int p = m.parent(LinkId(l)).value;
    const Matrix3d ra = a.link[static_cast<std::size_t>(p)].R.transpose() * a.link[static_cast<std::size_t>(l)].R;
    const Matrix3d rb = b.link[static_cast<std::size_t>(p)].R.transpose() * b.link[static_cast<std::size_t>(l)].R;
    out.push_back(so3::log(Matrix3d(ra.transpose() * rb)).norm() * 180.0 / M_PI);
  }
}

// A trial to load: its subject, its file, a rate to resample it at (0: as recorded), held out or not.
struct TrialSpec {
  std::string name;
  app::LabellingSubjectOptions subject;
  std::string path;
  double rate = 0.0;
  bool held_out = false;
};

Trial loadTrial(const TrialSpec& ts) {
  Trial t;
  t.name = ts.name;
  t.held_out = ts.held_out;
  // The trial in the model's world (an .osim model is Y up); the set: the model's markers that
  // the trial has (the markers worn). A rate resamples it (the 100 Hz run seen at 60 Hz).
  io::MarkerTrajectories raw = io::readMarkerTrial(ts.path, app::hasSuffix(ts.subject.model, ".osim"));
  if (ts.rate > 0.0) raw = markers::resampleTrajectories(raw, ts.rate);
  app::LabellingSubjectOptions quiet = ts.subject;
  quiet.quiet = true;
  t.subject = app::loadLabellingSubject(quiet, raw.names);
  t.trial = std::move(raw);
  return t;
}

// Every marker-frame labelled wrong or left a gap (and every absent marker given a point), for
// finding failure modes: which markers, which frames, what they took instead.
void appendEvents(const Trial& t, const NamedScenario& sc, const markers::ScenarioTrial& s,
                  const markers::LabelTrialResult& r, std::vector<LabellingEvent>& events) {
  const std::size_t nm = r.names.size();
  std::vector<int> point_of(nm);
  for (int f = 0; f < s.cloud.numFrames(); ++f) {
    const std::size_t off = s.cloud.offsets[static_cast<std::size_t>(f)];
    const auto pts = s.cloud.frame(f);
    s.truePoints(f, point_of);
    const markers::LabelledFrame& lf = r.frames[static_cast<std::size_t>(f)];
    for (std::size_t i = 0; i < nm; ++i) {
      const int got = r.point(f, static_cast<int>(i)), want = point_of[i];
      if (got == want) continue;
      const char* kind = want < 0 ? "absent_labelled" : got < 0 ? "missed" : "wrong";
      std::string took = "-";
      double dist = NAN;
      if (got >= 0) {
        const int tm = s.truth[off + static_cast<std::size_t>(got)];
        took = tm >= 0 ? r.names[static_cast<std::size_t>(tm)] : std::string("ghost");
        if (want >= 0) dist = (pts[static_cast<std::size_t>(got)] - pts[static_cast<std::size_t>(want)]).norm();
      }
      events.push_back({t.name, sc.name, sc.options.seed, f, s.cloud.times[static_cast<std::size_t>(f)], r.names[i],
                        kind, took, dist, markers::toString(lf.state), lf.relabelled, lf.rigid_rejections});
    }
  }
}

// The labels' confidence against the truth (the run's wrong labels flagged or silent) and the
// per-marker scores.
void scoreConfidence(const Trial& t, const NamedScenario& sc, const markers::ScenarioTrial& s,
                     const markers::LabelTrialResult& r, Row& row, std::vector<LabellingMarker>& marker_rows) {
  const double threshold = markers::LabellerOptions{}.unsure_threshold;
  const std::size_t nm = r.names.size();
  row.unsure_frames = r.unsureFrames();
  row.swaps_corrected = r.swapsCorrected();
  const std::size_t first = marker_rows.size();
  for (const std::string& name : r.names)
    marker_rows.push_back(
        {.trial = t.name, .scenario = sc.name, .seed = sc.options.seed, .held_out = t.held_out, .marker = name});
  std::vector<double> sum_right(nm, 0.0), sum_wrong(nm, 0.0);
  std::vector<long> n_right(nm, 0), n_wrong(nm, 0);
  std::vector<int> point_of(nm);
  for (int f = 0; f < s.cloud.numFrames(); ++f) {
    s.truePoints(f, point_of);
    for (std::size_t i = 0; i < nm; ++i) {
      LabellingMarker& m = marker_rows[first + i];
      const int got = r.point(f, static_cast<int>(i)), want = point_of[i];
      const double c = r.confidence[static_cast<std::size_t>(f) * nm + i];
      if (want >= 0) {
        ++m.present;
        if (got == want) {
          ++m.correct;
          row.right_flagged += c < threshold;
          if (std::isfinite(c)) sum_right[i] += c, ++n_right[i];
        } else {
          (got < 0 ? m.missed : m.wrong)++;
        }
      }
      if (got >= 0 && got != want) {  // a wrong label: another marker's point or a ghost
        ++row.wrong_labels;
        (c < threshold ? row.wrong_flagged : row.wrong_silent)++;
        if (std::isfinite(c)) sum_wrong[i] += c, ++n_wrong[i];
      }
    }
  }
  for (std::size_t i = 0; i < nm; ++i) {
    LabellingMarker& m = marker_rows[first + i];
    if (n_right[i] > 0) m.confidence_right = sum_right[i] / static_cast<double>(n_right[i]);
    if (n_wrong[i] > 0) m.confidence_wrong = sum_wrong[i] / static_cast<double>(n_wrong[i]);
  }
}

Row runScenario(const Trial& t, const NamedScenario& sc, std::vector<LabellingFrame>& frames,
                std::vector<LabellingMarker>& marker_rows, std::vector<LabellingEvent>* events) {
  const markers::ScenarioTrial s = markers::makeScenario(t.trial, t.subject.model->names(), sc.options);
  const markers::LabelTrialResult r = markers::labelTrial(t.subject.model, s.cloud);
  std::vector<char> ok;
  Row row;
  row.trial = t.name;
  row.scenario = sc.name;
  row.seed = sc.options.seed;
  row.held_out = t.held_out;
  if (events) appendEvents(t, sc, s, r, *events);
  row.score = markers::scoreLabelling(s, r, &ok);
  scoreConfidence(t, sc, s, r, row, marker_rows);
  row.initialisations = r.initialisations();
  row.lost = r.lostFrames();
  row.frames = static_cast<int>(r.frames.size());
  // Joint rotations against marker IK on the same points with the true labels, on frames whose
  // labels are all right and whose pose was solved.
  std::size_t first = 0;
  while (first + 1 < r.frames.size() && r.frames[first].state == markers::TrackState::Lost) ++first;
  const std::vector<Configuration> truth_ik = trueLabelIk(*t.subject.model, s, r.poses[first]);
  const Model& model = *t.subject.model->model;
  Data da(model), db(model);
  std::vector<double> diff;
  double sum = 0.0, worst = 0.0;
  long count = 0;
  std::vector<double> us;
  for (std::size_t f = 0; f < r.frames.size(); ++f) {
    if (r.frames[f].state == markers::TrackState::Tracking) us.push_back(r.frames[f].microseconds);
    if (!ok[f] || r.frames[f].state == markers::TrackState::Lost) continue;
    jointRotationDifferences(model, da, db, r.poses[f], truth_ik[f], diff);
    for (double d : diff) {
      sum += d * d;
      worst = std::max(worst, d);
      ++count;
    }
  }
  if (count > 0) row.angle_rms_deg = std::sqrt(sum / static_cast<double>(count)), row.angle_max_deg = worst;
  const metrics::Summary su = metrics::summarize(us);
  row.us_median = su.median;
  row.us_p95 = su.p95;
  // Per-frame fraction right, for the plot.
  const std::size_t nm = r.names.size();
  for (int f = 0; f < s.cloud.numFrames(); ++f) {
    const std::size_t off = s.cloud.offsets[static_cast<std::size_t>(f)];
    const int np = static_cast<int>(s.cloud.offsets[static_cast<std::size_t>(f) + 1] - off);
    int present = 0, right = 0, ghost_labelled = 0;
    for (std::size_t i = 0; i < nm; ++i) {
      const int got = r.point(f, static_cast<int>(i));
      if (got >= 0 && s.truth[off + static_cast<std::size_t>(got)] < 0) ++ghost_labelled;
    }
    for (int p = 0; p < np; ++p) {
      const int mk = s.truth[off + static_cast<std::size_t>(p)];
      if (mk < 0) continue;
      ++present;
      right += r.point(f, mk) == p;
    }
    frames.push_back({t.name, sc.name, sc.options.seed, f, s.cloud.times[static_cast<std::size_t>(f)], present, right,
                      ghost_labelled, markers::toString(r.frames[static_cast<std::size_t>(f)].state)});
  }
  return row;
}

std::string fmtOr(double v, const char* spec, const char* none = "-") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string(none);
}

}  // namespace

LabellingExperimentResult runLabellingExperiment(const LabellingExperimentOptions& cfg, const app::Reporter& reporter) {
  const fs::path data(cfg.data);
  app::prepareDirectory(cfg.out);
  const fs::path gait = data / "opensim" / "gait2354_walk";
  const fs::path c3d = data / "c3d";
  const fs::path raj = data / "opensim" / "rajagopal_run_walk";
  for (const fs::path& p : {gait / "subject01_simbody.osim", gait / "subject01_walk1.trc",
                            c3d / "pycgm_Movement_trial.c3d", c3d / "pycgm_Static_trial.c3d", c3d / "pycgm_Test.vsk"})
    if (!fs::is_regular_file(p))
      throw InvalidArgument("--data: missing " + p.string() + " (give the shared data folder)");

  reporter.say(fmt::format(
      "experiment labelling (issue 16): labels stripped, points shuffled every frame, seeds from {}\n", cfg.seed));
  std::vector<TrialSpec> specs;
  app::LabellingSubjectOptions gait_spec, pig_spec;
  gait_spec.model = (gait / "subject01_simbody.osim").string();
  pig_spec.model = "human66";
  pig_spec.markerset = "human66_plugin_gait";
  pig_spec.static_trial = (c3d / "pycgm_Static_trial.c3d").string();
  pig_spec.vsk = (c3d / "pycgm_Test.vsk").string();
  specs.push_back({"gait2354 walk", gait_spec, (gait / "subject01_walk1.trc").string()});
  specs.push_back({"Plug-in Gait (human66)", pig_spec, (c3d / "pycgm_Movement_trial.c3d").string()});
  app::LabellingSubjectOptions pig48_spec = pig_spec;
  pig48_spec.model = "human48";
  specs.push_back({"Plug-in Gait (human48)", pig48_spec, (c3d / "pycgm_Movement_trial.c3d").string()});
  // The Rajagopal run and walk (issue 40): the generic model calibrated on each trial's static
  // trial (uniform scale + marker placement); the run also resampled at 60 Hz. The walk is held
  // out: nothing in the labeller is tuned on it.
  if (fs::is_regular_file(raj / "Rajagopal2016_GENERIC.osim")) {
    app::LabellingSubjectOptions run_spec, walk_spec;
    run_spec.model = walk_spec.model = (raj / "Rajagopal2016_GENERIC.osim").string();
    run_spec.static_trial = (raj / "static_run.trc").string();
    walk_spec.static_trial = (raj / "static_walk_1.trc").string();
    walk_spec.markerset = (raj / "markerset_walk_preScale.xml").string();  // the walk's marker names
    specs.push_back({"Rajagopal run", run_spec, (raj / "motion_capture_run.trc").string()});
    specs.push_back({"Rajagopal run 60 Hz", run_spec, (raj / "motion_capture_run.trc").string(), 60.0});
    specs.push_back({"Rajagopal walk", walk_spec, (raj / "motion_capture_walk.trc").string(), 0.0, true});
  }
  // Held out too: the gait2354 walk from the *generic* model with OpenSim's Scale marker set,
  // calibrated on the subject's static trial as a lab starting from a generic model would.
  if (fs::is_regular_file(gait / "gait2354_simbody_GENERIC.osim") &&
      fs::is_regular_file(gait / "gait2354_Scale_MarkerSet.xml")) {
    app::LabellingSubjectOptions generic_spec;
    generic_spec.model = (gait / "gait2354_simbody_GENERIC.osim").string();
    generic_spec.markerset = (gait / "gait2354_Scale_MarkerSet.xml").string();
    generic_spec.static_trial = (gait / "subject01_static.trc").string();
    specs.push_back({"gait2354 walk (generic)", generic_spec, (gait / "subject01_walk1.trc").string(), 0.0, true});
  }
  // "trial: scenario" chosen by --only (any case; every run without it).
  auto lower = [](std::string x) {
    std::transform(x.begin(), x.end(), x.begin(), [](unsigned char c) { return std::tolower(c); });
    return x;
  };
  auto selected = [&](const std::string& trial, const std::string& scenario) {
    if (cfg.only.empty()) return true;
    const std::string key = lower(trial + ": " + scenario);
    return std::any_of(cfg.only.begin(), cfg.only.end(),
                       [&](const std::string& o) { return key.find(lower(o)) != std::string::npos; });
  };
  // Only the trials a run selects are loaded (a calibration takes seconds).
  const std::vector<NamedScenario> names = scenarios(cfg.seed);
  std::vector<Trial> trials;
  for (const TrialSpec& ts : specs)
    if (std::any_of(names.begin(), names.end(), [&](const NamedScenario& sc) { return selected(ts.name, sc.name); }))
      trials.push_back(loadTrial(ts));
  if (trials.empty()) throw InvalidArgument("--only: no run matches (runs are named \"trial: scenario\")");
  for (const Trial& t : trials)
    reporter.say(fmt::format("  {:<24} {}; {} frames at {:.0f} Hz, {} trial markers{}\n", t.name, t.subject.description,
                             t.trial.numFrames(), t.trial.data_rate, t.trial.numMarkers(),
                             t.held_out ? "; held out (not tuned on)" : ""));
  if (cfg.only.empty())
    reporter.say(fmt::format("  {:<24} no markers (IMU orientations only): not labelled\n", "OpenSense walk"));

  // Runs: every trial × scenario (× seed), those --only selects.
  std::vector<std::pair<const Trial*, NamedScenario>> runs;
  for (int k = 0; k < cfg.seeds; ++k)
    for (const Trial& t : trials)
      for (const NamedScenario& sc : scenarios(cfg.seed + 100 * static_cast<std::uint64_t>(k)))
        if (selected(t.name, sc.name)) runs.emplace_back(&t, sc);
  const int bar_total = static_cast<int>(runs.size());
  LabellingExperimentResult result;
  result.out = cfg.out;
  result.seeds = cfg.seeds;
  result.events = cfg.events;
  for (const auto& [t, sc] : runs) {
    reporter.report(static_cast<int>(result.runs.size()), bar_total, t->name + ": " + sc.name);
    result.runs.push_back(
        runScenario(*t, sc, result.frames, result.marker_rows, cfg.events ? &result.event_rows : nullptr));
  }
  reporter.report(static_cast<int>(result.runs.size()), bar_total);

  const fs::path dir(cfg.out);
  io::writeFileAtomically((dir / "labelling.csv").string(), labellingCsv(result));
  io::writeFileAtomically((dir / "labelling_markers.csv").string(), labellingMarkersCsv(result));
  io::writeFileAtomically((dir / "labelling_frames.csv").string(), labellingFramesCsv(result));
  if (cfg.events) io::writeFileAtomically((dir / "labelling_events.csv").string(), labellingEventsCsv(result));
  return result;
}

std::string labellingCsv(const LabellingExperimentResult& result) {
  std::string csv =
      "trial,scenario,seed,held_out,present,correct,accuracy,wrong,missed,ghost_points,ghosts_labelled,swapped_present,"
      "swapped_correct,reacquire_frames,initialisations,lost_frames,frames,angle_rms_deg,angle_max_deg,us_median,"
      "us_p95,unsure_frames,swaps_corrected,wrong_labels,wrong_flagged,wrong_silent,right_flagged\n";
  for (const Row& r : result.runs) {
    const markers::LabellingScore& s = r.score;
    csv += fmt::format(
        "{},{},{},{:d},{},{},{:.6f},{},{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.2f},{:.2f},{},{},{},{},{},{}\n",
        r.trial, r.scenario, r.seed, r.held_out, s.present, s.correct, s.accuracy(), s.wrong, s.missed, s.ghost_points,
        s.ghosts_labelled, s.swapped_present, s.swapped_correct, s.reacquire_frames, r.initialisations, r.lost,
        r.frames, r.angle_rms_deg, r.angle_max_deg, r.us_median, r.us_p95, r.unsure_frames, r.swaps_corrected,
        r.wrong_labels, r.wrong_flagged, r.wrong_silent, r.right_flagged);
  }
  return csv;
}

std::string labellingMarkersCsv(const LabellingExperimentResult& result) {
  std::string csv =
      "trial,scenario,seed,held_out,marker,present,correct,wrong,missed,accuracy,confidence_right,confidence_wrong\n";
  for (const LabellingMarker& m : result.marker_rows)
    csv += fmt::format("{},{},{},{:d},{},{},{},{},{},{:.6f},{},{}\n", m.trial, m.scenario, m.seed, m.held_out, m.marker,
                       m.present, m.correct, m.wrong, m.missed, m.accuracy(),
                       fmtOr(m.confidence_right, "{:.4f}", "nan"), fmtOr(m.confidence_wrong, "{:.4f}", "nan"));
  return csv;
}

std::string labellingFramesCsv(const LabellingExperimentResult& result) {
  std::string csv = "trial,scenario,seed,frame,time,present,correct,ghosts_labelled,state\n";
  for (const LabellingFrame& f : result.frames)
    csv += fmt::format("{},{},{},{},{:.6f},{},{},{},{}\n", f.trial, f.scenario, f.seed, f.frame, f.time, f.present,
                       f.correct, f.ghosts_labelled, f.state);
  return csv;
}

std::string labellingEventsCsv(const LabellingExperimentResult& result) {
  std::string csv = "trial,scenario,seed,frame,time,marker,kind,took,distance_m,state,relabelled,rigid\n";
  for (const LabellingEvent& e : result.event_rows)
    csv += fmt::format("{},{},{},{},{:.4f},{},{},{},{:.4f},{},{},{}\n", e.trial, e.scenario, e.seed, e.frame, e.time,
                       e.marker, e.kind, e.took, e.distance, e.state, e.relabelled, e.rigid);
  return csv;
}

namespace {

constexpr const char* kHeldOutHeading = "held out (not tuned on)";

// Trials in the order of their first run, the tuned ones first, then the held-out ones.
std::vector<std::pair<std::string, bool>> trialOrder(const std::vector<Row>& rows) {
  std::vector<std::pair<std::string, bool>> out;
  for (bool held : {false, true})
    for (const Row& r : rows)
      if (r.held_out == held && std::none_of(out.begin(), out.end(), [&](const auto& t) { return t.first == r.trial; }))
        out.emplace_back(r.trial, held);
  return out;
}

// Mean accuracy over the seeds of a trial × scenario (NaN: not run).
double meanAccuracy(const std::vector<Row>& rows, const std::string& trial, const std::string& scenario,
                    double* worst = nullptr) {
  double sum = 0.0, low = 1.0;
  int count = 0;
  for (const Row& r : rows)
    if (r.trial == trial && r.scenario == scenario)
      sum += r.score.accuracy(), low = std::min(low, r.score.accuracy()), ++count;
  if (worst) *worst = low;
  return count > 0 ? sum / count : NAN;
}

// Each marker's accuracy at a trial × scenario, the mean over the seeds where it was present.
std::vector<std::pair<double, std::string>> markerMeans(const std::vector<LabellingMarker>& marker_rows,
                                                        const std::string& trial, const std::string& scenario) {
  std::vector<std::string> names;
  std::vector<double> sum;
  std::vector<int> count;
  for (const LabellingMarker& m : marker_rows) {
    if (m.trial != trial || m.scenario != scenario || m.present == 0) continue;
    const auto it = std::find(names.begin(), names.end(), m.marker);
    const std::size_t k = static_cast<std::size_t>(it - names.begin());
    if (it == names.end()) names.push_back(m.marker), sum.push_back(0.0), count.push_back(0);
    sum[k] += m.accuracy(), ++count[k];
  }
  std::vector<std::pair<double, std::string>> out;
  for (std::size_t k = 0; k < names.size(); ++k) out.emplace_back(sum[k] / count[k], names[k]);
  return out;
}

// "A 97.12 %, B 98.40 %, …": up to `n` markers below 100 %, worst first (empty: none).
std::string worstMarkers(std::vector<std::pair<double, std::string>> acc, std::size_t n) {
  std::erase_if(acc, [](const auto& a) { return a.first >= 1.0; });
  std::stable_sort(acc.begin(), acc.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (std::size_t k = 0; k < std::min(n, acc.size()); ++k)
    out += fmt::format("{}{} {:.2f} %", k ? ", " : "", acc[k].second, 100.0 * acc[k].first);
  return out;
}

}  // namespace

std::string summaryText(const LabellingExperimentResult& result) {
  const std::vector<Row>& rows = result.runs;
  const fs::path dir(result.out);
  const std::vector<std::pair<std::string, bool>> trials = trialOrder(rows);
  const bool any_held = std::any_of(trials.begin(), trials.end(), [](const auto& t) { return t.second; });
  std::string text;
  text += fmt::format("\n{:<24} {:<22} {:>9} {:>6} {:>6} {:>8} {:>7} {:>6} {:>9} {:>9} {:>7} {:>6} {:>5} {:>11}\n",
                      "trial", "scenario", "accuracy", "wrong", "missed", "ghosts→", "reacq.", "inits", "angle RMS",
                      "angle max", "µs p50", "unsure", "swaps", "flag/silent");
  for (bool held : {false, true}) {
    if (held && any_held) text += fmt::format("{}\n", kHeldOutHeading);
    for (const Row& r : rows) {
      if (r.held_out != held) continue;
      const markers::LabellingScore& s = r.score;
      text += fmt::format(
          "{:<24} {:<22} {:>8.3f}% {:>6} {:>6} {:>8} {:>7} {:>6} {:>8}° {:>8}° {:>7.1f} {:>6} {:>5} {:>11}\n", r.trial,
          r.scenario, 100.0 * s.accuracy(), s.wrong, s.missed,
          s.ghost_points ? fmt::format("{}/{}", s.ghosts_labelled, s.ghost_points) : std::string("-"),
          s.reacquire_frames >= 0 ? std::to_string(s.reacquire_frames) : std::string("-"), r.initialisations,
          fmtOr(r.angle_rms_deg, "{:.3f}"), fmtOr(r.angle_max_deg, "{:.2f}"), r.us_median, r.unsure_frames,
          r.swaps_corrected, fmt::format("{}/{}", r.wrong_flagged, r.wrong_silent));
    }
  }
  text +=
      "(unsure: frames with a label below the confidence threshold; swaps: marker pairs found swapped and exchanged;\n"
      " flag/silent: wrong labels given below the threshold / at or above it)\n";

  // The worst markers of every trial × scenario below 100 % (means over the seeds).
  bool header = false;
  for (const auto& [trial, held] : trials) {
    std::vector<std::string> done;
    for (const Row& r : rows) {
      if (r.trial != trial || std::find(done.begin(), done.end(), r.scenario) != done.end()) continue;
      done.push_back(r.scenario);
      const double mean = meanAccuracy(rows, trial, r.scenario);
      if (mean >= 1.0) continue;
      const std::string worst = worstMarkers(markerMeans(result.marker_rows, trial, r.scenario), 3);
      if (worst.empty()) continue;
      if (!header)
        text += fmt::format("\nbelow 100 %{}, the 3 worst markers:\n",
                            result.seeds > 1 ? fmt::format(" (means over {} seeds)", result.seeds) : std::string()),
            header = true;
      text += fmt::format("  {:<48} {:>8.3f}%  worst: {}\n",
                          fmt::format("{}{}: {}", trial, held ? " (held out)" : "", r.scenario), 100.0 * mean, worst);
    }
  }

  text += fmt::format("\nwrote {}, {} and {}\n", (dir / "labelling.csv").string(),
                      (dir / "labelling_markers.csv").string(), (dir / "labelling_frames.csv").string());
  if (result.events) {
    text += fmt::format("wrote {}\n", (dir / "labelling_events.csv").string());
  }
  if (result.seeds > 1) {
    // Over the seeds: mean and worst accuracy of every trial × scenario.
    text += fmt::format("\nover {} seeds:\n{:<24} {:<22} {:>9} {:>9}\n", result.seeds, "trial", "scenario", "mean",
                        "worst");
    bool held_shown = false;
    for (const auto& [trial, held] : trials) {
      if (held && !held_shown) text += fmt::format("{}\n", kHeldOutHeading), held_shown = true;
      std::vector<std::string> done;
      for (const Row& a : rows) {
        if (a.trial != trial || std::find(done.begin(), done.end(), a.scenario) != done.end()) continue;
        done.push_back(a.scenario);
        double worst = 1.0;
        const double mean = meanAccuracy(rows, trial, a.scenario, &worst);
        text += fmt::format("{:<24} {:<22} {:>8.3f}% {:>8.3f}%\n", trial, a.scenario, 100.0 * mean, 100.0 * worst);
      }
    }
  }

  // Per marker at the target scenario, over the seeds: each marker's mean accuracy, the 5 worst.
  const std::string target = kLabellingTargetScenario;
  if (std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.scenario == target; })) {
    text += fmt::format("\nper marker at {} (mean over {} seed{}):\n{:<24} {:>9}  {}\n", target, result.seeds,
                        result.seeds > 1 ? "s" : "", "trial", "accuracy", "worst 5 markers");
    bool held_shown = false;
    for (const auto& [trial, held] : trials) {
      const double mean = meanAccuracy(rows, trial, target);
      if (!std::isfinite(mean)) continue;
      if (held && !held_shown) text += fmt::format("{}\n", kHeldOutHeading), held_shown = true;
      std::vector<std::pair<double, std::string>> acc = markerMeans(result.marker_rows, trial, target);
      const std::string worst = worstMarkers(std::move(acc), 5);
      text += fmt::format("{:<24} {:>8.3f}%  {}\n", trial, 100.0 * mean,
                          worst.empty() ? std::string("every marker 100 %") : worst);
    }
  }

  // The goals, per trial (the mean over the seeds).
  text += fmt::format("\ngoals: 100% clean; >= 99.5% at {}; re-acquire <= 3 frames; angles < 0.5° RMS{}\n", target,
                      result.seeds > 1 ? fmt::format(" (accuracy: mean over {} seeds)", result.seeds) : std::string());
  auto goal = [&](const std::string& trial, const std::string& scenario, double needed) {
    const double acc = meanAccuracy(rows, trial, scenario);
    if (!std::isfinite(acc)) return fmt::format("{} not run", scenario);
    return fmt::format("{} {:.3f}% {}", scenario, 100.0 * acc, acc >= needed ? "met" : "NOT met");
  };
  bool held_shown = false;
  for (const auto& [trial, held] : trials) {
    if (held && !held_shown) text += fmt::format("  {}\n", kHeldOutHeading), held_shown = true;
    text += fmt::format("  {:<24} {}; {}\n", trial, goal(trial, "clean", 1.0), goal(trial, target, 0.995));
  }
  return text;
}

}  // namespace kinetrack::experiments
