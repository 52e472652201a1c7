// End-to-end tests of `kinetrack dynamics filter` (issue 19): the gait2354 walk with its force
// plates through the filter (one output row per input row in OpenSim's layout, the JSON keys the
// issue names, residual after ~0 while before is not, contact forces compared with the plates);
// a joint CSV with a NaN row gives a held frame, never NaN; bad input exits 2 naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_filter_") {}
};

TEST(CliDynamicsFilter, Gait2354WalkWithForcePlates) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(ik, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  KINETRACK_REQUIRE_SHARED(grf, "data/opensim/gait2354_walk/subject01_walk1_grf.xml");
  ScratchDir dir;
  const std::string out = dir.file("filtered.mot"), tau = dir.file("tau.sto"), json = dir.file("s.json");
  const RunResult r = runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--grf", grf, "--out",
                              out, "--torques", tau, "--summary-json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::MotTable in = kinetrack::io::readMot(ik), filtered = kinetrack::io::readMot(out);
  EXPECT_EQ(filtered.times.size(), in.times.size());  // one row per input row
  EXPECT_EQ(filtered.columns.size(), 23u);
  EXPECT_TRUE(filtered.values.allFinite());
  EXPECT_TRUE(kinetrack::io::readMot(tau).values.allFinite());
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  for (const char* key : {"frames", "residual_force_rms_before_n", "residual_force_rms_after_n",
                          "residual_moment_rms_before_nm", "residual_moment_rms_after_nm", "joint_change_rms_deg"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["frames"].get<int>(), static_cast<int>(in.times.size()));
  EXPECT_GT(s["residual_force_rms_before_n"].get<double>(), 1.0);
  EXPECT_LT(s["residual_force_rms_after_n"].get<double>(), 1e-3);
  EXPECT_LT(s["residual_moment_rms_after_nm"].get<double>(), 1e-3);
  EXPECT_LT(s["joint_change_rms_deg"].get<double>(), 10.0);
  ASSERT_TRUE(s.contains("contact_force_vs_plates_rms_n"));
  EXPECT_EQ(s["contact_force_vs_plates_rms_n"].size(), 3u);
  EXPECT_NE(r.out.find("treadmill"), std::string::npos) << r.out;  // the belt was found
}

// A captured run over ground (Bandai, 30 Hz): not taken for a treadmill (the feet travel), and
// its stance phases are found (the speed of the touching sole points, 0.8 m/s; before: 3 of 68
// frames); the foot slide is reported at the contact points and at the ankles.
TEST(CliDynamicsFilter, ABvhRunOverGroundHasItsStanceContacts) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_run_normal_001.bvh");
  ScratchDir dir;
  const std::string out = dir.file("out.csv"), json = dir.file("s.json");
  const RunResult r = runCli(
      {"dynamics", "filter", "--quiet", "--model", "human66", "--input", bvh, "--out", out, "--summary-json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("not a treadmill"), std::string::npos) << r.out;
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  EXPECT_EQ(s["frames"].get<int>(), 68);
  EXPECT_GE(s["frames_in_contact"].get<int>(), 15);
  for (const char* key : {"foot_slide_mm_per_s", "foot_slide_input_mm_per_s", "foot_slide_origin_mm_per_s",
                          "foot_slide_origin_input_mm_per_s"})
    EXPECT_TRUE(s.contains(key) && std::isfinite(s[key].get<double>())) << key;
  EXPECT_TRUE(kinetrack::io::readJointCsv(out).joints.allFinite());
}

TEST(CliDynamicsFilter, ANanRowIsHeldNotPropagated) {
  ScratchDir dir;
  const kinetrack::Model m = kinetrack::makeHuman66();
  const std::string motion = dir.file("motion.csv"), out = dir.file("out.csv"), json = dir.file("s.json");
  {
    kinetrack::io::JointCsvWriter w(m, motion);
    for (int k = 0; k <= 100; ++k) {
      kinetrack::Configuration q(m);
      q.base_position.z() = 0.95;
      for (int j = 0; j < m.numJoints(); ++j) q.joints[j] = 0.05 * std::sin(0.02 * k + 0.3 * j);
      w.write(0.01 * k, q, k == 50);  // a gap row: held by the tracker
    }
    w.commit();
  }
  const RunResult r = runCli({"dynamics", "filter", "--quiet", "--model", "human66", "--input", motion, "--out", out,
                              "--summary-json", json, "--cutoff", "0"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(t.numFrames(), 101);
  EXPECT_TRUE(t.joints.allFinite());
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  EXPECT_GT(s["status"]["invalid_reference"].get<int>(), 0);
}

TEST(CliDynamicsFilter, BadInputExitsWithTwo) {
  ScratchDir dir;
  const std::string out = dir.file("out.csv");
  const std::string broken = dir.write("broken.csv", "time,base_x\n0,1\n");
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"dynamics", "filter", "--model", "human66", "--input", dir.file("missing.csv"), "--out", out}, "missing.csv"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out}, "broken.csv"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out, "--slope-deg", "80"},
       "--slope-deg"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out, "--force-tracking", "1"}, "--grf"},
  };
  for (const auto& c : cases) {
    const RunResult r = runCli(c.args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
