// The GPM commands end to end: `experiment gpm` on two subjects (CSV layout, table), `prior
// build`, `track --targets --prior`, and bad input exiting with status 2 and a message.
#include <gtest/gtest.h>

#include <string>

#include "../cli/cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace {

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

}  // namespace
}  // namespace kinetrack
