// `kinetrack serve --retarget` onto a humanoid (issue 38): the live tracker on the plan of
// `kinetrack retarget` (app::prepareRetarget: on the ground, soles held while the person's feet
// are down, collision rows), its contacts found as the frames arrive. It reproduces the file
// tracker given the same causal contacts, keeps the quality figures of the file job, and its
// per-datagram path does not allocate.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kinetrack/app/serve_job.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/track/foot_contact.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget_quality.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {

struct G1Live {
  track::Capture capture;
  app::RetargetJob job;
  track::TrackSetup setup;
  double rate = 0.0;
  explicit G1Live(const std::string& mvnx, const std::string& robot) {
    capture = track::loadCapture(mvnx);
    app::RetargetOptions o;
    o.robot = robot;
    job = app::prepareRetarget(o, {}, nullptr, &capture);
    setup.model = *job.model;
    setup.plan = job.plan;
    rate = 1.0 / track::meanFrameInterval(capture.clip);
    // The stream's clock: k / rate in whole milliseconds (MXTP time codes).
    for (int f = 0; f < capture.clip.numFrames(); ++f)
      capture.clip.times[static_cast<std::size_t>(f)] = std::llround(f * 1e3 / rate) * 1e-3;
  }
  [[nodiscard]] std::vector<std::vector<std::uint8_t>> datagrams() const {
    std::vector<std::vector<std::uint8_t>> out;
    MxtpPoseDatagram d;
    std::vector<std::uint8_t> buf(kMxtpMaxDatagram);
    for (int f = 0; f < capture.clip.numFrames(); ++f) {
      clipFrameDatagram(capture.clip, f, rate, d);
      const std::size_t n = encodeMxtp(d, buf);
      out.emplace_back(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    }
    return out;
  }
};

TEST(LiveRetarget, G1OnTheGroundMatchesTheFileJobWithTheSameContacts) {
  KINETRACK_REQUIRE_SHARED(mvnx, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  const G1Live g1(mvnx, urdf);
  ASSERT_TRUE(g1.setup.plan.soles.has_value());
  ASSERT_TRUE(g1.job.tracker.dynamical.collision.ground.enabled);
  const io::MotionClip& clip = g1.capture.clip;
  const int n = clip.numFrames();

  LiveTracker live(g1.setup, clip.segment_names, g1.job.tracker, g1.rate);
  std::vector<Configuration> live_q;
  track::FootContacts causal = g1.setup.plan.soles->contacts;
  const std::size_t feet = causal.feet.size();
  ASSERT_EQ(feet, 2U);
  int frames = 0;
  for (const auto& d : g1.datagrams()) {
    ASSERT_EQ(live.onDatagram(d), DatagramResult::Tracked);
    live_q.push_back(live.state());
    ASSERT_EQ(live.footContacts().size(), feet);
    for (std::size_t k = 0; k < feet; ++k)
      causal.contact[static_cast<std::size_t>(frames) * feet + k] = live.footContacts()[k];
    ++frames;
  }
  ASSERT_EQ(frames, n);

  // The causal contacts agree with the file job's (central-difference speeds, short contacts
  // dropped) but at a few frames around touchdown and lift-off.
  int differ = 0, down = 0;
  for (std::size_t i = 0; i < causal.contact.size(); ++i) {
    differ += causal.contact[i] != g1.setup.plan.soles->contacts.contact[i] ? 1 : 0;
    down += causal.contact[i];
  }
  EXPECT_GT(down, n / 2) << "the person stands or walks: feet down most of the time";
  EXPECT_LE(differ, n / 10) << "frames × feet whose causal contact differs from the file job's";

  // The file tracker given the live run's contacts: only the float32 rounding of MXTP between them.
  track::Retargeting plan = g1.setup.plan;
  plan.soles->contacts = causal;
  std::vector<Configuration> file_q;
  track::runTracking(g1.setup.model, g1.capture, plan, g1.job.tracker,
                     [&](int, const Configuration& q, const track::FrameOutcome&) { file_q.push_back(q); });
  ASSERT_EQ(file_q.size(), live_q.size());
  double worst = 0.0, base = 0.0;
  for (std::size_t f = 0; f < file_q.size(); ++f) {
    worst = std::max(worst, (live_q[f].joints - file_q[f].joints).cwiseAbs().maxCoeff());
    base = std::max(base, (live_q[f].base_position - file_q[f].base_position).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-3) << "largest joint difference (rad)";
  EXPECT_LT(base, 1e-4) << "largest base position difference (m)";

  // Measured against the file job's contacts, the live robot stands and holds its soles as well.
  track::RetargetQualityOptions qo;
  qo.surface = g1.job.surface;
  qo.proxies = g1.job.proxies;
  qo.self_collision = g1.job.tracker.dynamical.collision.self;
  qo.soles = g1.job.soles;
  const track::RetargetQuality q =
      track::assessRetargeting(g1.setup.model, clip, g1.job.pairs.pairs, live_q, g1.job.contacts, {}, qo);
  EXPECT_LE(q.below_ground_mm, 5.0);
  EXPECT_LE(q.slide_p95_mm, 2.0);
  EXPECT_LE(q.limit_excess, 1e-9);
  EXPECT_LE(q.velocity_limit_excess, 1e-6);
}

TEST(LiveRetarget, G1PerDatagramPathDoesNotAllocate) {
  KINETRACK_REQUIRE_SHARED(mvnx, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  const G1Live g1(mvnx, urdf);
  LiveTracker live(g1.setup, g1.capture.clip.segment_names, g1.job.tracker, g1.rate);
  const auto datagrams = g1.datagrams();
  std::string msg;
  msg.reserve(live.frameCapacity());
  for (std::size_t f = 0; f < 5; ++f) {  // warm-up: first frame, solver and row workspaces
    live.onDatagram(datagrams[f]);
    live.encodeFrame(10.0, msg);
  }
  long allocations = 0;
  {
    const testing::AllocationCounter guard;
    for (std::size_t f = 5; f < datagrams.size(); ++f) {
      live.onDatagram(datagrams[f]);
      live.encodeFrame(10.0, msg);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(live.counters().frames.load(), static_cast<long>(datagrams.size()));
}

// `kinetrack serve --retarget --model g1.xml --layout capture.mvnx` builds this tracker: the
// robot with its sole frames and collision rows, refused without a layout.
TEST(LiveRetarget, ServeSetsUpTheRetargetJob) {
  KINETRACK_REQUIRE_SHARED(mvnx, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(mjcf, "models/unitree/g1/g1_29dof.xml");
  app::ServeOptions o;
  o.model.model = mjcf;
  o.layout = mvnx;
  o.retarget = true;
  o.quiet = true;
  o.server.ws_port = 0;
  o.server.udp_port = 0;
  const auto server = app::makeServer(o);
  ASSERT_NE(server, nullptr);
  o.layout.clear();
  EXPECT_THROW(app::makeServer(o), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
