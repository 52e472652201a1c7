// Hand-tracker benchmarks (FAB §3.4, issue 13) on the real DFKI glove recording
// (../shared/data/hand, 6000 frames at 100 Hz), calibrated once, every frame tracked in order
// (warm start from the previous frame, wrapping at the end):
//   BM_HandFrame/fabrik_euclid   the FABRIK tracker, tip markers only (the paper's setting)
//   BM_HandFrame/fabrik_cga      the same with every geometric step in conformal GA
//   BM_HandFrame/fabrik_both     tips and middle markers as FABRIK targets
//   BM_HandRecording/fabrik      the whole recording through hand::trackHandRecording, FABRIK
//   BM_HandRecording/lm          peer, same driver: marker IK (bounded Levenberg–Marquardt,
//                                  ik::MarkerIk) on the same model and targets (triad + tips,
//                                  DIP = 2/3 PIP exact); counter us_per_frame
// Time is per hand frame (palm + 5 digits); BM_HandFrame also reports the median and p95 frame
// (counters p50_us, p95_us). Skipped when ../shared is absent.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "kinetrack/hand/hand_calibration.hpp"
#include "kinetrack/hand/hand_trial.hpp"
#include "kinetrack/io/capture/qtm_tsv.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "testing/shared_paths.hpp"

namespace {

using namespace kinetrack;

struct Recording {
  io::QtmTsv tsv;
  hand::HandMarkerIndex idx;
  hand::HandCalibration cal;
};

const Recording* recording() {
  static std::optional<Recording> r = []() -> std::optional<Recording> {
    const std::string path = testing::sharedFile("data/hand/dfki_glove_recording_20210826.tsv");
    if (path.empty()) return std::nullopt;
    Recording rec;
    rec.tsv = io::readQtmTsv(path);
    rec.idx = hand::findHandMarkers(rec.tsv.markers, {});
    rec.cal = hand::calibrateHand(rec.tsv.markers, rec.idx);
    return rec;
  }();
  return r ? &*r : nullptr;
}

const Recording* recordingOrSkip(benchmark::State& state) {
  const Recording* rec = recording();
  if (rec == nullptr) state.SkipWithError("../shared/data/hand not found");
  return rec;
}

void BM_HandFrame(benchmark::State& state, hand::Backend backend, bool both) {
  const Recording* rec = recordingOrSkip(state);
  if (rec == nullptr) return;
  hand::TrackerOptions options;
  options.backend = backend;
  options.use_middle_markers = both;
  const io::MarkerTrajectories& m = rec->tsv.markers;
  hand::HandTracker tracker(rec->cal.geometry, options);
  // Per-frame times as well (two clock reads, ~50 ns, inside the timed loop): the target is on
  // the median frame, the mean carries the slow tail of digits whose tips are out of reach.
  std::vector<double> us;
  us.reserve(1 << 20);
  int f = 0;
  for (auto _ : state) {
    std::array<Vector3d, 3> triad;
    std::array<Vector3d, hand::kDigits> tips, mids;
    for (std::size_t i = 0; i < 3; ++i) triad[i] = m.position(f, rec->idx.triad[i]);
    for (std::size_t d = 0; d < hand::kDigits; ++d) {
      tips[d] = m.position(f, rec->idx.tip[d]);
      mids[d] = m.position(f, rec->idx.middle[d]);
    }
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(tracker.track(triad, tips, mids));
    const auto t1 = std::chrono::steady_clock::now();
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    f = (f + 1) % m.numFrames();
  }
  state.SetItemsProcessed(state.iterations());
  const metrics::Summary s = metrics::summarize(std::move(us));
  state.counters["p50_us"] = s.median;
  state.counters["p95_us"] = s.p95;
}

// Whole recordings through the trial driver, both solvers the same way; counter: µs per frame.
void BM_HandRecording(benchmark::State& state, hand::HandSolver solver) {
  const Recording* rec = recordingOrSkip(state);
  if (rec == nullptr) return;
  const int n = rec->tsv.markers.numFrames();
  for (auto _ : state) {
    benchmark::DoNotOptimize(hand::trackHandRecording(rec->tsv.markers, rec->idx, rec->cal.geometry, solver, {}));
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["us_per_frame"] = benchmark::Counter(static_cast<double>(state.iterations()) * n * 1e-6,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_HandFrame, fabrik_euclid, hand::Backend::Euclid, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HandFrame, fabrik_cga, hand::Backend::Cga, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HandFrame, fabrik_both, hand::Backend::Euclid, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HandRecording, fabrik, hand::HandSolver::Fabrik)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HandRecording, lm, hand::HandSolver::Lm)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
