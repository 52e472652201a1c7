// MXTP type-02 parsing and encoding: round trip, hand-built datagrams checked byte by byte
// against the protocol layout, every fault class, random mutations never read out of bounds;
// the frame sequencer; the live tracker against the file tracker on the same capture, and its
// per-datagram path without allocation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {
io::ModelSpec modelSpec(const std::string& name) {
  io::ModelSpec spec;
  spec.model = name;
  return spec;
}

MxtpPoseDatagram sampleDatagram(int n) {
  MxtpPoseDatagram d;
  d.header.sample = 0x01020304U;
  d.header.time_ms = 123456;
  d.header.character = 2;
  d.header.body_segments = static_cast<std::uint8_t>(n);
  d.count = n;
  for (int i = 0; i < n; ++i) {
    auto& s = d.segments[static_cast<std::size_t>(i)];
    s.id = i + 1;
    s.position = {0.1F * static_cast<float>(i), -0.5F, 1.25F};
    const double a = 0.1 * i;
    s.quaternion = {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)), 0.0F, 0.0F};
  }
  return d;
}

std::vector<std::uint8_t> encode(const MxtpPoseDatagram& d) {
  std::vector<std::uint8_t> b(kMxtpMaxDatagram);
  b.resize(encodeMxtp(d, b));
  return b;
}

TEST(Mxtp, LayoutIsBigEndianWithA24ByteHeaderAnd32ByteRecords) {
  const auto b = encode(sampleDatagram(23));
  ASSERT_EQ(b.size(), 24U + 23U * 32U);
  EXPECT_EQ(std::memcmp(b.data(), "MXTP02", 6), 0);
  EXPECT_EQ(b[6], 0x01);  // sample counter, most significant byte first
  EXPECT_EQ(b[9], 0x04);
  EXPECT_EQ(b[10], 0x80);  // datagram counter: last (and only) datagram of the sample
  EXPECT_EQ(b[11], 23);    // items
  EXPECT_EQ((b[12] << 24) | (b[13] << 16) | (b[14] << 8) | b[15], 123456);
  EXPECT_EQ(b[16], 2);
  EXPECT_EQ(b[17], 23);
  EXPECT_EQ((b[22] << 8) | b[23], 23 * 32);
  // Record 2: id 3, then x = 0.2f as IEEE-754 big-endian.
  const std::uint8_t* r = b.data() + 24 + 2 * 32;
  EXPECT_EQ((r[0] << 24) | (r[1] << 16) | (r[2] << 8) | r[3], 3);
  std::uint32_t bits = 0;
  const float x = 0.2F;
  std::memcpy(&bits, &x, 4);
  EXPECT_EQ(r[4], bits >> 24U);
  EXPECT_EQ(r[7], bits & 0xFFU);
}

TEST(Mxtp, RoundTrip) {
  const MxtpPoseDatagram d = sampleDatagram(23);
  const auto b = encode(d);
  MxtpPoseDatagram back;
  ASSERT_EQ(parseMxtp(b, back), ParseStatus::Ok);
  EXPECT_EQ(back.count, 23);
  EXPECT_EQ(back.header.sample, d.header.sample);
  EXPECT_EQ(back.header.time_ms, d.header.time_ms);
  EXPECT_EQ(back.header.character, 2);
  for (int i = 0; i < 23; ++i) {
    const auto& a = d.segments[static_cast<std::size_t>(i)];
    const auto& c = back.segments[static_cast<std::size_t>(i)];
    EXPECT_EQ(a.id, c.id);
    EXPECT_EQ(a.position, c.position);
    EXPECT_EQ(a.quaternion, c.quaternion);
  }
}

TEST(Mxtp, EveryFaultClassIsReportedNeverOk) {
  const auto good = encode(sampleDatagram(23));
  MxtpPoseDatagram out;
  // Every shorter prefix: truncated (or, under 4 bytes of a wrong start, malformed).
  for (std::size_t n = 0; n < good.size(); ++n) {
    const ParseStatus s = parseMxtp(std::span(good.data(), n), out);
    EXPECT_TRUE(s == ParseStatus::Truncated || (n == 0 && s == ParseStatus::Malformed)) << n;
  }
  auto longer = good;
  longer.push_back(0);
  EXPECT_EQ(parseMxtp(longer, out), ParseStatus::Oversized);
  std::vector<std::uint8_t> huge(kMxtpMaxDatagram + 1, 0);
  std::memcpy(huge.data(), good.data(), good.size());
  EXPECT_EQ(parseMxtp(huge, out), ParseStatus::Oversized);
  auto bad = good;
  bad[0] = 'X';
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Malformed);
  bad = good;
  bad[23] ^= 0x01U;  // payload size disagrees with the items
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Malformed);
  bad = good;
  bad[24 + 3] = 0;  // segment id 0
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Malformed);
  bad = good;
  std::memset(bad.data() + 24 + 4, 0xFF, 4);  // x = NaN
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Malformed);
  bad = good;
  std::memset(bad.data() + 24 + 16, 0, 16);  // zero quaternion
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Malformed);
  bad = good;
  bad[5] = '1';  // type 01 (Euler): well-formed, not ours
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Unsupported);
  bad = good;
  bad[10] = 0x00;  // first of several datagrams
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Unsupported);
  bad = good;
  bad[11] = 24;  // more items than records
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Truncated);
  bad = good;
  bad[11] = 22;  // fewer items than records
  EXPECT_EQ(parseMxtp(bad, out), ParseStatus::Oversized);
}

TEST(Mxtp, RandomMutationsAndNoiseNeverReadOutOfBounds) {
  const auto good = encode(sampleDatagram(23));
  std::mt19937 rng(7);
  MxtpPoseDatagram out;
  int ok = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<std::uint8_t> b = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    b.resize(rng() % (b.size() + 40));
    // A heap copy of exactly the datagram's size: ASan catches any read past it.
    const std::vector<std::uint8_t> exact(b.begin(), b.end());
    if (parseMxtp(exact, out) == ParseStatus::Ok) {
      ++ok;
      EXPECT_EQ(exact.size(), 24U + static_cast<std::size_t>(out.count) * 32U);
    }
  }
  EXPECT_LT(ok, 20000);
}

TEST(Mxtp, EncodeRefusesTooSmallBufferAndBadCount) {
  MxtpPoseDatagram d = sampleDatagram(3);
  std::vector<std::uint8_t> small(24 + 3 * 32 - 1);
  EXPECT_EQ(encodeMxtp(d, small), 0U);
  d.count = 256;
  std::vector<std::uint8_t> big(kMxtpMaxDatagram + 64);
  EXPECT_EQ(encodeMxtp(d, big), 0U);
}

TEST(FrameSequencer, CountsDuplicatesOutOfOrderAndSkips) {
  FrameSequencer s;
  using V = FrameSequencer::Verdict;
  EXPECT_EQ(s.offer(10), V::Accept);
  EXPECT_EQ(s.offer(11), V::Accept);
  EXPECT_EQ(s.offer(11), V::Duplicate);
  EXPECT_EQ(s.offer(14), V::Accept);
  EXPECT_EQ(s.offer(12), V::OutOfOrder);
  EXPECT_EQ(s.offer(13), V::OutOfOrder);
  EXPECT_EQ(s.offer(15), V::Accept);
  EXPECT_EQ(s.accepted(), 4);
  EXPECT_EQ(s.duplicates(), 1);
  EXPECT_EQ(s.outOfOrder(), 2);
  EXPECT_EQ(s.skipped(), 2);
}

struct LiveFixture {
  track::Capture capture;
  track::TrackSetup setup;
  explicit LiveFixture(const std::string& path) {
    capture = track::loadCapture(path);
    setup = track::setupOnModel(io::loadModel(modelSpec("human66")).model, capture, "");
  }
};

// The live path (MXTP floats, millisecond time codes) reproduces the file tracker on the capture:
// every joint within 1e-4 rad, or, with `settle` > 0, after the first `settle` frames every
// link's position and every segment link's rotation within 1e-5. (human66's elbow is three
// revolute joints: started from the zero pose at the first frame, the float32 rounding of the
// targets can send the two runs through different but equivalent Euler triples, angles π apart:
// the same segment poses, an intermediate link of the elbow turned by π about its axis.)
void expectLiveMatchesFile(const track::Capture& capture, const track::TrackSetup& setup,
                           const track::TrackerOptions& options, int settle = 0) {
  const io::MotionClip& clip = capture.clip;
  const double rate = 1.0 / track::meanFrameInterval(clip);
  // File tracker on the clip re-timed exactly as the stream is (k / rate, whole milliseconds).
  track::Capture timed = capture;
  for (int f = 0; f < clip.numFrames(); ++f)
    timed.clip.times[static_cast<std::size_t>(f)] = std::llround(f * 1e3 / rate) * 1e-3;
  std::vector<Configuration> file_q;
  track::runTracking(setup.model, timed, setup.plan, options,
                     [&](int, const Configuration& q, const track::FrameOutcome&) { file_q.push_back(q); });
  LiveTracker live(setup, clip.segment_names, options, rate);
  MxtpPoseDatagram d;
  std::vector<std::uint8_t> buf(kMxtpMaxDatagram);
  double worst = 0.0, worst_link = 0.0;
  Data file_data(setup.model);
  for (int f = 0; f < clip.numFrames(); ++f) {
    clipFrameDatagram(clip, f, rate, d);
    const std::size_t n = encodeMxtp(d, buf);
    ASSERT_EQ(live.onDatagram(std::span(buf.data(), n)), DatagramResult::Tracked) << f;
    const Configuration& q = file_q[static_cast<std::size_t>(f)];
    if (settle == 0) worst = std::max(worst, (live.state().joints - q.joints).cwiseAbs().maxCoeff());
    if (settle == 0 || f < settle) continue;
    forwardKinematics(setup.model, file_data, q);
    for (int l = 0; l < setup.model.numLinks(); ++l) {
      const auto k = static_cast<std::size_t>(l);
      worst_link = std::max(worst_link, (live.data().link[k].p - file_data.link[k].p).norm());
    }
    for (const track::TargetBinding& b : setup.plan.bindings) {  // the segments' frames
      const auto k = static_cast<std::size_t>(setup.model.frameLink(setup.model.frameId(b.frame)).value);
      worst_link = std::max(worst_link, (live.data().link[k].R - file_data.link[k].R).norm());
    }
  }
  EXPECT_EQ(live.counters().frames.load(), clip.numFrames());
  // Only the float32 rounding of the poses separates the two.
  EXPECT_LT(worst, 1e-4) << "largest joint difference (rad)";
  EXPECT_LT(worst_link, 1e-5) << "largest link pose difference (m, rotation matrix norm)";
}

TEST(LiveTracker, MatchesTheFileTrackerOnTheSameCapture) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  LiveFixture fx(path);
  expectLiveMatchesFile(fx.capture, fx.setup, {}, 15);  // 0.25 s at 60 Hz
}

// `kinetrack serve --retarget` on the iCub: the plan and options of `kinetrack retarget`.
TEST(LiveTracker, MatchesTheFileTrackerOnTheIcubRetarget) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  const track::Capture capture = track::loadCapture(path);
  track::TrackSetup setup;
  setup.model = icubForRetargeting(io::loadModel(modelSpec(urdf)).model);
  setup.plan = track::planTracking(setup.model, capture, track::resolveRobotPairs(setup.model, capture, "", "").pairs);
  track::TrackerOptions options;
  options.dynamical.use_model_velocity_limits = true;
  expectLiveMatchesFile(capture, setup, options);
}

TEST(LiveTracker, PerDatagramPathDoesNotAllocate) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  LiveFixture fx(path);
  const io::MotionClip& clip = fx.capture.clip;
  LiveTracker live(fx.setup, clip.segment_names, {}, 60.0);
  std::vector<std::vector<std::uint8_t>> datagrams;
  MxtpPoseDatagram d;
  for (int f = 0; f < clip.numFrames(); ++f) {
    clipFrameDatagram(clip, f, 60.0, d);
    datagrams.push_back(encode(d));
  }
  std::string msg;
  msg.reserve(live.frameCapacity());
  for (int f = 0; f < 5; ++f) {  // warm-up: first frame, solver workspaces
    live.onDatagram(datagrams[static_cast<std::size_t>(f)]);
    live.encodeFrame(10.0, msg);
  }
  std::vector<std::uint8_t> truncated(datagrams[5].begin(), datagrams[5].begin() + 40);
  long allocations = 0;
  {
    const testing::AllocationCounter guard;
    for (std::size_t f = 5; f < datagrams.size(); ++f) {
      live.onDatagram(datagrams[f]);
      live.onDatagram(datagrams[f]);  // duplicate
      live.onDatagram(truncated);
      live.encodeFrame(10.0, msg);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_LE(msg.size(), live.frameCapacity());
  EXPECT_EQ(live.counters().duplicates.load(), static_cast<long>(datagrams.size()) - 5);
  EXPECT_EQ(live.counters().truncated.load(), static_cast<long>(datagrams.size()) - 5);
}

TEST(LiveTracker, FrameMessageIsValidProtocolJson) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  LiveFixture fx(path);
  LiveTracker live(fx.setup, fx.capture.clip.segment_names, {}, 60.0);
  MxtpPoseDatagram d;
  clipFrameDatagram(fx.capture.clip, 3, 60.0, d);
  ASSERT_EQ(live.onDatagram(encode(d)), DatagramResult::Tracked);
  std::string msg;
  live.encodeFrame(42.5, msg);
  const std::string hello = helloJson(live.model(), "human66", false, 60.0);
  EXPECT_NE(hello.find("\"type\":\"hello\""), std::string::npos);
  EXPECT_NE(msg.find("\"type\":\"frame\",\"seq\":3,\"source_time\":0.050000,\"latency_us\":42.5"), std::string::npos)
      << msg.substr(0, 200);
  // The message parses and carries the state: q = base position, base quaternion, joints.
  const nlohmann::json j = nlohmann::json::parse(msg);
  const Configuration& q = live.state();
  ASSERT_EQ(j["q"].size(), static_cast<std::size_t>(7 + q.joints.size()));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(j["q"][static_cast<std::size_t>(k)].get<double>(), q.base_position[k], 1e-6);
  for (Eigen::Index i = 0; i < q.joints.size(); ++i)
    EXPECT_NEAR(j["q"][static_cast<std::size_t>(7 + i)].get<double>(), q.joints[i], 1e-6) << i;
  ASSERT_EQ(j["links"].size(), static_cast<std::size_t>(live.model().numLinks()));
  for (int l = 0; l < live.model().numLinks(); ++l)
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(j["links"][static_cast<std::size_t>(l)][static_cast<std::size_t>(k)].get<double>(),
                  live.data().link[static_cast<std::size_t>(l)].p[k], 1e-5);
  EXPECT_EQ(j["targets"].size(), static_cast<std::size_t>(live.numPositionTargets()));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
