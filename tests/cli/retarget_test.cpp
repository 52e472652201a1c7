// End-to-end tests of `kinetrack retarget` (issue 5): human capture onto the iCub URDF, one row per
// input frame with the URDF's joint names, the Fig. 3 plot, bad input → exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "testing/robot_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_retarget_") {}
};

const fs::path kScript = fs::path(kinetrack::testing::sourceDir()) / "scripts" / "plot_retarget.py";

// An OpenSim model lives in a Y-up world: retargeting turns the clip onto it (model_up), so the
// gait2354 hips follow a walk instead of sitting at their ±120° limits.
TEST(CliRetarget, BvhOntoOpenSimGait2354) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/cmu_iclone/cmu_ic_007_12.bvh");
  ScratchDir dir;
  const std::string out = dir.file("gait.csv");
  const RunResult r = kinetrack::testing::runCli(
      {"retarget", "--robot", osim, "--map", "gait2354", "--input", bvh, "--out", out, "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(t.numFrames(), 132);
  const auto at = [&](const std::string& n) {
    return static_cast<Eigen::Index>(std::find(t.joint_names.begin(), t.joint_names.end(), n) - t.joint_names.begin());
  };
  ASSERT_LT(at("hip_adduction_r"), t.numJoints());
  EXPECT_LT(t.joints.col(at("hip_adduction_r")).cwiseAbs().maxCoeff(), 0.4);  // rad
  EXPECT_LT(t.joints.col(at("hip_flexion_r")).maxCoeff(), 1.0);
  EXPECT_LT(t.joints.col(at("knee_angle_r")).minCoeff(), -0.8);  // the knee flexes in swing
}

TEST(CliRetarget, BvhOntoTheIcubWithThePlot) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  ScratchDir dir;
  const std::string out = dir.file("icub.csv"), png = dir.file("fig3.png");
  const RunResult r = kinetrack::testing::runCli({"retarget", "--robot", urdf, "--input", bvh, "--out", out, "--plot",
                                                  png, "--plot-script", kScript.string(), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(t.numFrames(), kinetrack::io::readBvh(bvh).motion.rows());
  EXPECT_EQ(t.joint_names.front(), "r_hip_pitch");  // URDF joint names, model order
  EXPECT_EQ(t.numJoints(), 32);
  EXPECT_NE(r.out.find("max coupled-row violation"), std::string::npos) << r.out;
  // The plot is drawn when matplotlib is there (scripts/setup.sh installs it).
  if (r.err.find("no plot") == std::string::npos) {
    EXPECT_TRUE(fs::exists(png)) << r.out << r.err;
  }
  EXPECT_FALSE(fs::exists(png + ".limits.csv"));
}

TEST(CliRetarget, BadInputExitsTwo) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  KINETRACK_REQUIRE_SHARED(human, "models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf");
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  ScratchDir dir;
  const std::string out = dir.file("o.csv");
  // A model without arms has no automatic robot map: the error says what is missing.
  RunResult r = kinetrack::testing::runCli({"retarget", "--robot", osim, "--input", bvh, "--out", out});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("auto robot map for"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("found 0 arm chains (needs 2)"), std::string::npos) << r.err;
  r = kinetrack::testing::runCli({"retarget", "--robot", human, "--input", bvh, "--out", out, "--map", "nosuchmap"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nosuchmap"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// The Unitree G1 and H1 without --map: their built-in maps are detected and shown; --save-map
// writes the map, which given back as --map gives the same bytes.
TEST(CliRetarget, UnitreeRobotsWithoutAMap) {
  KINETRACK_REQUIRE_SHARED(g1, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(h1, "models/unitree/h1/h1.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh");
  ScratchDir dir;
  const std::string out = dir.file("g1.csv"), again = dir.file("g1_again.csv"), map = dir.file("g1_map.json");
  RunResult r =
      kinetrack::testing::runCli({"retarget", "--robot", g1, "--input", bvh, "--out", out, "--save-map", map});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("robot map 'g1_29dof':\n  Pelvis -> pelvis\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  LeftForeArm -> left_elbow_link\n"), std::string::npos) << r.out;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(t.numFrames(), 51);
  EXPECT_EQ(t.numJoints(), 29);
  r = kinetrack::testing::runCli({"retarget", "--robot", g1, "--input", bvh, "--out", again, "--map", map, "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(kinetrack::testing::readText(out), kinetrack::testing::readText(again));

  r = kinetrack::testing::runCli({"retarget", "--robot", h1, "--input", bvh, "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("robot map 'h1':"), std::string::npos) << r.out;
  EXPECT_EQ(kinetrack::io::readJointCsv(out).numJoints(), 19);
}

// A robot the built-in maps do not know (the G1 with meaningless names, children reordered):
// the automatic map, shown for review.
TEST(CliRetarget, UnknownRobotGetsTheAutomaticMap) {
  KINETRACK_REQUIRE_SHARED(g1, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh");
  ScratchDir dir;
  std::map<std::string, std::string> renamed;
  const std::string urdf = dir.file("renamed.urdf"), out = dir.file("q.csv");
  std::ofstream(urdf) << kinetrack::testing::renamedUrdf(kinetrack::testing::readText(g1), renamed);
  const RunResult r = kinetrack::testing::runCli({"retarget", "--robot", urdf, "--input", bvh, "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("robot map 'auto':\n  Pelvis -> " + renamed.at("pelvis") + "\n  T8 -> " +
                       renamed.at("torso_link") + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  LeftFoot -> " + renamed.at("left_ankle_roll_link") + "\n"), std::string::npos) << r.out;
}

}  // namespace KINETRACK_UNITY_ID
