// End-to-end test of `kinetrack experiment pindrag` (issue 17): the CSV's shape, the pins held
// during the feasible phases, velocity and joint limits in every row, bad input exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_pindrag_") {}
};

TEST(PinDragCli, Human66ScriptedDragsHoldPinsAndLimits) {
  ScratchDir dir;
  const RunResult r = runCli({"experiment", "pindrag", "--model", "human66", "--out", dir.file("p"), "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("circle"), std::string::npos) << r.out;
  std::ifstream in(fs::path(dir.file("p")) / "pindrag.csv");
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header,
            "step,time_s,phase,pin_position_error_m,pin_orientation_error_rad,drag_error,max_speed_ratio,sr_damping,"
            "velocity_scale,limit_violation");
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 10u) << line;
    if (f[2] != "beyond") {
      EXPECT_LT(std::stod(f[3]), 1e-4) << line;
      EXPECT_LT(std::stod(f[4]), 1e-3) << line;
    }
    EXPECT_LE(std::stod(f[6]), 1.0 + 1e-9) << line;
    EXPECT_EQ(std::stod(f[9]), 0.0) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 1000);
}

TEST(PinDragCli, UnknownModelExitsTwo) {
  ScratchDir dir;
  const RunResult r = runCli({"experiment", "pindrag", "--model", "robot", "--out", dir.file("p")});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
}

}  // namespace KINETRACK_UNITY_ID
