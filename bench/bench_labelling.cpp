// Labelling of unlabelled optical markers (issue 16): one tracked frame of markers::Labeller
// (prediction, gating, clustered optimal assignment, rigid-segment check + marker IK) on real
// trials with labels stripped and points shuffled, against its own parts and peers in the same
// binary: the marker IK alone on the same frames with the true labels, and a brute-force
// assignment (one dense Hungarian problem over every marker and point of the frame, as a labeller
// without gating clusters would solve). Also the cost of an initialisation (heading search +
// articulated refinement + swap search).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/markers/assignment.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/markers/scenarios.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;
namespace km = kinetrack::markers;

namespace {

// As `kinetrack markers label` builds human66 for labelling: clinical joint limits.
kt::HumanModelOptions human66Options() {
  kt::HumanModelOptions o;
  o.dimensions = kt::HumanDimensions::fromHeight(1.679);
  o.clinical_limits = true;
  return o;
}

struct Case {
  bool ok = false;
  std::shared_ptr<const km::LabellerModel> model;
  km::ScenarioTrial scenario;
  std::vector<int> order;                        // palindrome of frame indices
  std::vector<std::vector<kt::Vector3d>> truth;  // per frame: the true point of each marker (NaN)
};

Case makeCase(std::shared_ptr<const km::LabellerModel> model, const kt::io::MarkerTrajectories& trial,
              const km::ScenarioOptions& options) {
  Case c;
  c.model = std::move(model);
  c.scenario = km::makeScenario(trial, c.model->names(), options);
  const int nf = c.scenario.cloud.numFrames();
  for (int k = 0; k < nf; ++k) c.order.push_back(k);
  for (int k = nf - 2; k > 0; --k) c.order.push_back(k);
  for (int f = 0; f < nf; ++f) {
    std::vector<kt::Vector3d> t(c.model->markers.size(), kt::Vector3d::Constant(NAN));
    const auto pts = c.scenario.cloud.frame(f);
    const std::size_t off = c.scenario.cloud.offsets[static_cast<std::size_t>(f)];
    for (std::size_t p = 0; p < pts.size(); ++p)
      if (c.scenario.truth[off + p] >= 0) t[static_cast<std::size_t>(c.scenario.truth[off + p])] = pts[p];
    c.truth.push_back(t);
  }
  c.ok = true;
  return c;
}

// gait2354 walk: 41 points a frame (27 of them the model's markers, 14 arm/extra markers).
const Case& gait(int scenario) {
  static const std::vector<Case> cases = [] {
    std::vector<Case> v(2);
    const std::string osim = kt::testing::sharedFile("data/opensim/gait2354_walk/subject01_simbody.osim");
    const std::string trc = kt::testing::sharedFile("data/opensim/gait2354_walk/subject01_walk1.trc");
    if (osim.empty() || trc.empty()) return v;
    const kt::io::OpenSimModel m = kt::io::readOpenSimModel(osim);
    const kt::io::MarkerTrajectories trial = kt::io::readTrc(trc, {.y_up = false});
    std::vector<std::string> names;
    for (const auto& mk : m.markers)
      if (std::find(trial.names.begin(), trial.names.end(), mk.name) != trial.names.end()) names.push_back(mk.name);
    auto lm = std::make_shared<const km::LabellerModel>(km::labellerModel(kt::subject::markerModel(m, names)));
    v[0] = makeCase(lm, trial, {.seed = 1});
    v[1] = makeCase(
        lm, trial, {.seed = 12, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2});
    return v;
  }();
  return cases[static_cast<std::size_t>(scenario)];
}

// Plug-in Gait on human66 (39 markers, 72 DoF, clinical joint limits), calibrated on the static trial.
const Case& pig() {
  static const Case c = [] {
    const std::string st = kt::testing::sharedFile("data/c3d/pycgm_Static_trial.c3d");
    const std::string tr = kt::testing::sharedFile("data/c3d/pycgm_Movement_trial.c3d");
    if (st.empty() || tr.empty()) return Case{};
    auto human = std::make_shared<const kt::Model>(kt::makeHuman66(human66Options()));
    const kt::io::MarkerSet set = kt::io::scaledMarkerSet(kt::io::builtinMarkerSet("human66_plugin_gait"), 1.679);
    const kt::subject::MarkerCalibration cal = kt::subject::calibrateMarkers(human, set, kt::io::readC3dMarkers(st));
    auto lm = std::make_shared<const km::LabellerModel>(
        km::labellerModel(kt::subject::markerModel(human, cal.markers, cal.poses.front())));
    return makeCase(lm, kt::io::readC3dMarkers(tr), {.seed = 1});
  }();
  return c;
}

// The Rajagopal running trial resampled at 60 Hz, from the generic model calibrated on its static
// trial as `kinetrack markers label --static` does (issue 40), in the target case.
const Case& run60() {
  static const Case c = [] {
    const std::string osim = kt::testing::sharedFile("data/opensim/rajagopal_run_walk/Rajagopal2016_GENERIC.osim");
    if (osim.empty()) return Case{};
    const std::string dir = osim.substr(0, osim.rfind('/'));
    kt::app::LabellingSubjectOptions spec;
    spec.model = osim;
    spec.static_trial = dir + "/static_run.trc";
    spec.quiet = true;
    const kt::io::MarkerTrajectories trial =
        km::resampleTrajectories(kt::io::readMarkerTrial(dir + "/motion_capture_run.trc", true), 60.0);
    return makeCase(
        kt::app::loadLabellingSubject(spec, trial.names).model, trial,
        {.seed = 12, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2});
  }();
  return c;
}

void report(benchmark::State& state, std::vector<double>& total, std::vector<double>& labelling) {
  const kt::metrics::Summary s = kt::metrics::summarize(total), l = kt::metrics::summarize(labelling);
  state.counters["p50_us"] = s.median;
  state.counters["p95_us"] = s.p95;
  if (!labelling.empty()) {
    state.counters["label_p50_us"] = l.median;
    state.counters["label_p95_us"] = l.p95;
  }
}

// One tracked frame: labelling + marker IK (the frame's label() call). The trial is replayed
// forwards; at its end the labeller is reset and its first frame (an initialisation) is labelled
// outside the timing, so the percentiles are of tracked frames.
void labelFrames(benchmark::State& state, const Case& c) {
  if (!c.ok) return state.SkipWithError("../shared/data not found");
  km::Labeller labeller(c.model);
  const int nf = c.scenario.cloud.numFrames();
  int f = 0;
  (void)labeller.label(c.scenario.cloud.frame(0), c.scenario.cloud.times[0]);
  std::vector<double> total, labelling;
  long wrong = 0, labels = 0, lost = 0;
  for (auto _ : state) {
    if (++f == nf) {
      state.PauseTiming();
      labeller.reset();
      f = 0;
      (void)labeller.label(c.scenario.cloud.frame(0), c.scenario.cloud.times[0]);
      f = 1;
      state.ResumeTiming();
    }
    const auto t0 = std::chrono::steady_clock::now();
    const km::FrameLabels& L =
        labeller.label(c.scenario.cloud.frame(f), c.scenario.cloud.times[static_cast<std::size_t>(f)]);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    benchmark::DoNotOptimize(L.assigned);
    if (L.state != km::TrackState::Tracking) {
      ++lost;  // an initialisation or a lost frame: not a tracked frame
      continue;
    }
    total.push_back(us);
    labelling.push_back(us - L.ik_microseconds);
    const std::size_t off = c.scenario.cloud.offsets[static_cast<std::size_t>(f)];
    for (std::size_t i = 0; i < L.marker_point.size(); ++i)
      if (L.marker_point[i] >= 0) {
        ++labels;
        wrong += c.scenario.truth[off + static_cast<std::size_t>(L.marker_point[i])] != static_cast<int>(i);
      }
  }
  state.counters["wrong_pct"] = labels ? 100.0 * static_cast<double>(wrong) / static_cast<double>(labels) : 0.0;
  state.counters["untracked"] = static_cast<double>(lost);
  state.counters["points"] = static_cast<double>(c.scenario.cloud.points.size()) / nf;
  report(state, total, labelling);
}

void BM_LabelAndIk_Gait2354Clean(benchmark::State& state) { labelFrames(state, gait(0)); }
void BM_LabelAndIk_Gait2354Noisy(benchmark::State& state) { labelFrames(state, gait(1)); }
void BM_LabelAndIk_PlugInGaitHuman66(benchmark::State& state) { labelFrames(state, pig()); }
void BM_LabelAndIk_RajagopalRun60HzNoisy(benchmark::State& state) { labelFrames(state, run60()); }
BENCHMARK(BM_LabelAndIk_Gait2354Clean);
BENCHMARK(BM_LabelAndIk_Gait2354Noisy);
BENCHMARK(BM_LabelAndIk_PlugInGaitHuman66);
BENCHMARK(BM_LabelAndIk_RajagopalRun60HzNoisy);

// Peer: the marker IK alone on the same frames with the true labels (what label() adds to it is
// the labelling).
void ikFrames(benchmark::State& state, const Case& c) {
  if (!c.ok) return state.SkipWithError("../shared/data not found");
  kt::ik::MarkerIk ik = kt::subject::makeMarkerIk(*c.model);
  (void)ik.solve(c.truth[static_cast<std::size_t>(c.order[0])]);
  std::size_t k = 1;
  std::vector<double> total, none;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const kt::ik::MarkerIkResult r = ik.solve(c.truth[static_cast<std::size_t>(c.order[k])]);
    total.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r.cost);
    k = (k + 1) % c.order.size();
  }
  report(state, total, none);
}
void BM_MarkerIkAlone_Gait2354Clean(benchmark::State& state) { ikFrames(state, gait(0)); }
void BM_MarkerIkAlone_PlugInGaitHuman66(benchmark::State& state) { ikFrames(state, pig()); }
void BM_MarkerIkAlone_RajagopalRun60HzNoisy(benchmark::State& state) { ikFrames(state, run60()); }
BENCHMARK(BM_MarkerIkAlone_Gait2354Clean);
BENCHMARK(BM_MarkerIkAlone_PlugInGaitHuman66);
BENCHMARK(BM_MarkerIkAlone_RajagopalRun60HzNoisy);

// Peer: brute-force assignment — one dense Hungarian problem per frame, every marker against
// every point plus a gap column per marker (gated costs as the labeller's), on the labeller's
// predictions.
void BM_DenseAssignment_Gait2354Noisy(benchmark::State& state) {
  const Case& c = gait(1);
  if (!c.ok) return state.SkipWithError("../shared/data not found");
  km::Labeller labeller(c.model);
  const double dt = c.scenario.cloud.times[1] - c.scenario.cloud.times[0];
  std::vector<std::vector<kt::Vector3d>> preds;
  for (std::size_t k = 0; k < c.order.size(); ++k) {
    (void)labeller.label(c.scenario.cloud.frame(c.order[k]), dt * static_cast<double>(k));
    preds.emplace_back(labeller.predictions().begin(), labeller.predictions().end());
  }
  const int m = c.model->numMarkers();
  km::AssignmentSolver solver;
  std::vector<double> cost;
  std::vector<int> map(static_cast<std::size_t>(m));
  std::size_t k = 1;
  std::vector<double> total, none;
  const double gate2 = 0.05 * 0.05;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto pts = c.scenario.cloud.frame(c.order[k]);
    const int n = static_cast<int>(pts.size()), cols = n + m;
    cost.assign(static_cast<std::size_t>(m * cols), 1e6);
    for (int i = 0; i < m; ++i) {
      for (int p = 0; p < n; ++p) {
        const double d2 = (pts[static_cast<std::size_t>(p)] - preds[k][static_cast<std::size_t>(i)]).squaredNorm();
        if (d2 < gate2) cost[static_cast<std::size_t>(i * cols + p)] = d2;
      }
      cost[static_cast<std::size_t>(i * cols + n + i)] = gate2;
    }
    benchmark::DoNotOptimize(solver.solve(m, cols, cost, map));
    total.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    k = (k + 1) % c.order.size();
  }
  report(state, total, none);
}
BENCHMARK(BM_DenseAssignment_Gait2354Noisy);

// An initialisation: heading search + articulated refinement on a frame, nothing known.
void BM_Initialise_Gait2354(benchmark::State& state) {
  const Case& c = gait(0);
  if (!c.ok) return state.SkipWithError("../shared/data not found");
  km::Labeller labeller(c.model);
  int f = 0;
  std::vector<double> total, none;
  long failed = 0;
  for (auto _ : state) {
    labeller.reset();
    const auto t0 = std::chrono::steady_clock::now();
    const km::FrameLabels& L = labeller.label(c.scenario.cloud.frame(f), 0.0);
    total.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    failed += L.state != km::TrackState::Initialised;
    f = (f + 7) % c.scenario.cloud.numFrames();
  }
  state.counters["failed"] = static_cast<double>(failed);
  report(state, total, none);
}
BENCHMARK(BM_Initialise_Gait2354)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
