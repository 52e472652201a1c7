// End-to-end tests of `kinetrack dynamics id` (issue 11): a real walk tracked on a model with real
// masses, its inverse dynamics one row per input row with the base residual first, the mean
// vertical base force equal to the body weight; a wrench file holding the ground reaction cancels
// the base residual; the Butterworth derivatives are the library's; bad input (the motion, the
// wrench file, the options) → exit 2 naming file, line and column, no output.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/table/force_csv.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/wrench_csv.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

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

// A smooth 1.5 s motion of the built-in human66 at 100 Hz (sines on the base and every joint),
// written as `kinetrack track` writes it.
void writeMotion(const std::string& path) {
  const kinetrack::Model m = kinetrack::makeHuman66();
  kinetrack::io::JointCsvWriter out(m, path);
  for (int k = 0; k <= 150; ++k) {
    const double t = 0.01 * k;
    kinetrack::Configuration q(m);
    q.base_position = kinetrack::Vector3d(0.8 * t, 0.05 * std::sin(4.0 * t), 0.95 + 0.03 * std::sin(9.0 * t));
    q.base_rotation = kinetrack::so3::exp(kinetrack::Vector3d(0.05 * std::sin(5.0 * t), 0.1, 0.4 * t));
    for (int j = 0; j < m.numJoints(); ++j) q.joints[j] = 0.3 * std::sin(2.0 * t + 0.37 * j);
    out.write(t, q, false);
  }
  out.commit();
}

// The numbers of a CSV's data rows (header skipped).
std::vector<std::vector<double>> csvRows(const std::string& path) {
  std::istringstream in(kinetrack::testing::readFile(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double>& row = rows.emplace_back();
    std::istringstream fields(line);
    std::string f;
    while (std::getline(fields, f, ',')) row.push_back(std::stod(f));
  }
  return rows;
}

// What the library writes for the same motion: readJointCsv, [lowPassMotion], differentiate,
// inverseDynamics, writeForceCsv.
std::string libraryOutput(const std::string& motion, const std::string& path, double cutoff = 0.0) {
  const kinetrack::Model m = kinetrack::makeHuman66();
  const kinetrack::io::JointTrajectory traj = kinetrack::io::readJointCsv(motion);
  std::vector<kinetrack::Configuration> q = kinetrack::io::toConfigurations(traj, m);
  if (cutoff > 0.0) q = kinetrack::lowPassMotion(m, q, traj.times, cutoff, traj.gap);
  const kinetrack::TrajectoryDerivatives d = kinetrack::differentiate(m, q, traj.times, traj.gap);
  kinetrack::io::writeForceCsv(path, m, traj.times, kinetrack::inverseDynamics(m, q, d), d.valid);
  return kinetrack::testing::readFile(path);
}

// The number after `key` in `text` (first occurrence), or NaN.
double numberAfter(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  return at == std::string::npos ? std::nan("") : std::stod(text.substr(at + key.size()));
}

TEST(CliDynamics, FiniteDifferencesByDefaultAreTheLibrarys) {
  ScratchDir dir;
  const std::string q = dir.file("q.csv"), tau = dir.file("tau.csv"), fd = dir.file("tau_fd.csv");
  writeMotion(q);
  RunResult r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", tau});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", fd, "--derivatives", "fd"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string text = kinetrack::testing::readFile(tau);
  EXPECT_EQ(text, libraryOutput(q, dir.file("library.csv")));  // byte for byte
  EXPECT_EQ(text, kinetrack::testing::readFile(fd));
}

TEST(CliDynamics, ButterworthDerivatives) {
  ScratchDir dir;
  const std::string q = dir.file("q.csv"), tau = dir.file("tau.csv");
  writeMotion(q);
  RunResult r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", tau, "--derivatives",
                        "butterworth", "--cutoff", "8"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("zero-lag Butterworth low-pass at 8 Hz"), std::string::npos) << r.out;
  EXPECT_EQ(kinetrack::testing::readFile(tau), libraryOutput(q, dir.file("library.csv"), 8.0));
  EXPECT_EQ(csvRows(tau).size(), 151u);
  const struct {
    std::vector<std::string> args;
    std::string message;
  } bad[] = {
      {{"--cutoff", "8"}, "--cutoff applies to --derivatives butterworth"},
      {{"--derivatives", "butterworth", "--cutoff", "50"}, "Nyquist"},
      {{"--derivatives", "butterworth", "--cutoff", "0"}, "--cutoff must be finite and > 0"},
      {{"--derivatives", "spline"}, "--derivatives"},
  };
  fs::remove(tau);
  for (const auto& c : bad) {
    std::vector<std::string> args = {"dynamics", "id", "--model", "human66", "--motion", q, "--out", tau};
    args.insert(args.end(), c.args.begin(), c.args.end());
    r = runCli(args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tau));
  }
}

// The ground reaction our own residual asks for, split between the feet and written as a wrench
// file: fed back with --wrench-file it leaves a base residual of ~0, and the summary shows the
// mean vertical base force with and without it.
TEST(CliDynamics, AWrenchFileWithTheGroundReactionCancelsTheResidual) {
  ScratchDir dir;
  const std::string q = dir.file("q.csv"), tau = dir.file("tau.csv"), loaded = dir.file("tau_loaded.csv");
  const std::string ground = dir.file("ground.csv");
  writeMotion(q);
  RunResult r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", tau});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::vector<std::vector<double>> motion = csvRows(q), residual = csvRows(tau);
  ASSERT_EQ(motion.size(), residual.size());
  kinetrack::io::WrenchTrajectory w;
  w.bodies.resize(2);
  w.bodies[0].body = "LeftFoot";
  w.bodies[1].body = "RightHandCOM";  // a fixed frame: its wrench goes to RightHand
  for (kinetrack::io::BodyWrenches& b : w.bodies) b.has_moment = true;
  for (std::size_t k = 0; k < motion.size(); ++k) {
    w.times.push_back(motion[k][0]);
    const kinetrack::Vector3d p_B(motion[k][1], motion[k][2], motion[k][3]);
    const kinetrack::Vector3d f(residual[k][1], residual[k][2], residual[k][3]);
    const kinetrack::Vector3d n_O = kinetrack::Vector3d(residual[k][4], residual[k][5], residual[k][6]) + p_B.cross(f);
    for (int side = 0; side < 2; ++side) {
      const double share = side == 0 ? 0.7 : 0.3;
      const kinetrack::Vector3d P = p_B + kinetrack::Vector3d(0.1, side == 0 ? 0.1 : -0.3, -0.9);
      kinetrack::io::BodyWrenches& b = w.bodies[static_cast<std::size_t>(side)];
      b.force.push_back(share * f);
      b.point.push_back(P);
      b.moment.push_back(share * n_O - P.cross(share * f));
    }
  }
  kinetrack::io::writeWrenchCsv(ground, w);
  r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", loaded, "--wrench-file", ground});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const double weight = kinetrack::makeHuman66().totalMass() * 9.80665;
  const std::vector<std::vector<double>> rows = csvRows(loaded);
  ASSERT_EQ(rows.size(), motion.size());  // one row per input row
  double worst = 0.0;
  for (const auto& row : rows)
    for (int i = 1; i <= 6; ++i) worst = std::max(worst, std::abs(row[static_cast<std::size_t>(i)]));
  EXPECT_LT(worst, 1e-9 * weight) << "base residual left by the ground reaction";
  EXPECT_NE(r.out.find("external wrenches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 bodies (LeftFoot, RightHandCOM); 0 row(s) outside"), std::string::npos) << r.out;
  const double without = numberAfter(r.out, "base vertical force, mean"), with = numberAfter(r.out, "load, ");
  EXPECT_GT(without, 0.5 * weight) << r.out;
  EXPECT_NEAR(with, 0.0, 0.05) << r.out;
}

// The joint CSV's own errors reach the user with file, line and column (readJointCsv), and a
// file whose joints are not the model's lists them (toConfigurations): exit 2, no output.
TEST(CliDynamics, MotionErrorsNameFileLineAndColumn) {
  ScratchDir dir;
  const std::string q = dir.file("q.csv"), out = dir.file("tau.csv");
  writeMotion(q);
  std::vector<std::string> lines;
  {
    std::istringstream in(kinetrack::testing::readFile(q));
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  const auto variant = [&](const std::string& name, std::size_t line, const std::string& text) {
    std::string all;
    for (std::size_t i = 0; i < lines.size(); ++i) all += (i == line ? text : lines[i]) + "\n";
    return dir.write(name, all);
  };
  std::string nan_row = lines[3];  // base_x, the second field, becomes nan
  const std::size_t x = nan_row.find(',') + 1;
  nan_row.replace(x, nan_row.find(',', x) - x, "nan");
  const std::string short_row = lines[5].substr(0, lines[5].rfind(','));
  std::string header = lines[0];
  header.replace(header.find("jLeftKnee_roty"), 14, "jLeftKnee_bend");
  const struct {
    std::string file;
    std::string message;
  } cases[] = {
      {variant("nan.csv", 3, nan_row), "nan.csv:4: column 'base_x': 'nan' is not finite"},
      {variant("short.csv", 5, short_row), "short.csv:6: expected"},
      {variant("renamed.csv", 0, header), "file columns unknown to the model: [jLeftKnee_bend]"},
  };
  for (const auto& c : cases) {
    const RunResult r = runCli({"dynamics", "id", "--model", "human66", "--motion", c.file, "--out", out});
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST(CliDynamics, WrenchFileErrorsNameFileLineAndColumn) {
  ScratchDir dir;
  const std::string q = dir.file("q.csv"), out = dir.file("tau.csv");
  writeMotion(q);  // t = 0 … 1.5 s
  const std::string header = "time,LeftFoot.fx,LeftFoot.fy,LeftFoot.fz,LeftFoot.px,LeftFoot.py,LeftFoot.pz\n";
  const std::string good = header + "0,0,0,700,0,0,0\n1.5,0,0,700,0,0,0\n";
  const std::string malformed = dir.write("malformed.csv", header + "0,0,0,700,0,0,0\n1.5,0,1.2.3,700,0,0,0\n");
  const std::string nan = dir.write("nan.csv", header + "0,0,0,700,0,0,0\n1.5,0,0,700,nan,0,0\n");
  const std::string unknown = dir.write(
      "unknown.csv",
      "# plates\ntime,LeftShoe.fx,LeftShoe.fy,LeftShoe.fz,LeftShoe.px,LeftShoe.py,LeftShoe.pz\n0,0,0,0,0,0,0\n");
  const std::string missing_column =
      dir.write("partial.csv", "time,LeftFoot.fx,LeftFoot.fy,LeftFoot.fz,LeftFoot.px,LeftFoot.py\n0,0,0,0,0,0\n");
  const std::string short_range = dir.write("short.csv", header + "0.2,0,0,700,0,0,0\n1,0,0,700,0,0,0\n");
  const std::string ok = dir.write("ok.csv", good);
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--wrench-file", dir.file("missing.csv")}, "missing.csv: cannot open file"},
      {{"--wrench-file", malformed}, "malformed.csv:3: column 'LeftFoot.fy': '1.2.3' is not a number"},
      {{"--wrench-file", nan}, "nan.csv:3: column 'LeftFoot.px': 'nan' is not finite"},
      {{"--wrench-file", unknown},
       "unknown.csv:2: column 'LeftShoe.fx': body 'LeftShoe' is neither a link nor a frame of model 'human66'"},
      {{"--wrench-file", missing_column}, "partial.csv:1: header: body 'LeftFoot' has no column 'LeftFoot.pz'"},
      {{"--wrench-file", short_range}, "--wrench-outside zero"},
      {{"--wrench-outside", "zero"}, "--wrench-outside applies to --wrench-file only"},
      {{"--wrench-file", ok, "--wrench-outside", "never"}, "--wrench-outside"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"dynamics", "id", "--model", "human66", "--motion", q, "--out", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const RunResult r = runCli(args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // Rows outside the file's range get no load when asked: 70 of 151 rows lie outside [0.2, 1] s.
  RunResult r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", out, "--wrench-file",
                        short_range, "--wrench-outside", "zero"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("70 row(s) outside its time range (no load there)"), std::string::npos) << r.out;
  r = runCli({"dynamics", "id", "--model", "human66", "--motion", q, "--out", out, "--wrench-file", ok});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
}

}  // namespace KINETRACK_UNITY_ID
