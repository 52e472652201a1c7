// End-to-end tests of `kinetrack track` (issue 4): one row per input frame, gaps marked and
// counted, summary.json fields, BVH and MOT outputs that read back, and bad input → exit 2 with a
// message and no output file.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_track_") {}
};

RunResult run(const std::vector<std::string>& args) { return kinetrack::testing::runCli(args); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CliTrack, FromClipRecoversTheClipAndWritesEveryOutput) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  const std::string out = dir.file("joints.csv"), summary = dir.file("summary.json"), tracked = dir.file("tracked.bvh"),
                    mot = dir.file("joints.mot");
  const RunResult r = run({"track", "--model", "from-clip", "--input", bvh, "--out", out, "--summary-json", summary,
                           "--bvh-out", tracked, "--mot-out", mot, "--transient", "0.5"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::BvhFile in = kinetrack::io::readBvh(bvh);
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(t.numFrames(), in.motion.rows());
  const nlohmann::json j = nlohmann::json::parse(slurp(summary));
  for (const char* key : {"frames", "gaps", "mnte_median", "mnte_p95", "rmse_median", "joint_rms_deg",
                          "limit_violation_max_rad", "step_us_p50", "step_us_p99"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["frames"].get<int>(), in.motion.rows());
  EXPECT_EQ(j["gaps"].get<int>(), 0);
  EXPECT_LT(j["joint_rms_deg"].get<double>(), 0.5);
  EXPECT_LT(j["mnte_p95"].get<double>(), 1e-4);
  // The tracked BVH and MOT read back with one frame per input frame.
  EXPECT_EQ(kinetrack::io::readBvh(tracked).motion.rows(), in.motion.rows());
  EXPECT_EQ(kinetrack::io::readMot(mot).times.size(), static_cast<std::size_t>(in.motion.rows()));
  EXPECT_NE(r.out.find("joint RMS vs clip angles"), std::string::npos) << r.out;
}

TEST(CliTrack, NanFramesAreGapsWithHeldRowsNeverDropped) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  // Frames 20 and 21 lose a value.
  std::string text = slurp(bvh);
  std::size_t pos = text.find("Frame Time");
  pos = text.find('\n', pos) + 1;
  for (int line = 0; line < 22; ++line) {
    if (line >= 20) {
      const std::size_t end = text.find_first_of(" \t", pos);
      text.replace(pos, end - pos, "nan");
    }
    pos = text.find('\n', pos) + 1;
  }
  const std::string input = dir.write("gappy.bvh", text), out = dir.file("joints.csv"), summary = dir.file("s.json");
  const RunResult r = run({"track", "--model", "human66", "--input", input, "--out", out, "--summary-json", summary});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  const kinetrack::io::BvhFile in = kinetrack::io::readBvh(input);
  ASSERT_EQ(t.numFrames(), in.motion.rows());
  EXPECT_EQ(t.gap[20], 1);
  EXPECT_EQ(t.gap[21], 1);
  EXPECT_EQ(t.gap[19], 0);
  EXPECT_EQ(t.gap[22], 0);
  EXPECT_EQ(t.joints.row(19), t.joints.row(20));  // held
  EXPECT_TRUE(t.joints.allFinite());
  EXPECT_EQ(nlohmann::json::parse(slurp(summary))["gaps"].get<int>(), 2);
}

TEST(CliTrack, PoseTargetCsvOnHuman48) {
  ScratchDir dir;
  // A three-frame pose-target CSV naming model frames directly: the pelvis and the right
  // forearm, the forearm turning.
  const std::string input = dir.write(
      "targets.csv",
      "# pose targets\n"
      "time,Pelvis.px,Pelvis.py,Pelvis.pz,Pelvis.qw,Pelvis.qx,Pelvis.qy,Pelvis.qz,RightForeArm.qw,RightForeArm.qx,"
      "RightForeArm.qy,RightForeArm.qz\n"
      "0,0,0,1,1,0,0,0,1,0,0,0\n"
      "0.01,0,0,1,1,0,0,0,0.99875,0,0,0.049979\n"
      "0.02,0,0,1,1,0,0,0,0.995004,0,0,0.099833\n");
  const std::string out = dir.file("joints.csv");
  const RunResult r = run({"track", "--model", "human48", "--input", input, "--out", out, "--transient", "0"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(kinetrack::io::readJointCsv(out).numFrames(), 3);
}

TEST(CliTrack, RateReplacesTheFrameTimesAndAJsonMapOverrides) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh");
  ScratchDir dir;
  // A user map: only the legs and the pelvis, the right thigh target turned 90° about its x axis.
  const std::string map =
      dir.write("legs.json", R"({"name": "legs", "segments": {"Hips": "Pelvis", "RightUpLeg": "RightUpperLeg",
      "RightLeg": "RightLowerLeg", "LeftUpLeg": "LeftUpperLeg", "LeftLeg": "LeftLowerLeg"},
      "offsets": {"RightUpLeg": {"rpy_deg": [90, 0, 0]}}})");
  const std::string out = dir.file("joints.csv"), summary = dir.file("s.json");
  const RunResult r = run({"track", "--model", "human66", "--input", bvh, "--out", out, "--rate", "60", "--map", map,
                           "--summary-json", summary});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  ASSERT_GT(t.numFrames(), 100);
  EXPECT_NEAR(t.times[60], 1.0, 1e-12);
  const nlohmann::json j = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(j["targets"].get<int>(), 5);
  EXPECT_LT(j["mnte_p95"].get<double>(), 1e-4);  // the offset is reachable on spherical joints
  EXPECT_NE(r.out.find("clip segments not mapped"), std::string::npos) << r.out;
  // Without the offset the thigh is 90° away from where the offset put it.
  std::string plain_text = slurp(map);
  plain_text = plain_text.substr(0, plain_text.find(",\n      \"offsets\"")) + "}";
  const std::string plain = dir.write("plain.json", plain_text), out2 = dir.file("plain.csv");
  const RunResult r2 =
      run({"track", "--model", "human66", "--input", bvh, "--out", out2, "--rate", "60", "--map", plain});
  ASSERT_EQ(r2.status, 0) << r2.out << r2.err;
  const std::vector<kinetrack::Configuration> with = kinetrack::io::toConfigurations(t, kinetrack::makeHuman66()),
                                              without = kinetrack::io::toConfigurations(
                                                  kinetrack::io::readJointCsv(out2), kinetrack::makeHuman66());
  const kinetrack::Model m = kinetrack::makeHuman66();
  kinetrack::Data a(m), b(m);
  kinetrack::framesForwardKinematics(m, a, with.back());
  kinetrack::framesForwardKinematics(m, b, without.back());
  const kinetrack::FrameId thigh = m.frameId("RightUpperLeg");
  const double angle = kinetrack::so3::log(b.frame[thigh.value].R.transpose() * a.frame[thigh.value].R).norm();
  EXPECT_NEAR(angle, M_PI / 2, 1e-3);
}

TEST(CliTrack, PerFrameBaselinesTrackTheSameClip) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  for (const char* solver : {"wholebody", "wholebody-ipopt", "pairwise"}) {
    SCOPED_TRACE(solver);
    const std::string out = dir.file(std::string(solver) + ".csv"), summary = dir.file(std::string(solver) + ".json");
    const RunResult r = run({"track", "--model", "human66", "--input", bvh, "--out", out, "--summary-json", summary,
                             "--solver", solver, "--transient", "0.5"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const nlohmann::json j = nlohmann::json::parse(slurp(summary));
    EXPECT_EQ(j["frames"].get<int>(), kinetrack::io::readBvh(bvh).motion.rows());
    EXPECT_LT(j["mnte_p95"].get<double>(), 1e-8);
    // Every frame's solve status is counted.
    const nlohmann::json& st = j["solve_status"];
    EXPECT_EQ(st["converged"].get<int>() + st["stationary"].get<int>() + st["iteration_limit"].get<int>() +
                  st["failed"].get<int>(),
              j["frames"].get<int>() - j["gaps"].get<int>());
    EXPECT_EQ(st["failed"].get<int>(), 0);
    EXPECT_NE(r.out.find("per-frame solves"), std::string::npos) << r.out;
  }
  const RunResult bad =
      run({"track", "--model", "human66", "--input", bvh, "--out", dir.file("x.csv"), "--solver", "magic"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--solver"), std::string::npos) << bad.err;
  const RunResult threads = run({"track", "--model", "human66", "--input", bvh, "--out", dir.file("x.csv"), "--solver",
                                 "pairwise", "--threads", "-1"});
  EXPECT_EQ(threads.status, 2);
  EXPECT_NE(threads.err.find("--threads"), std::string::npos) << threads.err;
  EXPECT_FALSE(fs::exists(dir.file("x.csv")));
}

struct BadTrack {
  std::string label;
  std::vector<std::string> args;  ///< "{dir}" → scratch directory, "{bvh}" → a real clip
  std::string expected;
};

TEST(CliTrack, BadInputExitsTwoWithAMessageAndNoOutput) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  const std::string broken = dir.write("broken.bvh", slurp(bvh).substr(0, 3000));
  const std::string badcsv =
      dir.write("bad.csv", "time,Pelvis.qw,Pelvis.qx,Pelvis.qy,Pelvis.qz\n0,1,0,0,0\n0,1,0,0,0\n");
  const std::string badmap = dir.write("map.json", "{\"segments\": {\"Hips\": 3}}");
  const std::string goodcsv =
      dir.write("good.csv", "time,Pelvis.qw,Pelvis.qx,Pelvis.qy,Pelvis.qz\n0,1,0,0,0\n0.1,1,0,0,0\n");
  const std::vector<BadTrack> cases = {
      {"missing input", {"--model", "human66", "--input", "{dir}/none.bvh"}, "none.bvh"},
      {"unknown format", {"--model", "human66", "--input", "{dir}/map.json"}, "unknown capture format"},
      {"truncated bvh", {"--model", "human66", "--input", broken}, "broken.bvh"},
      {"non-increasing csv time", {"--model", "human66", "--input", badcsv}, "bad.csv:3"},
      {"unknown model", {"--model", "human99", "--input", "{bvh}"}, "human99"},
      {"bad map file", {"--model", "human66", "--input", "{bvh}", "--map", badmap}, "map.json"},
      {"bad calibration", {"--model", "human66", "--input", "{bvh}", "--calibration", "frame:99999"}, "frame:99999"},
      {"bad kappa", {"--model", "human66", "--input", "{bvh}", "--kappa", "2.5"}, "kappa"},
      {"from-clip needs bvh", {"--model", "from-clip", "--input", goodcsv}, "from-clip"},
  };
  for (const BadTrack& c : cases) {
    SCOPED_TRACE(c.label);
    const std::string out = dir.file("out_" + std::to_string(&c - cases.data()) + ".csv");
    std::vector<std::string> args = {"track", "--out", out};
    for (std::string a : c.args) {
      for (auto p = a.find("{dir}"); p != std::string::npos; p = a.find("{dir}")) a.replace(p, 5, dir.path().string());
      if (a == "{bvh}") a = bvh;
      args.push_back(a);
    }
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out + ".part"));
  }
}

}  // namespace KINETRACK_UNITY_ID
