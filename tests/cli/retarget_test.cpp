// End-to-end tests of `kinetrack retarget` (issue 5): human capture onto the iCub URDF, one row per
// input frame with the URDF's joint names, the Fig. 3 plot, bad input → exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
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
  ScratchDir dir;
  const std::string out = dir.file("o.csv");
  // A robot that is not the iCub needs a map.
  RunResult r = kinetrack::testing::runCli({"retarget", "--robot", human, "--input", bvh, "--out", out});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--map"), std::string::npos) << r.err;
  r = kinetrack::testing::runCli({"retarget", "--robot", human, "--input", bvh, "--out", out, "--map", "nosuchmap"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nosuchmap"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace KINETRACK_UNITY_ID
