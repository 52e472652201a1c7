// The IMUs' own orientations of an Xsens MVNX export (io::mvnxSensorTable, issue 41): read as an
// OpenSense orientation table with OpenSense's column names, usable by `kinetrack imu place` and
// `imu ik` directly; a <sensorOrientation> of the wrong size names the frame.
#include <gtest/gtest.h>

#include <string>

#include "kinetrack/app/imu_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

TEST(MvnxSensors, ReadAsAnOpenSenseTable) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const io::MvnxFile f = io::readMvnx(path);
  ASSERT_EQ(f.sensors.size(), 11U);
  const io::OrientationTable t = io::readImuOrientations(path);
  EXPECT_EQ(t.names[0], "pelvis_imu");
  EXPECT_EQ(t.names[1], "torso_imu");
  EXPECT_EQ(t.names[2], "Head");  // no OpenSim body: its label kept
  EXPECT_EQ(t.names[4], "humerus_r_imu");
  EXPECT_EQ(t.numFrames(), static_cast<int>(f.frames.size()));
  EXPECT_EQ(t.data_rate, f.frame_rate);
  int valid = 0;
  for (int k = 0; k < t.numFrames(); ++k)
    for (int i = 0; i < t.numSensors(); ++i)
      if (t.isValid(k, i)) {
        ++valid;
        EXPECT_NEAR(t.orientation(k, i).norm(), 1.0, 1e-12);
      }
  EXPECT_EQ(valid, t.numFrames() * t.numSensors());
  // The file's first sensor quaternion of the first normal frame, as written.
  EXPECT_NEAR(t.orientation(0, 0).w(), f.frames[0].sensor_orientation[0][0], 1e-6);
}

TEST(MvnxSensors, PlacedAndTrackedOnTheOpenSenseModel) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/opensense_imu_walk/Rajagopal2015_opensense.osim");
  app::ImuPlaceOptions po;
  po.model = osim;
  po.orientations = path;
  po.sensor_to_opensim_rotations = Vector3d(-M_PI / 2, 0, 0);
  po.base_imu = "pelvis_imu";
  po.base_heading_axis = "x";  // an Xsens sensor's x points forward on the pelvis
  po.setup_output = false;
  std::vector<std::string> warnings;
  app::Reporter reporter;
  reporter.warning = [&](const std::string& w) { warnings.push_back(w); };
  const app::ImuPlaceResult placed = app::runImuPlace(po, reporter);
  EXPECT_EQ(placed.placement.frames.size(), 8U);  // pelvis, torso, both humerus, radius and hand
  bool head_warned = false;
  for (const std::string& w : warnings) head_warned |= w.find("'Head'") != std::string::npos;
  EXPECT_TRUE(head_warned);
  app::ImuIkOptions io;
  io.orientations = path;
  io.sensor_to_opensim_rotations = Vector3d(-M_PI / 2, 0, 0);
  io.setup_output = false;
  const app::ImuIkResult r = app::runImuIk(io, {}, &placed.model);
  EXPECT_EQ(r.summary.frames, static_cast<int>(io::readMvnx(path).frames.size()));
  EXPECT_EQ(r.summary.failed_frames, 0);
  EXPECT_EQ(r.summary.sensors, 8);
}

TEST(MvnxSensors, AWrongCountNamesTheFrame) {
  const std::string xml =
      "<mvnx version=\"4\"><subject frameRate=\"60\"><segments><segment label=\"Pelvis\" id=\"1\"/></segments>"
      "<sensors><sensor label=\"Pelvis\"/></sensors><frames><frame time=\"0\" index=\"0\" type=\"normal\">"
      "<orientation>1 0 0 0</orientation><position>0 0 1</position>\n<sensorOrientation>1 0 0</sensorOrientation>"
      "</frame></frames></subject></mvnx>";
  try {
    (void)io::parseMvnx(xml, "s.mvnx");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("s.mvnx:2"), std::string::npos) << m;
    EXPECT_NE(m.find("sensorOrientation"), std::string::npos) << m;
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
