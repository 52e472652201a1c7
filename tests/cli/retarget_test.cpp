// End-to-end tests of `kinetrack retarget` (issue 5): human capture onto the iCub URDF, one row per
// input frame with the URDF's joint names, the Fig. 3 plot, bad input → exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/bvh.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "testing/shared_paths.hpp"

namespace {

namespace fs = std::filesystem;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_retarget_") {}
};

const fs::path kScript = fs::path(KINETRACK_TEST_DATA) / ".." / ".." / "scripts" / "plot_retarget.py";

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

}  // namespace
