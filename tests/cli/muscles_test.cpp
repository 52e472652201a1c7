// End-to-end tests of `kinetrack muscles` (issue 18): OpenSim's arm26 static optimisation from its
// own setup, written in OpenSim's layout and read back against OpenSim's reference; qp and lp;
// bad input → exit 2 naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

constexpr const char* kDir = "data/opensim/arm26_static_optimization/";

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_muscles_") {}
};

TEST(CliMuscles, StaticOptimizationOfArm26FromItsSetup) {
  KINETRACK_REQUIRE_SHARED(dir, kDir);
  ScratchDir tmp;
  const std::string ref = dir + "std_Thelen2003Muscle_arm26_StaticOptimization_activation.sto";
  const RunResult r = runCli({"muscles", "static-opt", "--setup", dir + "arm26_Setup_StaticOptimization.xml",
                              "--reference", ref, "--no-plot", "--out", tmp.path().string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("infeasible frames            0 of 61"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RMS vs reference"), std::string::npos) << r.out;
  const kinetrack::io::MotTable a = kinetrack::io::readMot((tmp.path() / "activation.sto").string());
  const kinetrack::io::MotTable f = kinetrack::io::readMot((tmp.path() / "force.sto").string());
  const kinetrack::io::MotTable res = kinetrack::io::readMot((tmp.path() / "residuals.sto").string());
  const kinetrack::io::MotTable o = kinetrack::io::readMot(ref);
  ASSERT_EQ(a.columns, o.columns);  // OpenSim's columns, in its order
  EXPECT_EQ(a.times.size(), 61u);   // the setup's 0.25–0.75 s at 120 Hz
  EXPECT_NEAR(a.times.front(), 0.25, 1e-6);
  EXPECT_EQ(f.columns, o.columns);
  EXPECT_EQ(res.columns, (std::vector<std::string>{"r_shoulder_elev_residual", "r_elbow_flex_residual"}));
  // The reference rows at our times (both at 120 Hz, OpenSim's printed 2e-7 s early).
  for (std::size_t k = 0; k < a.times.size(); ++k) {
    std::size_t j = 0;
    while (j + 1 < o.times.size() && std::abs(o.times[j] - a.times[k]) > 1e-4) ++j;
    ASSERT_LT(std::abs(o.times[j] - a.times[k]), 1e-4);
    EXPECT_LT(
        (a.values.row(static_cast<Eigen::Index>(k)) - o.values.row(static_cast<Eigen::Index>(j))).cwiseAbs().maxCoeff(),
        0.01)
        << "t = " << a.times[k];
  }
  EXPECT_TRUE(a.values.allFinite() && f.values.allFinite() && res.values.allFinite());
}

TEST(CliMuscles, QpAndLpRealiseTheSameTorques) {
  KINETRACK_REQUIRE_SHARED(dir, kDir);
  ScratchDir tmp;
  const std::string model = dir + "arm26.osim", motion = dir + "arm26_InverseKinematics.mot";
  double sum[2] = {0.0, 0.0};
  int k = 0;
  for (const char* method : {"qp", "lp"}) {
    const fs::path out = tmp.path() / method;
    const RunResult r =
        runCli({"muscles", method, "--model", model, "--motion", motion, "--lowpass", "6", "--out", out.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const kinetrack::io::MotTable f = kinetrack::io::readMot((out / "force.sto").string());
    const kinetrack::io::MotTable res = kinetrack::io::readMot((out / "residuals.sto").string());
    EXPECT_EQ(f.times.size(), 121u);
    EXPECT_LT(res.values.cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_GE(f.values.minCoeff(), -1e-9);
    sum[k++] = f.values.sum();
  }
  EXPECT_LE(sum[1], sum[0] + 1e-6);  // the LP minimises Σ f: never above the QP's
  EXPECT_LT(sum[1], 0.99 * sum[0]);  // and here strictly below (the QP spreads the load)
}

TEST(CliMuscles, BadInputExitsWithTheFileNamed) {
  KINETRACK_REQUIRE_SHARED(dir, kDir);
  ScratchDir tmp;
  const std::string model = dir + "arm26.osim", motion = dir + "arm26_InverseKinematics.mot";
  RunResult r = runCli({"muscles", "static-opt", "--model", model, "--motion", motion, "--start", "5", "--end", "6",
                        "--out", tmp.path().string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("does not overlap"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("arm26_InverseKinematics.mot"), std::string::npos) << r.err;
  // A motion with a NaN coordinate.
  const fs::path bad = tmp.path() / "bad.mot";
  {
    std::ofstream o(bad);
    o << "Coordinates\nversion=1\nnRows=3\nnColumns=3\ninDegrees=yes\nendheader\n"
         "time\tr_shoulder_elev\tr_elbow_flex\n0\t0\t10\n0.01\tnan\t11\n0.02\t0\t12\n";
  }
  r = runCli({"muscles", "qp", "--model", model, "--motion", bad.string(), "--out", (tmp.path() / "o").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.mot"), std::string::npos) << r.err;
  // A model with an unsupported wrap object: its file and line.
  std::ifstream in(model);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto a = text.find("<WrapCylinder name=\"TRI\">");
  const auto b = text.find("</WrapCylinder>", a) + 15;
  text = text.substr(0, a) + "<WrapTorus name=\"TRI\"></WrapTorus>" + text.substr(b);
  const fs::path torus = tmp.path() / "torus.osim";
  std::ofstream(torus) << text;
  r = runCli(
      {"muscles", "static-opt", "--model", torus.string(), "--motion", motion, "--out", (tmp.path() / "t").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("torus.osim:370"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("WrapTorus"), std::string::npos) << r.err;
  r = runCli({"muscles", "static-opt", "--model", model, "--motion", motion, "--loads", "missing_grf.xml", "--out",
              (tmp.path() / "l").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing_grf.xml"), std::string::npos) << r.err;
  r = runCli({"muscles", "qp", "--model", model, "--motion", motion, "--reserve", "knee_angle_r=10", "--out",
              (tmp.path() / "k").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("knee_angle_r"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
