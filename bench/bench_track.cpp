// Whole-job tracking throughput (issue 4: ≥ 40 000 frames/s single thread on human66, I/O
// included):
//   BM_TrackSyntheticWalk      a 60 s, 120 Hz synthetic walk (23 segment targets) on human66:
//                              tracking + joint CSV written to a temporary file (frames/s)
//   BM_TrackBvhFile/<clip>     `kinetrack track` as library calls on a real clip: read the BVH,
//                              map it (built-in segment map), calibrate, track on human66, write
//                              the joint CSV (frames/s)
//   BM_TrackFromClip/<clip>    the clip on its own skeleton (modelFromBvh), tracking only
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>

#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

std::string tempCsv() { return (std::filesystem::temp_directory_path() / "kinetrack_bench_track.csv").string(); }

// Tracks every frame and writes the joint CSV (as `kinetrack track --out`); returns the frames.
long trackToCsv(const kt::Model& model, const kt::track::Capture& capture, const kt::track::Retargeting& plan) {
  kt::io::JointCsvWriter writer(model, tempCsv());
  kt::track::runTracking(model, capture, plan, {},
                         [&](int f, const kt::Configuration& q, const kt::track::FrameOutcome& o) {
                           writer.write(capture.clip.times[static_cast<std::size_t>(f)], q, o.gap);
                         });
  writer.commit();
  return capture.clip.numFrames();
}

void BM_TrackSyntheticWalk(benchmark::State& state) {
  const kt::Model model = kt::makeHuman66();
  kt::track::SyntheticWalk walk = kt::track::syntheticWalk(model, 60.0, 120.0);
  kt::track::Capture capture;
  capture.kind = kt::track::CaptureKind::TargetCsv;
  capture.clip = std::move(walk.clip);
  capture.has_position.assign(capture.clip.segment_names.size(), 0);
  capture.has_position[0] = 1;
  capture.has_orientation.assign(capture.clip.segment_names.size(), 1);
  std::vector<kt::track::SegmentPair> pairs;
  for (const std::string& s : capture.clip.segment_names) pairs.push_back({s, s, kt::Matrix3d::Identity(), 1.0});
  kt::track::PlanOptions po;
  po.calibration = "none";
  const kt::track::Retargeting plan = kt::track::planTracking(model, capture, pairs, po);
  long frames = 0;
  for (auto _ : state) frames += trackToCsv(model, capture, plan);
  std::remove(tempCsv().c_str());
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrackSyntheticWalk)->Unit(benchmark::kMillisecond);

void BM_TrackBvhFile(benchmark::State& state, const char* relative) {
  const std::string path = kt::testing::sharedFile(relative);
  if (path.empty()) {
    state.SkipWithError("../shared data not found");
    return;
  }
  const kt::Model model = kt::makeHuman66();
  long frames = 0;
  for (auto _ : state) {
    const kt::track::Capture capture = kt::track::loadCapture(path);
    const kt::io::SegmentMap map = kt::io::resolveSegmentMap(capture.clip.segment_names, "");
    std::vector<kt::track::SegmentPair> pairs;
    for (const auto& e : map.entries) pairs.push_back({e.clip_segment, e.model_frame, e.offset, e.weight});
    frames += trackToCsv(model, capture, kt::track::planTracking(model, capture, pairs));
  }
  std::remove(tempCsv().c_str());
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_TrackBvhFile, cmu_01_01, "data/bvh/cmu_cgspeed/cmu_01_01.bvh")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrackBvhFile, pymo_walk, "data/bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh")
    ->Unit(benchmark::kMillisecond);

void BM_TrackFromClip(benchmark::State& state, const char* relative) {
  const std::string path = kt::testing::sharedFile(relative);
  if (path.empty()) {
    state.SkipWithError("../shared data not found");
    return;
  }
  const kt::track::Capture capture = kt::track::loadCapture(path);
  const kt::Model model = kt::io::modelFromBvh(*capture.bvh);
  const kt::track::Retargeting plan = kt::track::retargetFromClip(model, capture.clip);
  long frames = 0;
  for (auto _ : state) {
    kt::track::runTracking(model, capture, plan, {}, {});
    frames += capture.clip.numFrames();
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_TrackFromClip, cmu_01_01, "data/bvh/cmu_cgspeed/cmu_01_01.bvh")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
