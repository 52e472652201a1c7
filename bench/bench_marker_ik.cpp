// Marker IK (issue 12) on OpenSim's gait2354 walk (31 weighted markers, 23 coordinates, 4
// coordinate tasks; Setup_IK.xml accuracy 1e-5): one warm-started frame of ik::MarkerIk, against
// kinetrack's whole-body instantaneous IK (InstantaneousIk, Levenberg–Marquardt over the same QP
// machinery) on the same markers in the same binary; and a whole trial file to file (read the
// .osim and a 10 000-frame TRC, solve every frame, write the .mot). Frames are replayed forwards
// then backwards so consecutive frames stay consecutive (warm starts as in a real trial).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/track/opensim_ik.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

struct Gait {
  bool ok = false;
  kt::io::IkSetup setup;
  kt::io::OpenSimModel model;
  kt::io::MarkerTrajectories trial;
  kt::track::OpenSimIkBinding binding;
  std::vector<std::vector<kt::Vector3d>> frames;  // observed markers, binding order, palindrome
  std::vector<std::vector<double>> values;        // coordinate task values per frame
};

const Gait& gait() {
  static const Gait g = [] {
    Gait g;
    const std::string setup = kt::testing::sharedFile("data/opensim/gait2354_walk/subject01_Setup_IK.xml");
    if (setup.empty()) return g;
    g.setup = kt::io::readIkSetup(setup);
    g.model = kt::io::readOpenSimModel(g.setup.resolve(g.setup.model_file));
    g.trial = kt::io::readTrc(g.setup.resolve(g.setup.marker_file), {.y_up = false});
    g.binding = kt::track::bindOpenSimIk(g.model, &g.setup, g.trial);
    std::vector<int> order;
    for (int k = 0; k < g.trial.numFrames(); ++k) order.push_back(k);
    for (int k = g.trial.numFrames() - 2; k > 0; --k) order.push_back(k);
    for (int k : order) {
      std::vector<kt::Vector3d> obs;
      for (const auto& mk : g.binding.spec.markers) {
        const auto it = std::find(g.trial.names.begin(), g.trial.names.end(), mk.name);
        obs.push_back(g.trial.position(k, static_cast<int>(it - g.trial.names.begin())));
      }
      g.frames.push_back(obs);
      std::vector<double> v;
      for (const auto& t : g.binding.spec.coordinate_tasks)
        v.push_back(t.values.size() == 1 ? t.values[0] : t.values[k]);
      g.values.push_back(v);
    }
    g.ok = true;
    return g;
  }();
  return g;
}

void reportPercentiles(benchmark::State& state, std::vector<double>& us) {
  const kt::metrics::Summary s = kt::metrics::summarize(us);
  state.counters["p50_us"] = s.median;
  state.counters["p95_us"] = s.p95;
  state.counters["max_us"] = s.max;
}

// One frame of MarkerIk, warm-started from the previous frame, as `kinetrack markers ik` runs it.
void BM_MarkerIk_Gait2354(benchmark::State& state) {
  const Gait& g = gait();
  if (!g.ok) return state.SkipWithError("../shared/data/opensim/gait2354_walk not found");
  const auto& spec = g.binding.spec;
  kt::ik::MarkerIk ik(spec.model, spec.options);
  for (const auto& mk : spec.markers) ik.tasks().addMarker(mk.frame, mk.weight);
  for (const auto& t : spec.coordinate_tasks) ik.tasks().addCoordinate(t.joint, t.weight);
  ik.setState(spec.reference);
  (void)ik.solve(g.frames[0], g.values[0]);
  std::size_t k = 1;
  long iterations = 0;
  std::vector<double> us;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const kt::ik::MarkerIkResult r = ik.solve(g.frames[k], g.values[k]);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r.cost);
    iterations += r.iterations;
    k = (k + 1) % g.frames.size();
  }
  state.counters["GN_iterations"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
  reportPercentiles(state, us);
}
BENCHMARK(BM_MarkerIk_Gait2354);

// The same markers through the whole-body instantaneous IK (no coordinate tasks: it has none;
// MarkerIk without them is measured alongside). Its stopping rule set to the same accuracy.
void BM_InstantaneousIk_Gait2354Markers(benchmark::State& state) {
  const Gait& g = gait();
  if (!g.ok) return state.SkipWithError("../shared/data/opensim/gait2354_walk not found");
  const auto& spec = g.binding.spec;
  kt::InstantaneousIkOptions o;
  o.step_tolerance = spec.options.accuracy;
  o.position_tolerance = 1e-12;  // markers never all fit exactly: stop on the step
  kt::InstantaneousIk ik(spec.model, o);
  std::vector<kt::TargetId> ids;
  for (const auto& mk : spec.markers) ids.push_back(ik.tasks().addPosition(mk.frame, {mk.weight}));
  ik.setState(spec.reference);
  auto set = [&](std::size_t k) {
    for (std::size_t i = 0; i < ids.size(); ++i) ik.tasks().setPosition(ids[i], g.frames[k][i]);
  };
  set(0);
  (void)ik.solve();
  std::size_t k = 1;
  std::vector<double> us;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    set(k);
    const kt::SolveResult r = ik.solve();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r.cost);
    k = (k + 1) % g.frames.size();
  }
  reportPercentiles(state, us);
}
BENCHMARK(BM_InstantaneousIk_Gait2354Markers);

void BM_MarkerIk_Gait2354MarkersOnly(benchmark::State& state) {
  const Gait& g = gait();
  if (!g.ok) return state.SkipWithError("../shared/data/opensim/gait2354_walk not found");
  const auto& spec = g.binding.spec;
  kt::ik::MarkerIk ik(spec.model, spec.options);
  for (const auto& mk : spec.markers) ik.tasks().addMarker(mk.frame, mk.weight);
  ik.setState(spec.reference);
  (void)ik.solve(g.frames[0]);
  std::size_t k = 1;
  std::vector<double> us;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const kt::ik::MarkerIkResult r = ik.solve(g.frames[k]);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r.cost);
    k = (k + 1) % g.frames.size();
  }
  reportPercentiles(state, us);
}
BENCHMARK(BM_MarkerIk_Gait2354MarkersOnly);

// A 10 000-frame TRC built from the walk (forwards, backwards, …), written once.
std::string longTrial() {
  static const std::string path = [] {
    const Gait& g = gait();
    const std::string src = g.setup.resolve(g.setup.marker_file);
    std::ifstream in(src);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    // Header: 5 lines (the 3rd holds NumFrames), then data rows "frame\ttime\tvalues…".
    std::vector<std::string> rows;
    for (std::size_t i = 5; i < lines.size(); ++i)
      if (!lines[i].empty() && lines[i] != "\r") rows.push_back(lines[i]);
    const int n = 10000;
    const auto out_path = std::filesystem::temp_directory_path() / "kinetrack_bench_walk10k.trc";
    std::ofstream out(out_path);
    out << lines[0] << '\n' << lines[1] << '\n';
    std::istringstream h(lines[2]);
    std::vector<std::string> f;
    for (std::string x; h >> x;) f.push_back(x);
    f[2] = std::to_string(n);
    f[7] = std::to_string(n);
    for (std::size_t i = 0; i < f.size(); ++i) out << (i ? "\t" : "") << f[i];
    out << '\n' << lines[3] << '\n' << lines[4] << "\n\n";
    const int m = static_cast<int>(rows.size());
    for (int k = 0; k < n; ++k) {
      const int period = 2 * (m - 1), r = k % period, src_row = r < m ? r : period - r;
      const std::string& row = rows[static_cast<std::size_t>(src_row)];
      const std::size_t second_tab = row.find('\t', row.find('\t') + 1);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%d\t%.6f", k + 1, k / 60.0);
      out << buf << row.substr(second_tab) << '\n';
    }
    return out_path.string();
  }();
  return path;
}

// File to file: read the model and the 10 000-frame trial, bind the setup, solve, write the .mot.
void BM_MarkersIkFileToFile_10kFrames(benchmark::State& state) {
  const Gait& g = gait();
  if (!g.ok) return state.SkipWithError("../shared/data/opensim/gait2354_walk not found");
  const std::string trc = longTrial();
  const std::string out = (std::filesystem::temp_directory_path() / "kinetrack_bench_walk10k.mot").string();
  long frames = 0;
  for (auto _ : state) {
    const kt::io::OpenSimModel model = kt::io::readOpenSimModel(g.setup.resolve(g.setup.model_file));
    const kt::io::MarkerTrajectories trial = kt::io::readTrc(trc, {.y_up = false});
    const kt::track::OpenSimIkBinding b = kt::track::bindOpenSimIk(model, &g.setup, trial);
    const kt::track::MarkerTrialResult r = kt::track::solveMarkerTrial(b.spec, trial);
    kt::io::writeMot(kt::track::openSimCoordinates(model, r), out);
    frames += static_cast<long>(r.frames.size());
  }
  state.SetItemsProcessed(frames);
}
BENCHMARK(BM_MarkersIkFileToFile_10kFrames)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
