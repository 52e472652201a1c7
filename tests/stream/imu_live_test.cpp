// Live IMU tracking (stream::ImuLiveTracker, `kinetrack serve --imus`): the OpenSense walk sent as
// KTP poses messages (one quaternion per IMU) is tracked exactly as `kinetrack imu ik` tracks the
// file (JSON carries the doubles exactly; binary rounds them to float32), a message without IMUs
// holds the pose, marker messages are refused, the binary path does not allocate, and
// app::makeServer builds the IMU server from the calibrated .osim.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kinetrack/app/imu_job.hpp"
#include "kinetrack/app/serve_job.hpp"
#include "kinetrack/io/model/opensense_setup.hpp"
#include "kinetrack/io/table/orientation_table.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/stream/server.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {

std::span<const std::uint8_t> bytesOf(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::vector<std::uint8_t> encodeBinary(const KtpFrame& f) {
  std::vector<std::uint8_t> b(kKtpMaxBinary);
  b.resize(encodeKtp(f, b));
  return b;
}

struct ImuFixture {
  std::string dir = testing::sharedFile("data/opensim/opensense_imu_walk");
  app::ImuPlaceResult placed;
  io::ImuIkSetup setup;
  io::OrientationTable walk;
  track::ImuIkSpec spec;
  explicit ImuFixture(const std::string& out = "") {
    app::ImuPlaceOptions po;
    po.setup = dir + "/imuPlacer_Setup.xml";
    po.model = dir + "/Rajagopal2015_opensense.osim";
    po.out = out;
    po.setup_output = !out.empty();
    placed = app::runImuPlace(po);
    setup = io::readImuIkSetup(dir + "/imuInverseKinematics_Setup.xml");
    walk = io::readOrientationTable(setup.resolve(setup.orientations_file));
    spec = track::imuIkSpec(placed.model, walk.names);
    spec.data_rotation = io::sensorToOpenSimRotation(setup.sensor_to_opensim_rotations);
    spec.options.accuracy = setup.accuracy;
  }
  // Row k of the walk as a KTP poses message (index i: spec sensor i).
  void frame(int k, KtpFrame& f) const {
    f.kind = KtpKind::Poses;
    f.seq = static_cast<std::uint32_t>(k);
    f.time = walk.times[static_cast<std::size_t>(k)];
    f.count = 0;
    for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
      const Eigen::Quaterniond& q = walk.orientation(k, walk.find(spec.sensors[i].name));
      f.items[static_cast<std::size_t>(f.count++)] = {
          static_cast<int>(i), {0.0, 0.0, 0.0}, {q.w(), q.x(), q.y(), q.z()}};
    }
  }
};

TEST(ImuLiveTracker, MatchesTheFileTrackingOfTheOpenSenseWalk) {
  KINETRACK_REQUIRE_SHARED(dir, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const ImuFixture fx;
  track::ImuTrialOptions to;
  to.time_start = 10.5;
  to.time_end = 11.5;
  const track::ImuTrialResult file = track::solveImuTrial(fx.spec, fx.walk, to);
  const int first = static_cast<int>(std::lower_bound(fx.walk.times.begin(), fx.walk.times.end(), 10.5 - 1e-9) -
                                     fx.walk.times.begin());
  ImuLiveTracker json(fx.spec, 100.0), bin(fx.spec, 100.0);
  auto f = std::make_unique<KtpFrame>();
  std::string text;
  double worst_bin = 0.0;
  for (std::size_t k = 0; k < file.frames.size(); ++k) {
    fx.frame(first + static_cast<int>(k), *f);
    encodeKtpJson(*f, json.imuNames(), text);
    ASSERT_EQ(json.onDatagram(bytesOf(text)), DatagramResult::Tracked) << json.lastError();
    ASSERT_EQ(json.state().joints, file.configurations[k].joints) << k;
    EXPECT_NEAR(json.lastFrame().rms_error, file.frames[k].rms_error, 1e-12);
    ASSERT_EQ(bin.onDatagram(encodeBinary(*f)), DatagramResult::Tracked) << bin.lastError();
    worst_bin = std::max(worst_bin, (bin.state().joints - file.configurations[k].joints).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst_bin, 1e-4) << "float32 quaternions: joints within 1e-4 rad of the file's";
  EXPECT_NE(json.hello("imus").find(R"("kind":"poses")"), std::string::npos);
  EXPECT_NE(json.hello("imus").find("pelvis_imu"), std::string::npos);
  std::string msg;
  bin.encodeFrame(1.0, msg);
  EXPECT_NE(msg.find(R"({"link":"pelvis_imu","p":[)"), std::string::npos);
  // A message without IMUs holds the pose; markers are not for this server.
  KtpFrame empty;
  empty.kind = KtpKind::Poses;
  empty.seq = 100000;
  empty.time = 100.0;
  const Configuration before = bin.state();
  EXPECT_EQ(bin.onDatagram(encodeBinary(empty)), DatagramResult::Gap);
  EXPECT_EQ(bin.state().joints, before.joints);
  KtpFrame markers;
  markers.kind = KtpKind::Markers;
  markers.seq = 100001;
  markers.time = 101.0;
  EXPECT_EQ(bin.onDatagram(encodeBinary(markers)), DatagramResult::Rejected);
}

TEST(ImuLiveTracker, BinaryPathDoesNotAllocateAfterTheFirstFrame) {
  KINETRACK_REQUIRE_SHARED(dir, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const ImuFixture fx;
  ImuLiveTracker live(fx.spec, 100.0);
  std::vector<std::vector<std::uint8_t>> messages;
  auto f = std::make_unique<KtpFrame>();
  for (int k = 1050; k < 1100; ++k) {
    fx.frame(k, *f);
    if (k % 7 == 0) f->count = 5;  // three IMUs missing now and then
    messages.push_back(encodeBinary(*f));
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
  EXPECT_EQ(live.counters().frames.load(), 50);
}

TEST(ImuLiveTracker, ServeBuildsTheImuServerFromTheCalibratedModel) {
  KINETRACK_REQUIRE_SHARED(dir, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const std::string out = (std::filesystem::temp_directory_path() / "kinetrack_imu_live_calibrated.osim").string();
  const ImuFixture fx(out);
  app::ServeOptions o;
  o.model.model = out;
  o.imus = true;
  o.imu_setup = fx.dir + "/imuInverseKinematics_Setup.xml";
  o.quiet = true;
  o.server.ws_port = 0;
  o.server.udp_port = 0;
  EXPECT_NO_THROW((void)app::makeServer(o));
  o.markerset = "human66_plugin_gait";
  EXPECT_THROW((void)app::makeServer(o), InvalidArgument);
  o.markerset.clear();
  o.model.model = fx.dir + "/Rajagopal2015_opensense.osim";  // not calibrated: no IMU frames
  EXPECT_THROW((void)app::makeServer(o), InvalidArgument);
  std::filesystem::remove(out);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
