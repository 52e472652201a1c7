// End-to-end tests of `kinetrack simulate` and `kinetrack experiment assembly` (issue 11):
// weightless tumbling while holding a bar (energy kept, holds kept, a release at the given time),
// free fall (the closed form), a figure at a singular hold stops with an error and the rows so
// far, bad input exits 2; the Table 1 experiment's CSV shape and the O(log N) critical path.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/table/joint_csv.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_simulate_") {}
};

// The number after `key` in the summary ("energy ... (change 1e-14 J").
double numberAfter(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return NAN;
  return std::stod(text.substr(at + key.size()));
}

TEST(CliSimulate, WeightlessFigureHoldingABarKeepsEnergyAndHolds) {
  ScratchDir dir;
  const std::string out = dir.file("sim.csv");
  const RunResult r =
      runCli({"simulate", "--model", "human48", "--gravity", "0", "--initial", "random", "--velocity", "0.3", "--hold",
              "RightHand", "--hold", "LeftHand@0.25", "--duration", "0.5", "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("released LeftHand at t = 0.250 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("assembly–disassembly"), std::string::npos) << r.out;
  EXPECT_LT(std::abs(numberAfter(r.out, "(change ")), 1e-9) << r.out;  // J, of ~0.3 J
  EXPECT_LT(numberAfter(r.out, "hold drift                     "), 1e-9) << r.out;
  const kinetrack::io::JointTrajectory traj = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(traj.numFrames(), 51);  // 100 rows per second and t = 0
  EXPECT_NEAR(traj.times.back(), 0.5, 1e-12);
  EXPECT_EQ(traj.numJoints(), 48);
}

TEST(CliSimulate, FreeFallFollowsTheClosedForm) {
  ScratchDir dir;
  const std::string out = dir.file("fall.csv");
  const RunResult r =
      runCli({"simulate", "--model", "human66", "--base-height", "2", "--duration", "1", "--rate", "10", "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ABA"), std::string::npos) << r.out;
  const kinetrack::io::JointTrajectory traj = kinetrack::io::readJointCsv(out);
  ASSERT_EQ(traj.numFrames(), 11);
  EXPECT_NEAR(traj.base.back().p.z(), 2.0 - 0.5 * 9.80665, 1e-9);
  EXPECT_LT(std::abs(numberAfter(r.out, "(change ")), 1e-6) << r.out;  // J, of 1.4 kJ
}

TEST(CliSimulate, ASingularHoldStopsWithAnErrorAndTheRowsSoFar) {
  // Straight arms hanging at the hips, held there under gravity: the closure is singular.
  ScratchDir dir;
  const std::string out = dir.file("bad.csv");
  const RunResult r = runCli({"simulate", "--model", "human48", "--hold", "RightHand", "--hold", "LeftHand",
                              "--duration", "0.2", "--out", out});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("singular closure"), std::string::npos) << r.err;
  EXPECT_NO_THROW(kinetrack::io::readJointCsv(out));  // what was finite is there, no NaN
}

TEST(CliSimulate, BadInputExitsWithTwo) {
  ScratchDir dir;
  const std::string out = dir.file("x.csv");
  RunResult r = runCli({"simulate", "--model", "human48", "--hold", "NoSuchFrame", "--out", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'NoSuchFrame' is not a frame"), std::string::npos) << r.err;
  r = runCli({"simulate", "--model", "human48", "--step", "0", "--out", out});
  EXPECT_EQ(r.status, 2) << r.err;
  r = runCli({"simulate", "--model", "human48", "--hold", "RightHand@-1", "--out", out});
  EXPECT_EQ(r.status, 2) << r.err;
  r = runCli({"simulate", "--model", "human48", "--hold", "RightHand", "--solver", "aba", "--out", out});
  EXPECT_EQ(r.status, 2) << r.err;
  r = runCli({"simulate", "--model", "human48", "--initial", dir.file("missing.csv"), "--out", out});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("missing.csv"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliExperimentAssembly, TableOneShapeAndLogDepth) {
  ScratchDir dir;
  const RunResult r = runCli({"experiment", "assembly", "--out", dir.file("a"), "--max-links", "32", "--batches", "3",
                              "--batch-ms", "1", "--threads", "2", "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ifstream in(fs::path(dir.file("a")) / "assembly.csv");
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(
      header,
      "kind,links,nv,loops,schedule,threads,time_us,aba_us,total_flops,critical_path_flops,threaded_flops,height");
  // kind, links, loops, schedule, threads → critical path, height.
  std::map<std::string, std::pair<double, int>> rows;
  int count = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 12u) << line;
    EXPECT_GT(std::stod(f[6]), 0.0) << line;
    rows[f[0] + f[1] + "/" + f[3] + f[4] + f[5]] = {std::stod(f[9]), std::stoi(f[11])};
    ++count;
  }
  EXPECT_EQ(count, (3 + 3) * 2 * 2);                   // chains 8, 16, 32 and the figure with 0, 1, 2 hands
  EXPECT_EQ(rows.at("chain32/0parallel1").second, 7);  // ⌈log₂ 33⌉ + 1
  EXPECT_EQ(rows.at("chain32/0serial1").second, 33);
  EXPECT_LT(rows.at("chain32/0parallel1").first, 0.5 * rows.at("chain32/0serial1").first);
  EXPECT_NE(r.out.find("critical path"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hands held"), std::string::npos) << r.out;
}

}  // namespace KINETRACK_UNITY_ID
