// The per-datagram path of `kinetrack serve` (issue 17) on test_mocap.mvnx, human66, DYN:
//   BM_MxtpParse          parse one 23-segment MXTP type-02 datagram
//   BM_LiveDatagram       LiveTracker::onDatagram (parse, sequence, DYN frame, forward kinematics)
//                         + the frame's JSON message: the server's work between receive and send
//   BM_EncodeFrame        the frame's JSON message alone (human66: 66 link poses, q)
//   BM_FileTrackerFrame   peer in the same run: the file tracker's per-frame work on the same
//                         frames (clipFrameTargets + StreamTracker::track), as `kinetrack track`
//   BM_LoopbackRoundTrip  end to end on loopback, in-process server: one MXTP datagram sent over
//                         UDP → tracked → its frame message read by a WebSocket client (Beast);
//                         one iteration = one frame; counters p50_us, p99_us, max_us over the run
//   BM_KtpParseBinary     parse one 23-segment KTP poses message, binary (peer: BM_MxtpParse)
//   BM_KtpParseJson       the same frame as KTP JSON text, scanned in place (peer:
//                         BM_KtpParseJsonNlohmannDocument, the text parsed into a document)
//   BM_KtpRoundTrip/T     as BM_LoopbackRoundTrip with a KTP poses message, transport T: 0 UDP
//                         binary, 1 UDP JSON, 2 WebSocket binary, 3 WebSocket JSON (the same
//                         client sends and reads)
// Frames cycle through the capture; sample counters and time codes keep increasing.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/stream/ktp.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/stream/server.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

kt::io::ModelSpec modelSpec(const std::string& name) {
  kt::io::ModelSpec spec;
  spec.model = name;
  return spec;
}

struct Fixture {
  kt::track::Capture capture;
  kt::track::TrackSetup setup;
  std::vector<std::vector<std::uint8_t>> datagrams;
  std::vector<std::unique_ptr<kt::stream::KtpFrame>> ktp;  ///< the same frames as KTP poses
  Fixture() {
    const std::string path = kt::testing::sharedFile("data/mvnx/test_mocap.mvnx");
    if (path.empty()) return;
    capture = kt::track::loadCapture(path);
    setup = kt::track::setupOnModel(kt::io::loadModel(modelSpec("human66")).model, capture, "");
    kt::stream::MxtpPoseDatagram d;
    for (int f = 0; f < capture.clip.numFrames(); ++f) {
      kt::stream::clipFrameDatagram(capture.clip, f, 240.0, d);
      std::vector<std::uint8_t> b(kt::stream::kMxtpMaxDatagram);
      b.resize(kt::stream::encodeMxtp(d, b));
      datagrams.push_back(b);
      auto k = std::make_unique<kt::stream::KtpFrame>();
      k->seq = static_cast<std::uint32_t>(f);
      k->time = d.header.time_ms * 1e-3;
      k->count = d.count;
      for (int i = 0; i < d.count; ++i) {
        const auto& r = d.segments[static_cast<std::size_t>(i)];
        auto& it = k->items[static_cast<std::size_t>(i)];
        it.index = r.id - 1;
        for (std::size_t c = 0; c < 3; ++c) it.p[c] = r.position[c];
        for (std::size_t c = 0; c < 4; ++c) it.q[c] = r.quaternion[c];
      }
      ktp.push_back(std::move(k));
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

/// Counters p50_us, p99_us and max_us of the per-frame round trips `us` (µs).
void reportPercentiles(benchmark::State& state, std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[std::min(us.size() - 1, static_cast<std::size_t>(q * us.size()))]; };
  state.counters["p50_us"] = at(0.5);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = us.back();
}

void BM_LoopbackRoundTrip(benchmark::State& state) {
  namespace asio = boost::asio;
  namespace websocket = boost::beast::websocket;
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  kt::stream::ServerOptions o;
  o.ws_port = 0;
  o.udp_port = 0;
  kt::stream::Server server(std::make_unique<kt::stream::LiveTracker>(fx.setup, fx.capture.clip.segment_names,
                                                                      kt::track::TrackerOptions{}, 240.0),
                            o);
  std::thread runner([&] { server.run(false); });
  asio::io_context io;
  websocket::stream<asio::ip::tcp::socket> ws(io);
  ws.next_layer().connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server.wsPort())});
  ws.handshake("127.0.0.1", "/");
  boost::beast::flat_buffer b;
  ws.read(b);  // hello
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(server.udpPort()));
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  std::vector<std::vector<std::uint8_t>> dg = fx.datagrams;
  std::vector<double> us;
  std::uint32_t k = 0;
  for (auto _ : state) {
    auto& d = dg[k % dg.size()];
    putU32(d.data() + 6, k);
    putU32(d.data() + 12, k * 5);
    const auto t0 = std::chrono::steady_clock::now();
    ::sendto(fd, d.data(), d.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
    do {  // skip stats messages
      b.clear();
      ws.read(b);
    } while (boost::beast::buffers_to_string(b.data()).compare(0, 16, R"({"type":"frame",)") != 0);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    ++k;
  }
  ::close(fd);
  server.stop();
  runner.join();
  reportPercentiles(state, us);
}
BENCHMARK(BM_LoopbackRoundTrip)->Iterations(2240)->UseRealTime();

std::vector<std::uint8_t> ktpMessage(const kt::stream::KtpFrame& f, const std::vector<std::string>& names,
                                     bool binary) {
  if (binary) {
    std::vector<std::uint8_t> b(kt::stream::kKtpMaxBinary);
    b.resize(kt::stream::encodeKtp(f, b));
    return b;
  }
  std::string text;
  kt::stream::encodeKtpJson(f, names, text);
  return {text.begin(), text.end()};
}

/// Every fixture frame as a KTP poses message, binary or JSON.
std::vector<std::vector<std::uint8_t>> ktpMessages(const Fixture& fx, bool binary) {
  std::vector<std::vector<std::uint8_t>> messages;
  for (const auto& f : fx.ktp) messages.push_back(ktpMessage(*f, fx.capture.clip.segment_names, binary));
  return messages;
}

void parseKtp(benchmark::State& state, bool binary) {
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  const std::vector<std::vector<std::uint8_t>> messages = ktpMessages(fx, binary);
  auto out = std::make_unique<kt::stream::KtpFrame>();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        kt::stream::parseKtp(messages[i], kt::stream::KtpKind::Poses, fx.capture.clip.segment_names, *out));
    i = (i + 1) % messages.size();
  }
  state.counters["message_bytes"] = static_cast<double>(messages[0].size());
}
void BM_KtpParseBinary(benchmark::State& state) { parseKtp(state, true); }
void BM_KtpParseJson(benchmark::State& state) { parseKtp(state, false); }
BENCHMARK(BM_KtpParseBinary);
BENCHMARK(BM_KtpParseJson);

// Peer: the same JSON texts parsed into a nlohmann-json document (what the KTP JSON reader did
// before it scanned in place); the fields are not even read out.
void BM_KtpParseJsonNlohmannDocument(benchmark::State& state) {
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  const std::vector<std::vector<std::uint8_t>> messages = ktpMessages(fx, false);
  std::size_t i = 0;
  for (auto _ : state) {
    const auto doc = nlohmann::json::parse(messages[i].begin(), messages[i].end(), nullptr, false);
    benchmark::DoNotOptimize(doc.size());
    i = (i + 1) % messages.size();
  }
}
BENCHMARK(BM_KtpParseJsonNlohmannDocument);

void BM_KtpRoundTrip(benchmark::State& state) {
  namespace asio = boost::asio;
  namespace websocket = boost::beast::websocket;
  const Fixture& fx = fixture();
  if (fx.datagrams.empty()) return state.SkipWithError("../shared/data/mvnx/test_mocap.mvnx not found");
  const int transport = static_cast<int>(state.range(0));
  const bool binary = transport == 0 || transport == 2, ws_in = transport >= 2;
  kt::stream::ServerOptions o;
  o.ws_port = 0;
  o.udp_port = 0;
  kt::stream::Server server(std::make_unique<kt::stream::LiveTracker>(fx.setup, fx.capture.clip.segment_names,
                                                                      kt::track::TrackerOptions{}, 240.0),
                            o);
  std::thread runner([&] { server.run(false); });
  asio::io_context io;
  websocket::stream<asio::ip::tcp::socket> ws(io);
  ws.next_layer().connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server.wsPort())});
  ws.next_layer().set_option(asio::ip::tcp::no_delay(true));
  ws.handshake("127.0.0.1", "/");
  ws.binary(binary);
  boost::beast::flat_buffer b;
  ws.read(b);  // hello
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(server.udpPort()));
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  auto frame = std::make_unique<kt::stream::KtpFrame>();
  std::vector<double> us;
  std::uint32_t k = 0;
  for (auto _ : state) {
    state.PauseTiming();
    *frame = *fx.ktp[k % fx.ktp.size()];
    frame->seq = k;
    frame->time = k * 0.005;
    const std::vector<std::uint8_t> m = ktpMessage(*frame, fx.capture.clip.segment_names, binary);
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    if (ws_in)
      ws.write(asio::buffer(m));
    else
      ::sendto(fd, m.data(), m.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
    do {  // skip stats messages
      b.clear();
      ws.read(b);
    } while (boost::beast::buffers_to_string(b.data()).compare(0, 16, R"({"type":"frame",)") != 0);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    ++k;
  }
  ::close(fd);
  server.stop();
  runner.join();
  reportPercentiles(state, us);
}
BENCHMARK(BM_KtpRoundTrip)->DenseRange(0, 3)->Iterations(2240)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
