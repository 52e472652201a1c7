// The kinetrack input protocol (KTP): binary layout checked byte by byte by a decoder written
// here from docs/streaming.md, JSON round trip, every fault class with a reason naming the field,
// every truncation and random mutations classified without reading out of bounds; live tracking
// of KTP poses equal to MXTP's, live marker tracking equal to the file marker IK on a real Vicon
// trial, and the binary per-message path without allocation.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/stream/ktp.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {

const std::vector<std::string> kNames{"Pelvis", "L5", "L3", "T12", "T8"};

std::span<const std::uint8_t> bytesOf(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

KtpFrame poseFrame() {
  KtpFrame f;
  f.kind = KtpKind::Poses;
  f.seq = 0x01020304U;
  f.time = 12.345678901234;
  f.count = 3;
  for (int i = 0; i < 3; ++i) {
    KtpItem& it = f.items[static_cast<std::size_t>(i)];
    it.index = 4 - i;
    it.p = {0.25 * i, -0.5, 1.0 + 0.125 * i};
    const double a = 0.3 * (i + 1);
    it.q = {std::cos(a), 0.0, std::sin(a), 0.0};
  }
  return f;
}

std::vector<std::uint8_t> encode(const KtpFrame& f) {
  std::vector<std::uint8_t> b(kKtpMaxBinary);
  b.resize(encodeKtp(f, b));
  return b;
}

// Little-endian reads written here, independent of the library's.
std::uint32_t le32(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8U) | b[at + static_cast<std::size_t>(k)];
  return v;
}
float leF32(const std::vector<std::uint8_t>& b, std::size_t at) { return std::bit_cast<float>(le32(b, at)); }

TEST(Ktp, BinaryLayoutMatchesTheDocumentByteForByte) {
  const KtpFrame f = poseFrame();
  const std::vector<std::uint8_t> b = encode(f);
  ASSERT_EQ(b.size(), 24U + 3U * 32U);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "KTRK");
  EXPECT_EQ(b[4], 1);  // version
  EXPECT_EQ(b[5], 1);  // kind: poses
  EXPECT_EQ(b[6] | (b[7] << 8), 3);
  EXPECT_EQ(le32(b, 8), 0x01020304U);
  EXPECT_EQ(b[8], 0x04);  // little-endian
  EXPECT_EQ(le32(b, 12), 0U);
  const std::uint64_t t = std::uint64_t{le32(b, 16)} | (std::uint64_t{le32(b, 20)} << 32U);
  EXPECT_EQ(std::bit_cast<double>(t), f.time);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t r = 24 + 32 * i;
    EXPECT_EQ(b[r] | (b[r + 1] << 8), f.items[i].index);
    EXPECT_EQ(b[r + 2] | b[r + 3], 0);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(leF32(b, r + 4 + 4 * k), static_cast<float>(f.items[i].p[k]));
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(leF32(b, r + 16 + 4 * k), static_cast<float>(f.items[i].q[k]));
  }
  KtpFrame g;
  ASSERT_EQ(parseKtp(b, KtpKind::Poses, kNames, g), ParseStatus::Ok) << g.errorText();
  EXPECT_EQ(g.seq, f.seq);
  EXPECT_EQ(g.time, f.time);
  ASSERT_EQ(g.count, 3);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(g.items[i].index, f.items[i].index);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(g.items[i].p[k], static_cast<float>(f.items[i].p[k]));
  }
  // Markers: 16-byte records, no quaternion.
  KtpFrame m = f;
  m.kind = KtpKind::Markers;
  const std::vector<std::uint8_t> mb = encode(m);
  ASSERT_EQ(mb.size(), 24U + 3U * 16U);
  EXPECT_EQ(mb[5], 2);
  EXPECT_EQ(leF32(mb, 24 + 16 + 4), static_cast<float>(f.items[1].p[0]));
  ASSERT_EQ(parseKtp(mb, KtpKind::Markers, kNames, g), ParseStatus::Ok) << g.errorText();
  EXPECT_EQ(g.items[2].p[2], static_cast<float>(f.items[2].p[2]));
}

TEST(Ktp, JsonRoundTripIsExactAndNamesResolve) {
  const KtpFrame f = poseFrame();
  std::string text;
  encodeKtpJson(f, kNames, text);
  EXPECT_EQ(text.rfind(R"({"type":"poses","version":1,"seq":16909060,"time":12.345678901234,"segments":[)", 0), 0U)
      << text;
  EXPECT_NE(text.find(R"({"name":"T8","p":[0,-0.5,1],"q":[)"), std::string::npos) << text;
  KtpFrame g;
  ASSERT_EQ(parseKtp(bytesOf(text), KtpKind::Poses, kNames, g), ParseStatus::Ok) << g.errorText();
  EXPECT_EQ(g.seq, f.seq);
  EXPECT_EQ(g.time, f.time);
  ASSERT_EQ(g.count, f.count);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(g.items[i].index, f.items[i].index);
    EXPECT_EQ(g.items[i].p, f.items[i].p);  // doubles, exactly
    EXPECT_EQ(g.items[i].q, f.items[i].q);
  }
  const std::string markers =
      R"( {"type":"markers","version":1,"seq":0,"time":0,"markers":[{"name":"L3","p":[1,2,3]}]})";
  ASSERT_EQ(parseKtp(bytesOf(markers), KtpKind::Markers, kNames, g), ParseStatus::Ok) << g.errorText();
  EXPECT_EQ(g.count, 1);
  EXPECT_EQ(g.items[0].index, 2);
  // An empty frame is a frame (every item missing).
  const std::string empty = R"({"type":"markers","version":1,"seq":1,"time":0.5,"markers":[]})";
  EXPECT_EQ(parseKtp(bytesOf(empty), KtpKind::Markers, kNames, g), ParseStatus::Ok);
  EXPECT_EQ(g.count, 0);
}

struct Case {
  std::string text;
  ParseStatus status;
  std::string reason;  ///< a substring of the reason
};

TEST(Ktp, JsonFaultsAreClassifiedWithTheirField) {
  const std::string ok_item = R"({"name":"Pelvis","p":[0,0,1],"q":[1,0,0,0]})";
  auto msg = [&](const std::string& fields, const std::string& items) {
    return "{" + fields + R"(,"segments":[)" + items + "]}";
  };
  const std::string head = R"("type":"poses","version":1,"seq":3,"time":0.1)";
  const std::vector<Case> cases{
      {"{", ParseStatus::Malformed, "not JSON"},
      {"[1,2]", ParseStatus::Malformed, "neither"},
      {"{} x", ParseStatus::Malformed, "not JSON"},
      {msg(head + R"(,"extra":1)", ok_item), ParseStatus::Malformed, "unknown field 'extra'"},
      {msg(R"("type":"pin","version":1,"seq":3,"time":0.1)", ok_item), ParseStatus::Malformed, "'type'"},
      {msg(R"("version":1,"seq":3,"time":0.1)", ok_item), ParseStatus::Malformed, "'type'"},
      {msg(R"("type":"poses","version":2,"seq":3,"time":0.1)", ok_item), ParseStatus::Unsupported, "version 2"},
      {msg(R"("type":"poses","version":"1","seq":3,"time":0.1)", ok_item), ParseStatus::Malformed, "'version'"},
      {msg(R"("type":"poses","version":1,"seq":-1,"time":0.1)", ok_item), ParseStatus::Malformed, "'seq'"},
      {msg(R"("type":"poses","version":1,"seq":4294967296,"time":0.1)", ok_item), ParseStatus::Malformed, "'seq'"},
      {msg(R"("type":"poses","version":1,"seq":1.5,"time":0.1)", ok_item), ParseStatus::Malformed, "'seq'"},
      {msg(R"("type":"poses","version":1,"seq":3,"time":-1)", ok_item), ParseStatus::Malformed, "'time'"},
      {msg(R"("type":"poses","version":1,"seq":3)", ok_item), ParseStatus::Malformed, "'time'"},
      {R"({"type":"markers","version":1,"seq":3,"time":0.1,"markers":[]})", ParseStatus::Unsupported, "markers"},
      {R"({"type":"poses","version":1,"seq":3,"time":0.1,"segments":{}})", ParseStatus::Malformed, "'segments'"},
      {R"({"type":"poses","version":1,"seq":3,"time":0.1,"segments":[],"markers":[]})", ParseStatus::Malformed,
       "'markers' in a poses message"},
      {msg(head, "1"), ParseStatus::Malformed, "segments[0]: expected an object"},
      {msg(head, ok_item + R"(,{"name":"Head","p":[0,0,1],"q":[1,0,0,0]})"), ParseStatus::Malformed,
       "segments[1]: unknown name 'Head'"},
      {msg(head, ok_item + "," + ok_item), ParseStatus::Malformed, "segments[1]: index 0 given twice"},
      {msg(head, R"({"p":[0,0,1],"q":[1,0,0,0]})"), ParseStatus::Malformed, "segments[0]: 'name'"},
      {msg(head, R"({"name":"L5","p":[0,1],"q":[1,0,0,0]})"), ParseStatus::Malformed, "segments[0].p"},
      {msg(head, R"({"name":"L5","p":[0,"1",2],"q":[1,0,0,0]})"), ParseStatus::Malformed, "segments[0].p"},
      {msg(head, R"({"name":"L5","p":[0,1,2]})"), ParseStatus::Malformed, "segments[0].q"},
      {msg(head, R"({"name":"L5","p":[0,1,2],"q":[2,0,0,0]})"), ParseStatus::Malformed,
       "segments[0].q: squared norm 4"},
      {msg(head, R"({"name":"L5","p":[0,1e999,2],"q":[1,0,0,0]})"), ParseStatus::Malformed, "not JSON"},
      {msg(head, R"({"name":"L5","p":[0,1,2],"q":[1,0,0,0],"v":1})"), ParseStatus::Malformed,
       "segments[0]: unknown field 'v'"},
      {"  {" + head + R"(,"segments":[)" + std::string(70000, ' ') + "]}", ParseStatus::Oversized, "JSON"},
      {"", ParseStatus::Malformed, "neither"},
      {msg(head, ok_item) + std::string(16, '\0'), ParseStatus::Malformed, "a NUL byte at offset"},
      {"KT", ParseStatus::Truncated, "header"},
  };
  for (const Case& c : cases) {
    KtpFrame g;
    EXPECT_EQ(parseKtp(bytesOf(c.text), KtpKind::Poses, kNames, g), c.status) << c.text.substr(0, 120);
    EXPECT_NE(std::string(g.errorText()).find(c.reason), std::string::npos)
        << c.text.substr(0, 120) << " → " << g.errorText();
    EXPECT_EQ(g.count, 0);
  }
}

TEST(Ktp, BinaryFaultsAreClassifiedWithTheirField) {
  const std::vector<std::uint8_t> good = encode(poseFrame());
  auto check = [&](std::vector<std::uint8_t> b, ParseStatus status, const std::string& reason) {
    KtpFrame g;
    EXPECT_EQ(parseKtp(b, KtpKind::Poses, kNames, g), status) << reason;
    EXPECT_NE(std::string(g.errorText()).find(reason), std::string::npos) << g.errorText();
  };
  auto with = [&](std::size_t at, std::uint8_t v) {
    auto b = good;
    b[at] = v;
    return b;
  };
  auto cut = good;
  cut.resize(good.size() - 1);
  check(cut, ParseStatus::Truncated, "announces 3 records");
  auto longer = good;
  longer.push_back(0);
  check(longer, ParseStatus::Oversized, "announces 3 records");
  check(std::vector<std::uint8_t>(good.begin(), good.begin() + 10), ParseStatus::Truncated, "header");
  check(std::vector<std::uint8_t>(kKtpMaxBinary + 1, 0), ParseStatus::Malformed, "neither");
  auto huge = good;
  huge.resize(kKtpMaxBinary + 1);
  check(huge, ParseStatus::Oversized, "largest");
  check(with(4, 2), ParseStatus::Unsupported, "version 2");
  check(with(5, 7), ParseStatus::Malformed, "kind 7");
  check(with(5, 2), ParseStatus::Unsupported, "a markers message");
  check(with(13, 1), ParseStatus::Malformed, "reserved header");
  check(with(7, 0x10), ParseStatus::Malformed, "count 4099");
  check(with(24 + 32 + 2, 1), ParseStatus::Malformed, "segments[1]: reserved");
  check(with(24, 9), ParseStatus::Malformed, "segments[0]: index 9 outside");
  check(with(24 + 32, 4), ParseStatus::Malformed, "segments[1]: index 4 given twice");
  auto nan = good;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + 24 + 8, &q, 4);
  check(nan, ParseStatus::Malformed, "segments[0].p: not finite");
  auto unnormalised = good;
  const float two = 2.0F;
  std::memcpy(unnormalised.data() + 24 + 16, &two, 4);
  check(unnormalised, ParseStatus::Malformed, "segments[0].q");
  auto bad_time = good;
  const double minus = -1.0;
  std::memcpy(bad_time.data() + 16, &minus, 8);
  check(bad_time, ParseStatus::Malformed, "time -1");
}

TEST(Ktp, EveryTruncationAndRandomMutationsAreClassifiedNeverCrash) {
  const std::vector<std::uint8_t> good = encode(poseFrame());
  KtpFrame g;
  for (std::size_t n = 0; n < good.size(); ++n) {
    const ParseStatus s = parseKtp(std::span(good.data(), n), KtpKind::Poses, kNames, g);
    EXPECT_EQ(s, n == 0 ? ParseStatus::Malformed : ParseStatus::Truncated) << n;
  }
  std::string json;
  encodeKtpJson(poseFrame(), kNames, json);
  std::mt19937 rng(17);
  int ok = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const bool binary = trial % 2 == 0;
    std::vector<std::uint8_t> b = binary ? good : std::vector<std::uint8_t>(json.begin(), json.end());
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    if (rng() % 4 == 0) b.resize(rng() % (b.size() + 1));
    const ParseStatus s = parseKtp(b, KtpKind::Poses, kNames, g);
    if (s == ParseStatus::Ok) {
      ++ok;
      for (int i = 0; i < g.count; ++i) {
        EXPECT_LT(g.items[static_cast<std::size_t>(i)].index, static_cast<int>(kNames.size()));
        double n2 = 0.0;
        for (double v : g.items[static_cast<std::size_t>(i)].q) n2 += v * v;
        EXPECT_NEAR(n2, 1.0, 1e-3);
      }
    } else {
      EXPECT_GT(std::strlen(g.errorText()), 0U);
    }
  }
  EXPECT_GT(ok, 0);  // some flips land in the float payloads and stay valid
}

// -- live tracking ---------------------------------------------------------------------------

io::ModelSpec modelSpec(const std::string& name) {
  io::ModelSpec spec;
  spec.model = name;
  return spec;
}

/// Clip frame f as a KTP poses frame (index k = clip segment k), time k / rate.
void clipFrameKtp(const io::MotionClip& clip, int f, double rate, KtpFrame& out) {
  MxtpPoseDatagram d;
  clipFrameDatagram(clip, f, rate, d);
  out.kind = KtpKind::Poses;
  out.seq = static_cast<std::uint32_t>(f);
  out.time = d.header.time_ms * 1e-3;
  out.count = d.count;
  for (int i = 0; i < d.count; ++i) {
    const auto& s = d.segments[static_cast<std::size_t>(i)];
    KtpItem& it = out.items[static_cast<std::size_t>(i)];
    it.index = s.id - 1;
    for (std::size_t k = 0; k < 3; ++k) it.p[k] = s.position[k];
    for (std::size_t k = 0; k < 4; ++k) it.q[k] = s.quaternion[k];
  }
}

TEST(LiveTrackerKtp, PosesInBinaryAndJsonTrackExactlyAsMxtp) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const track::Capture capture = track::loadCapture(path);
  const track::TrackSetup setup = track::setupOnModel(io::loadModel(modelSpec("human66")).model, capture, "");
  const io::MotionClip& clip = capture.clip;
  LiveTracker mxtp(setup, clip.segment_names, {}, 60.0), bin(setup, clip.segment_names, {}, 60.0),
      json(setup, clip.segment_names, {}, 60.0);
  MxtpPoseDatagram d;
  std::vector<std::uint8_t> buf(kMxtpMaxDatagram);
  auto f = std::make_unique<KtpFrame>();
  std::string text;
  for (int k = 0; k < clip.numFrames(); ++k) {
    clipFrameDatagram(clip, k, 60.0, d);
    ASSERT_EQ(mxtp.onDatagram(std::span(buf.data(), encodeMxtp(d, buf))), DatagramResult::Tracked);
    clipFrameKtp(clip, k, 60.0, *f);
    ASSERT_EQ(bin.onDatagram(encode(*f)), DatagramResult::Tracked) << bin.lastError();
    encodeKtpJson(*f, clip.segment_names, text);
    ASSERT_EQ(json.onDatagram(bytesOf(text)), DatagramResult::Tracked) << json.lastError();
    // The same float32 poses and millisecond times: bit-identical states.
    ASSERT_EQ(bin.state().joints, mxtp.state().joints) << k;
    ASSERT_EQ(json.state().joints, mxtp.state().joints) << k;
    EXPECT_EQ(bin.sequence(), static_cast<std::uint32_t>(k));
  }
  // Wrong kind and MXTP-looking garbage are counted, not tracked; the hello names the input.
  KtpFrame m = *f;
  m.kind = KtpKind::Markers;
  EXPECT_EQ(bin.onDatagram(encode(m)), DatagramResult::Rejected);
  EXPECT_EQ(bin.counters().unsupported.load(), 1);
  EXPECT_EQ(bin.onDatagram(encode(*f)), DatagramResult::Duplicate);
  const std::string hello = bin.hello("human66");
  EXPECT_NE(hello.find(R"("input":{"kind":"poses","ktp_version":1,"names":["Pelvis",)"), std::string::npos) << hello;
  EXPECT_NE(hello.find(R"("protocols":["mxtp","ktp"])"), std::string::npos) << hello;
}

TEST(LiveTrackerKtp, BinaryPathDoesNotAllocate) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const track::Capture capture = track::loadCapture(path);
  const track::TrackSetup setup = track::setupOnModel(io::loadModel(modelSpec("human66")).model, capture, "");
  const io::MotionClip& clip = capture.clip;
  LiveTracker live(setup, clip.segment_names, {}, 60.0);
  std::vector<std::vector<std::uint8_t>> messages;
  auto f = std::make_unique<KtpFrame>();
  for (int k = 0; k < clip.numFrames(); ++k) {
    clipFrameKtp(clip, k, 60.0, *f);
    messages.push_back(encode(*f));
  }
  std::string msg;
  msg.reserve(live.frameCapacity());
  for (std::size_t k = 0; k < 5; ++k) live.onDatagram(messages[k]);
  const std::vector<std::uint8_t> bad(messages[5].begin(), messages[5].begin() + 30);
  long allocations = 0;
  {
    const testing::AllocationCounter guard;
    for (std::size_t k = 5; k < messages.size(); ++k) {
      live.onDatagram(messages[k]);
      live.onDatagram(bad);
      live.encodeFrame(1.0, msg);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(live.counters().truncated.load(), static_cast<long>(messages.size()) - 5);
}

/// The Plug-in Gait problem of `kinetrack markers ik --model human66 --markerset human66_plugin_gait`
/// (no static calibration) on the shared Vicon trial.
struct MarkerFixture {
  io::MarkerTrajectories trial;
  track::MarkerIkSpec spec;
  explicit MarkerFixture(const std::string& path) {
    trial = io::readMarkerTrial(path, false);
    auto model = std::make_shared<const Model>(io::loadModel(modelSpec("human66")).model);
    spec = track::markerIkSpec(
        subject::markerSetProblem(model, io::builtinMarkerSet("human66_plugin_gait"), nullptr, &trial).model);
  }
  /// Trial frame k as a KTP markers frame over the spec's markers (missing ones left out).
  void frame(int k, KtpFrame& f) const {
    f.kind = KtpKind::Markers;
    f.seq = static_cast<std::uint32_t>(k);
    f.time = io::trialTimes(trial)[static_cast<std::size_t>(k)];
    f.count = 0;
    for (std::size_t i = 0; i < spec.markers.size(); ++i) {
      const int c = static_cast<int>(std::find(trial.names.begin(), trial.names.end(), spec.markers[i].name) -
                                     trial.names.begin());
      const Vector3d p = trial.position(k, c);
      if (!p.allFinite()) continue;
      KtpItem& it = f.items[static_cast<std::size_t>(f.count++)];
      it.index = static_cast<int>(i);
      it.p = {p.x(), p.y(), p.z()};
    }
  }
};

TEST(MarkerLiveTracker, MatchesFileMarkerIkOnTheViconTrial) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Movement_trial.c3d");
  const MarkerFixture fx(path);
  const int frames = 120;
  track::MarkerTrialOptions opt;
  opt.time_end = io::trialTimes(fx.trial)[frames - 1];
  const track::MarkerTrialResult file = track::solveMarkerTrial(fx.spec, fx.trial, opt);
  ASSERT_EQ(static_cast<int>(file.frames.size()), frames);
  MarkerLiveTracker bin(fx.spec, 120.0), json(fx.spec, 120.0);
  auto f = std::make_unique<KtpFrame>();
  std::string text;
  double worst_bin = 0.0, worst_rms = 0.0;
  for (int k = 0; k < frames; ++k) {
    fx.frame(k, *f);
    // JSON carries the doubles exactly: the same solution as the file, to the last bit.
    encodeKtpJson(*f, json.markerNames(), text);
    ASSERT_EQ(json.onDatagram(bytesOf(text)), DatagramResult::Tracked) << json.lastError();
    ASSERT_EQ(json.state().joints, file.configurations[static_cast<std::size_t>(k)].joints) << k;
    EXPECT_NEAR(json.lastFrame().rms_error, file.frames[static_cast<std::size_t>(k)].rms_error, 1e-12);
    // Binary rounds the markers to float32 (≤ 0.1 µm at 2 m). The fit is as good; the joints of
    // the spine's ill-conditioned directions stop at another iterate within the solver's tolerances.
    ASSERT_EQ(bin.onDatagram(encode(*f)), DatagramResult::Tracked) << bin.lastError();
    worst_rms =
        std::max(worst_rms, std::abs(bin.lastFrame().rms_error - file.frames[static_cast<std::size_t>(k)].rms_error));
    worst_bin =
        std::max(worst_bin,
                 (bin.state().joints - file.configurations[static_cast<std::size_t>(k)].joints).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst_rms, 1e-5) << "largest marker RMS difference (m)";
  EXPECT_LT(worst_bin, 0.01) << "largest joint difference (rad)";
  std::printf("binary KTP markers vs file marker IK: marker RMS within %.2g m, joints within %.2g rad\n", worst_rms,
              worst_bin);
  EXPECT_EQ(bin.counters().frames.load(), frames);
  // The frame message names the measured markers as targets; a frame without markers is a gap.
  std::string msg;
  bin.encodeFrame(1.0, msg);
  EXPECT_NE(msg.find(R"({"link":"LASI","p":[)"), std::string::npos);
  KtpFrame empty;
  empty.kind = KtpKind::Markers;
  empty.seq = frames;
  empty.time = 100.0;
  const Configuration before = bin.state();
  EXPECT_EQ(bin.onDatagram(encode(empty)), DatagramResult::Gap);
  EXPECT_EQ(std::string(bin.status()), "gap");
  EXPECT_EQ(bin.state().joints, before.joints);
  // Segment poses (either protocol) are not for a marker server.
  EXPECT_EQ(bin.onDatagram(encode(poseFrame())), DatagramResult::Rejected);
  EXPECT_EQ(bin.counters().unsupported.load(), 1);
  EXPECT_NE(bin.hello("human66").find(R"("kind":"markers")"), std::string::npos);
}

TEST(MarkerLiveTracker, BinaryPathDoesNotAllocateAfterTheFirstFrame) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Movement_trial.c3d");
  const MarkerFixture fx(path);
  MarkerLiveTracker live(fx.spec, 120.0);
  std::vector<std::vector<std::uint8_t>> messages;
  auto f = std::make_unique<KtpFrame>();
  for (int k = 0; k < 40; ++k) {
    fx.frame(k, *f);
    messages.push_back(encode(*f));
  }
  std::string msg;
  msg.reserve(live.frameCapacity());
  for (std::size_t k = 0; k < 3; ++k) live.onDatagram(messages[k]);
  long allocations = 0;
  {
    const testing::AllocationCounter guard;
    for (std::size_t k = 3; k < messages.size(); ++k) {
      live.onDatagram(messages[k]);
      live.encodeFrame(1.0, msg);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(live.counters().frames.load(), 40);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
