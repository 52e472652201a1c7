// The kinetrack input protocol end to end on loopback, one test per transport (UDP binary, UDP
// JSON, WebSocket binary, WebSocket JSON): every frame sent comes back as a frame message with its
// sequence number, in order, tracked exactly as the library's LiveTracker tracks the same bytes;
// bad messages between them are counted per class (and answered with an error naming the field
// over WebSocket); the marker server answers KTP markers.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/stream/ktp.hpp"
#include "kinetrack/stream/server.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "loopback.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {
using loopback::Client;
using loopback::ephemeral;
using loopback::modelSpec;
using loopback::UdpSender;
using nlohmann::json;

enum class Transport : std::uint8_t { UdpBinary, UdpJson, WsBinary, WsJson };

/// One message of a transport (binary or JSON text).
std::vector<std::uint8_t> message(const KtpFrame& f, std::span<const std::string> names, bool binary) {
  if (binary) {
    std::vector<std::uint8_t> b(kKtpMaxBinary);
    b.resize(encodeKtp(f, b));
    return b;
  }
  std::string text;
  encodeKtpJson(f, names, text);
  return {text.begin(), text.end()};
}

/// Clip frame k as KTP poses (index = clip segment), time k / 60 s.
void poses(const io::MotionClip& clip, int k, KtpFrame& f) {
  MxtpPoseDatagram d;
  clipFrameDatagram(clip, k % clip.numFrames(), 60.0, d);
  f.kind = KtpKind::Poses;
  f.seq = static_cast<std::uint32_t>(k);
  f.time = k / 60.0;
  f.count = d.count;
  for (int i = 0; i < d.count; ++i) {
    const auto& s = d.segments[static_cast<std::size_t>(i)];
    KtpItem& it = f.items[static_cast<std::size_t>(i)];
    it.index = s.id - 1;
    for (std::size_t c = 0; c < 3; ++c) it.p[c] = s.position[c];
    for (std::size_t c = 0; c < 4; ++c) it.q[c] = s.quaternion[c];
  }
}

/// A bad message of fault kind `n` (cycling) derived from a good one.
std::vector<std::uint8_t> fault(std::vector<std::uint8_t> good, int n, bool binary) {
  switch (n % 4) {
    case 0: good.resize(good.size() / 2); break;              // truncated (JSON: not JSON)
    case 1: good.push_back(binary ? 0 : 'x'); break;          // oversized (JSON: trailing garbage)
    case 2: good[binary ? 4 : 10] = binary ? 9 : 'X'; break;  // version 9 / a broken field name
    default: good = {'h', 'e', 'l', 'l', 'o'}; break;         // garbage
  }
  return good;
}

void roundTrip(Transport transport) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const track::Capture capture = track::loadCapture(path);
  const io::MotionClip& clip = capture.clip;
  const track::TrackSetup setup = track::setupOnModel(io::loadModel(modelSpec("human66")).model, capture, "");
  const bool binary = transport == Transport::UdpBinary || transport == Transport::WsBinary;
  const bool ws = transport == Transport::WsBinary || transport == Transport::WsJson;
  ServerOptions o = ephemeral();
  o.queue_depth = 256;
  Server server(std::make_unique<LiveTracker>(setup, clip.segment_names, track::TrackerOptions{}, 60.0), o);
  ServerSummary summary;
  std::thread runner([&] { summary = server.run(false); });
  LiveTracker oracle(setup, clip.segment_names, {}, 60.0);  // the same bytes through the library

  Client c(server.wsPort());
  const json hello = c.readType("hello");
  ASSERT_EQ(hello["input"]["kind"], "poses");
  ASSERT_EQ(hello["input"]["names"].get<std::vector<std::string>>(), clip.segment_names);
  UdpSender udp(server.udpPort());
  auto send = [&](const std::vector<std::uint8_t>& m) {
    if (!ws) return udp.send(m);
    if (binary) return c.sendBinary(m);
    c.send(std::string(m.begin(), m.end()));
  };
  auto f = std::make_unique<KtpFrame>();
  auto scratch = std::make_unique<KtpFrame>();
  long expected[5] = {0, 0, 0, 0, 0};  // per ParseStatus
  int errors_seen = 0, bad_sent = 0;
  const int total = 2 * clip.numFrames();
  double worst = 0.0;
  for (int k = 0; k < total; ++k) {
    poses(clip, k, *f);
    const std::vector<std::uint8_t> good = message(*f, clip.segment_names, binary);
    if (k % 10 == 5) {  // a bad message first: counted and skipped
      const std::vector<std::uint8_t> bad = fault(good, bad_sent++, binary);
      ++expected[static_cast<int>(parseKtp(bad, KtpKind::Poses, clip.segment_names, *scratch))];
      send(bad);
    }
    send(good);
    ASSERT_EQ(oracle.onDatagram(good), DatagramResult::Tracked);
    // Read up to this frame's message (errors before it answer the bad message).
    json j;
    do {
      j = c.read();
      ASSERT_FALSE(j.is_discarded()) << "no frame " << k;
      if (j["type"] == "error") {
        ++errors_seen;
        EXPECT_FALSE(j["message"].get<std::string>().empty());
      }
    } while (j["type"] != "frame");
    ASSERT_EQ(j["seq"].get<std::uint32_t>(), static_cast<std::uint32_t>(k));
    ASSERT_EQ(j["status"], "ok");
    const auto& q = j["q"];
    for (Eigen::Index i = 0; i < oracle.state().joints.size(); ++i)
      worst = std::max(worst, std::abs(q[static_cast<std::size_t>(7 + i)].get<double>() - oracle.state().joints[i]));
  }
  server.stop();
  runner.join();
  EXPECT_LE(worst, 5e-7);  // the message's 6 decimals
  EXPECT_EQ(summary.frames, total);
  EXPECT_EQ(summary.truncated, expected[static_cast<int>(ParseStatus::Truncated)]);
  EXPECT_EQ(summary.oversized, expected[static_cast<int>(ParseStatus::Oversized)]);
  EXPECT_EQ(summary.malformed, expected[static_cast<int>(ParseStatus::Malformed)]);
  EXPECT_EQ(summary.unsupported, expected[static_cast<int>(ParseStatus::Unsupported)]);
  EXPECT_EQ(summary.truncated + summary.oversized + summary.malformed + summary.unsupported, bad_sent);
  EXPECT_EQ(expected[static_cast<int>(ParseStatus::Ok)], 0);
  EXPECT_EQ(errors_seen, ws ? bad_sent : 0);  // over WebSocket each bad message is answered
  EXPECT_EQ(summary.dropped, 0);
}

TEST(KtpServer, UdpBinaryRoundTrip) { roundTrip(Transport::UdpBinary); }
TEST(KtpServer, UdpJsonRoundTrip) { roundTrip(Transport::UdpJson); }
TEST(KtpServer, WebSocketBinaryRoundTrip) { roundTrip(Transport::WsBinary); }
TEST(KtpServer, WebSocketJsonRoundTrip) { roundTrip(Transport::WsJson); }

TEST(KtpServer, MarkerServerTracksKtpMarkersOverBothTransports) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Movement_trial.c3d");
  const io::MarkerTrajectories trial = io::readMarkerTrial(path, false);
  auto model = std::make_shared<const Model>(io::loadModel(modelSpec("human66")).model);
  const io::MarkerSet set = io::builtinMarkerSet("human66_plugin_gait");
  // The server knows every marker of the set (as `kinetrack serve --markerset` does).
  const track::MarkerIkSpec spec = track::markerIkSpec(subject::markerModel(model, set));
  Server server(std::make_unique<MarkerLiveTracker>(spec, 120.0), ephemeral());
  std::thread runner([&] { server.run(false); });
  Client c(server.wsPort());
  const json hello = c.readType("hello");
  ASSERT_EQ(hello["input"]["kind"], "markers");
  ASSERT_EQ(hello["input"]["protocols"], json::array({"ktp"}));
  const auto names = hello["input"]["names"].get<std::vector<std::string>>();
  ASSERT_EQ(names, set.names());
  UdpSender udp(server.udpPort());
  auto f = std::make_unique<KtpFrame>();
  for (int k = 0; k < 40; ++k) {
    f->kind = KtpKind::Markers;
    f->seq = static_cast<std::uint32_t>(k);
    f->time = k / 120.0;
    f->count = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto col = std::find(trial.names.begin(), trial.names.end(), names[i]);
      if (col == trial.names.end()) continue;
      const Vector3d p = trial.position(k, static_cast<int>(col - trial.names.begin()));
      if (!p.allFinite()) continue;
      f->items[static_cast<std::size_t>(f->count++)] = {static_cast<int>(i), {p.x(), p.y(), p.z()}, {}};
    }
    const auto m = message(*f, names, k % 2 == 0);
    if (k % 2 == 0)
      udp.send(m);
    else
      c.send(std::string(m.begin(), m.end()));
    const json j = c.readType("frame");
    ASSERT_FALSE(j.is_discarded());
    EXPECT_EQ(j["seq"], k);
    EXPECT_EQ(j["status"], "ok");
    EXPECT_EQ(static_cast<int>(j["targets"].size()), f->count);
  }
  // A segment-pose message is not for this server: answered, counted.
  c.send(R"({"type":"poses","version":1,"seq":99,"time":9,"segments":[]})");
  const json e = c.readType("error");
  EXPECT_NE(e["message"].get<std::string>().find("this server takes markers"), std::string::npos) << e;
  server.stop();
  runner.join();
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
