// Capture-reader throughput (issue: real captures):
//   BM_ParseBvh/<clip>   parseBvh on the text in memory (frames/s counter)
//   BM_BvhToClip/<clip>  forward kinematics of the BVH skeleton to world poses + velocities
//   BM_ParseMvnx/<file>  parseMvnx on the text in memory
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "testing/shared_paths.hpp"

namespace {

std::string slurp(const std::string& relative) {
  const std::string path = kinetrack::testing::sharedFile(relative);
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_ParseBvh(benchmark::State& state, const char* relative) {
  const std::string text = slurp(relative);
  if (text.empty()) {
    state.SkipWithError("../shared data not found");
    return;
  }
  long frames = 0;
  for (auto _ : state) {
    const kinetrack::io::BvhFile f = kinetrack::io::parseBvh(text, relative);
    frames += f.motion.rows();
    benchmark::DoNotOptimize(f.motion.data());
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}

void BM_BvhToClip(benchmark::State& state, const char* relative) {
  const std::string text = slurp(relative);
  if (text.empty()) {
    state.SkipWithError("../shared data not found");
    return;
  }
  const kinetrack::io::BvhFile f = kinetrack::io::parseBvh(text, relative);
  long frames = 0;
  for (auto _ : state) {
    const kinetrack::io::MotionClip c = kinetrack::io::bvhToClip(f);
    frames += c.numFrames();
    benchmark::DoNotOptimize(c.poses.data());
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}

void BM_ParseMvnx(benchmark::State& state, const char* relative) {
  const std::string text = slurp(relative);
  if (text.empty()) {
    state.SkipWithError("../shared data not found");
    return;
  }
  long frames = 0;
  for (auto _ : state) {
    const kinetrack::io::MvnxFile f = kinetrack::io::parseMvnx(text, relative);
    frames += static_cast<long>(f.frames.size());
    benchmark::DoNotOptimize(f.frames.data());
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}

}  // namespace

BENCHMARK_CAPTURE(BM_ParseBvh, cmu_01_01, "data/bvh/cmu_cgspeed/cmu_01_01.bvh")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ParseBvh, reactidle_002, "data/bvh/reactidle/002_genuine.bvh")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BvhToClip, cmu_01_01, "data/bvh/cmu_cgspeed/cmu_01_01.bvh")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ParseMvnx, test_mocap, "data/mvnx/test_mocap.mvnx")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
