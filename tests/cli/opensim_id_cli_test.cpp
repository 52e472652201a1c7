// End-to-end `kinetrack dynamics id --model M.osim` (issue 18): OpenSim's gait2354 walk with its
// ground reaction forces through the setup, written in OpenSim's .sto layout and compared with
// OpenSim's own result; bad input (unknown body in the loads, loads that do not cover the motion,
// URDF-only options) → exit 2 naming the file, no output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "kinetrack/biomech/opensim_id.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_osim_id_") {}
};

constexpr const char* kGait = "data/opensim/gait2354_walk/";

TEST(CliOpenSimId, Gait2354WalkThroughTheSetupMatchesOpenSim) {
  KINETRACK_REQUIRE_SHARED(model, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = model.substr(0, model.rfind('/') + 1);
  ScratchDir scratch;
  const std::string out = scratch.file("id.sto");
  const RunResult r =
      runCli({"dynamics", "id", "--quiet", "--model", model, "--motion", dir + "subject01_walk1_ik_REFERENCE.mot",
              "--setup", dir + "subject01_Setup_InverseDynamics.xml", "--out", out, "--reference",
              dir + "subject01_walk1_id_REFERENCE.sto"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("knee_angle_r_moment"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worst column"), std::string::npos) << r.out;
  const kinetrack::io::MotTable ours = kinetrack::io::readMot(out);
  const kinetrack::io::MotTable ref = kinetrack::io::readMot(dir + "subject01_walk1_id_REFERENCE.sto");
  EXPECT_EQ(ours.columns, ref.columns);
  ASSERT_EQ(ours.times.size(), 73u);
  for (Eigen::Index c = 0; c < ours.values.cols(); ++c)
    for (Eigen::Index f = 0; f < ours.values.rows(); ++f)
      EXPECT_NEAR(ours.values(f, c), ref.values(f, c), 0.05)
          << ours.columns[static_cast<std::size_t>(c)] << " row " << f;
}

TEST(CliOpenSimId, BadInputExitsWithTheFileNamed) {
  KINETRACK_REQUIRE_SHARED(model, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = model.substr(0, model.rfind('/') + 1);
  ScratchDir scratch;
  const std::string out = scratch.file("id.sto");
  const std::string motion = dir + "subject01_walk1_ik_REFERENCE.mot";
  // Unknown body: copy the loads file with calcn_r renamed, next to a copy of its data.
  std::string xml = kinetrack::testing::readFile(dir + "subject01_walk1_grf.xml");
  xml.replace(xml.find("calcn_r"), 7, "heel_r");
  const std::string bad_loads = scratch.file("grf.xml");
  std::ofstream(bad_loads) << xml;
  fs::copy_file(dir + "subject01_walk1_grf.mot", scratch.file("subject01_walk1_grf.mot"));
  RunResult r =
      runCli({"dynamics", "id", "--quiet", "--model", model, "--motion", motion, "--loads", bad_loads, "--out", out});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("grf.xml:5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("heel_r"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // Loads that do not cover the motion's time range.
  std::string grf = kinetrack::testing::readFile(dir + "subject01_walk1_grf.mot");
  const std::string short_mot = scratch.file("short.mot");
  {
    std::ofstream f(short_mot);
    std::size_t pos = 0;
    for (int line = 0; line < 7 + 300; ++line) pos = grf.find('\n', pos) + 1;  // header + 0–0.5 s
    f << grf.substr(0, pos);
  }
  r = runCli({"dynamics", "id", "--quiet", "--model", model, "--motion", motion, "--loads",
              dir + "subject01_walk1_grf.xml", "--out", out});
  EXPECT_EQ(r.status, 0) << r.err;  // the whole file covers 0–2.5 s
  fs::remove(out);
  std::string xml2 = kinetrack::testing::readFile(dir + "subject01_walk1_grf.xml");
  xml2.replace(xml2.find("subject01_walk1_grf.mot"), 23, "short.mot");
  const std::string short_loads = scratch.file("short.xml");
  std::ofstream(short_loads) << xml2;
  r = runCli({"dynamics", "id", "--quiet", "--model", model, "--motion", motion, "--loads", short_loads, "--out", out});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("short.mot"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // URDF-only options on an .osim model, and OpenSim options on a URDF.
  r = runCli({"dynamics", "id", "--model", model, "--motion", motion, "--derivatives", "butterworth", "--out", out});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--loads"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
