// The per-datagram path of `kinetrack serve` (issue 17) on test_mocap.mvnx, human66, DYN:
//   BM_MxtpParse          parse one 23-segment MXTP type-02 datagram
//   BM_LiveDatagram       LiveTracker::onDatagram (parse, sequence, DYN frame, forward kinematics)
//                         + the frame's JSON message: the server's work between receive and send
//   BM_EncodeFrame        the frame's JSON message alone (human66: 66 link poses, q)
//   BM_FileTrackerFrame   peer in the same run: the file tracker's per-frame work on the same
//                         frames (clipFrameTargets + StreamTracker::track), as `kinetrack track`
// Frames cycle through the capture; sample counters and time codes keep increasing.
#include <benchmark/benchmark.h>

#include <vector>

#include "kinetrack/io/model_source.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

struct Fixture {
  kt::track::Capture capture;
  kt::track::TrackSetup setup;
  std::vector<std::vector<std::uint8_t>> datagrams;
  Fixture() {
    const std::string path = kt::testing::sharedFile("data/mvnx/test_mocap.mvnx");
    if (path.empty()) return;
    capture = kt::track::loadCapture(path);
    setup = kt::track::setupOnModel(kt::io::loadModel({"human66"}).model, capture, "");
    kt::stream::MxtpPoseDatagram d;
    for (int f = 0; f < capture.clip.numFrames(); ++f) {
      kt::stream::clipFrameDatagram(capture.clip, f, 240.0, d);
      std::vector<std::uint8_t> b(kt::stream::kMxtpMaxDatagram);
      b.resize(kt::stream::encodeMxtp(d, b));
      datagrams.push_back(b);
    }
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

void putU32(std::uint8_t* b, std::uint32_t v) {
  b[0] = static_cast<std::uint8_t>(v >> 24U);
  b[1] = static_cast<std::uint8_t>(v >> 16U);
  b[2] = static_cast<std::uint8_t>(v >> 8U);
  b[3] = static_cast<std::uint8_t>(v);
}

void BM_MxtpParse(benchmark::State& state) {
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  kt::stream::MxtpPoseDatagram d;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kt::stream::parseMxtp(fx.datagrams[i], d));
    i = (i + 1) % fx.datagrams.size();
  }
}
BENCHMARK(BM_MxtpParse);

void BM_LiveDatagram(benchmark::State& state) {
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  kt::stream::LiveTracker live(fx.setup, fx.capture.clip.segment_names, {}, 240.0);
  std::vector<std::vector<std::uint8_t>> dg = fx.datagrams;
  std::string msg;
  msg.reserve(live.frameCapacity());
  std::uint32_t k = 0;
  for (auto _ : state) {
    auto& b = dg[k % dg.size()];
    putU32(b.data() + 6, k);
    putU32(b.data() + 12, k * 5);  // 5 ms apart: strictly increasing time codes
    benchmark::DoNotOptimize(live.onDatagram(b));
    live.encodeFrame(0.0, msg);
    benchmark::DoNotOptimize(msg.data());
    ++k;
  }
  state.counters["message_bytes"] = static_cast<double>(msg.size());
}
BENCHMARK(BM_LiveDatagram);

void BM_EncodeFrame(benchmark::State& state) {
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  kt::stream::LiveTracker live(fx.setup, fx.capture.clip.segment_names, {}, 240.0);
  live.onDatagram(fx.datagrams[0]);
  std::string msg;
  msg.reserve(live.frameCapacity());
  for (auto _ : state) {
    live.encodeFrame(12.5, msg);
    benchmark::DoNotOptimize(msg.data());
  }
}
BENCHMARK(BM_EncodeFrame);

void BM_FileTrackerFrame(benchmark::State& state) {
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  const auto& plan = fx.setup.plan;
  kt::track::TrackerOptions o;
  o.first_frame_interval = 1.0 / 240.0;
  kt::track::StreamTracker tracker(std::make_shared<const kt::Model>(fx.setup.model),
                                   kt::track::streamTargets(plan.bindings), o);
  tracker.setState(plan.initial);
  std::vector<kt::Matrix3d> R(plan.bindings.size());
  std::vector<kt::Vector3d> p(plan.bindings.size());
  const int n = fx.capture.clip.numFrames();
  long k = 0;
  for (auto _ : state) {
    const bool valid =
        kt::track::clipFrameTargets(fx.capture.clip, plan.bindings, plan.alignment, static_cast<int>(k % n), R, p);
    benchmark::DoNotOptimize(tracker.track(static_cast<double>(k) * 0.005, R, p, valid));
    ++k;
  }
}
BENCHMARK(BM_FileTrackerFrame);

}  // namespace

BENCHMARK_MAIN();
