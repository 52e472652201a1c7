// End-to-end tests of `kinetrack dynamics id` (issue 11): a real walk tracked on a model with real
// masses, its inverse dynamics one row per input row with the base residual first, the mean
// vertical base force equal to the body weight; bad input → exit 2, no output.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "testing/shared_paths.hpp"

namespace {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_dynamics_") {}
};

TEST(CliDynamics, InverseDynamicsOfATrackedWalk) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  ScratchDir dir;
  const std::string q = dir.file("walk_q.csv"), tau = dir.file("walk_tau.csv");
  RunResult r = runCli({"track", "--quiet", "--model", urdf, "--input", bvh, "--out", q});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  r = runCli({"dynamics", "id", "--model", urdf, "--motion", q, "--out", tau});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory motion = kinetrack::io::readJointCsv(q);
  const std::string text = kinetrack::testing::readFile(tau);
  std::istringstream in(text);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("time,base_fx,base_fy,base_fz,base_mx,base_my,base_mz,", 0), 0u) << header;
  EXPECT_EQ(header.substr(header.size() - 6), ",valid");
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, motion.numFrames());  // one row per input row
  // The summary compares the mean vertical base force with the weight: 0.95 … 1.05 x.
  const auto at = r.out.find("body weight");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double ratio = std::stod(r.out.substr(r.out.find(": ", at) + 2));
  EXPECT_NEAR(ratio, 1.0, 0.05) << r.out;
}

TEST(CliDynamics, BadInputExitsWithTwo) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  ScratchDir dir;
  const std::string out = dir.file("tau.csv");
  const std::string broken = dir.write("broken.csv", "time,base_x\n0,1\n");
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"dynamics", "id", "--model", urdf, "--motion", dir.file("missing.csv"), "--out", out}, "missing.csv"},
      {{"dynamics", "id", "--model", urdf, "--motion", broken, "--out", out}, "broken.csv"},
      {{"dynamics", "id", "--model", "no_such_model", "--motion", broken, "--out", out}, "no_such_model"},
      {{"dynamics", "id", "--model", urdf, "--motion", broken, "--out", out, "--gravity", "-1"}, "--gravity"},
  };
  for (const auto& c : cases) {
    const RunResult r = runCli(c.args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
