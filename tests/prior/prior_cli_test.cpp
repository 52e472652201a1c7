// The GPM commands end to end: `experiment gpm` on two subjects (CSV layout, table), `prior
// build`, `track --targets --prior`, and bad input exiting with status 2 and a message.
#include <gtest/gtest.h>

#include <string>

#include "../cli/cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

using testing::runCli;
using testing::ScratchDir;

int lineCount(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(GpmCli, ExperimentWritesTheStudyCsvsAndPrintsTheTable) {
  KINETRACK_REQUIRE_SHARED(clip, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  const auto r = runCli({"experiment", "gpm", "--data", kinetrack::testing::sharedDir() + "/data", "--subjects",
                         "Xsens-MPIEA,CMU-7", "--incs", "1,3", "--robustness-inc", "2", "--out", dir.path().string(),
                         "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("GP included"), std::string::npos) << r.out;
  const std::string csv = testing::readFile(dir.path() / "gpm.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "subject,inc,method,included,rms_deg");
  EXPECT_EQ(lineCount(csv), 1 + 2 * (2 * 2 + 2));  // per inc: LN + GP per subject, GP left out
  EXPECT_EQ(lineCount(testing::readFile(dir.path() / "gpm_robustness.csv")), 1 + 2 * 2);
  EXPECT_EQ(lineCount(testing::readFile(dir.path() / "gpm_fits.csv")), 1 + 2);
}

TEST(GpmCli, BadExperimentInputExitsWith2) {
  ScratchDir dir;
  auto r = runCli({"experiment", "gpm", "--data", dir.path().string(), "--out", dir.file("o")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no bvh/ folder"), std::string::npos) << r.err;
  r = runCli({"experiment", "gpm", "--incs", "0", "--out", dir.file("o")});
  EXPECT_EQ(r.status, 2);
  r = runCli({"experiment", "gpm", "--subjects", "Nobody", "--data", kinetrack::testing::sharedDir() + "/data", "--out",
              dir.file("o")});
  if (!kinetrack::testing::sharedDir().empty()) {
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("unknown subject 'Nobody'"), std::string::npos) << r.err;
  }
}

TEST(GpmCli, PriorBuildThenSparseTrackingAndPriorsOfAnotherModel) {
  KINETRACK_REQUIRE_SHARED(clip, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  const std::string prior = dir.file("prior.bin");
  auto r = runCli({"prior", "build", "--out", prior, "--rate", "30", clip});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wrote"), std::string::npos);
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("j.csv"), "--targets", "head,hands",
              "--prior", prior, "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lineCount(testing::readFile(dir.file("j.csv"))), 1 + 112);  // every input frame has a row
  EXPECT_NE(r.out.find("frame time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DYN (prior as its posture term)"), std::string::npos) << r.out;  // the default solver
  // The gradient projection with the same prior: same rows, the same targets met.
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("g.csv"), "--targets", "head,hands",
              "--prior", prior, "--sparse-solver", "gp"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lineCount(testing::readFile(dir.file("g.csv"))), 1 + 112);
  EXPECT_NE(r.out.find("gradient projection"), std::string::npos) << r.out;
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("g.csv"), "--targets", "head,hands",
              "--sparse-solver", "newton"});
  EXPECT_EQ(r.status, 2);
  // Without a prior: damped least norm from the same targets.
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("l.csv"), "--targets", "head,hands",
              "--quiet"});
  EXPECT_EQ(r.status, 0) << r.err;
  // A prior learned on human66 does not fit human48.
  r = runCli({"track", "--model", "human48", "--input", clip, "--out", dir.file("k.csv"), "--targets", "head,hands",
              "--prior", prior});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("learned on model"), std::string::npos) << r.err;
  // Broken and missing prior files, a prior without targets, an unknown target.
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("k.csv"), "--targets", "head,hands",
              "--prior", dir.write("broken.bin", "KTPRIOR")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("broken.bin"), std::string::npos) << r.err;
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("k.csv"), "--prior", prior});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--prior needs --targets"), std::string::npos) << r.err;
  r = runCli({"track", "--model", "human66", "--input", clip, "--out", dir.file("k.csv"), "--targets", "tail"});
  EXPECT_EQ(r.status, 2);
}

TEST(GpmCli, SparseExperimentComparesAllFourSolversPerHeldOutSubject) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh");
  ScratchDir dir;
  const auto r = runCli({"experiment", "sparse", "--out", dir.path().string(), "--data",
                         kinetrack::testing::sharedDir() + "/data", "--subjects", "CMU-5,CMU-6", "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("DYN+prior"), std::string::npos) << r.out;
  const std::string csv = testing::readFile(dir.path() / "sparse.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "subject,method,joint_rms_deg,hand_error_mm,frame_us");
  EXPECT_EQ(lineCount(csv), 1 + 2 * 4);  // LN, GP, DYN, DYN+GP per subject
  for (const char* row : {"CMU-5,LN,", "CMU-5,GP,", "CMU-6,DYN,", "CMU-6,DYN+GP,"})
    EXPECT_NE(csv.find(row), std::string::npos) << row << "\n" << csv;
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
