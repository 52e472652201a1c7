// Joint trajectory CSV: writer → reader round trip on human66, no partial file, no allocation
// per row, bad input to the writer, broken files naming file, line and column.
#include "kinetrack/io/table/joint_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/mutations.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::twoJointModel;

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("kinetrack_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(JointCsv, RoundTripHuman66IsExact) {
  const Model model = makeHuman66();
  std::mt19937_64 rng(41);
  std::vector<Configuration> qs;
  std::vector<double> times;
  std::vector<std::uint8_t> gaps;
  for (int f = 0; f < 50; ++f) {
    qs.push_back(randomConfiguration(model, rng));
    times.push_back(0.1 + f / 120.0);
    gaps.push_back(f % 7 == 3);
  }
  qs[5].joints[0] = -0.0;
  qs[6].joints[1] = 1e-300;
  const std::string path = tempPath("roundtrip.csv");
  {
    JointCsvWriter out(model, path);
    EXPECT_TRUE(fs::exists(path + ".part"));
    for (std::size_t f = 0; f < qs.size(); ++f) out.write(times[f], qs[f], gaps[f] != 0);
    EXPECT_EQ(out.rows(), 50);
    out.commit();
  }
  EXPECT_FALSE(fs::exists(path + ".part"));
  const std::string text = slurp(path);
  EXPECT_EQ(text.rfind("time,base_x,base_y,base_z,base_qw,base_qx,base_qy,base_qz,jL5S1_rotx,jL5S1_roty,", 0), 0u)
      << text.substr(0, 200);
  EXPECT_EQ(text.substr(text.rfind(',', text.find('\n')), 5), ",gap\n");
  const JointTrajectory t = readJointCsv(path);
  fs::remove(path);
  EXPECT_EQ(t.source, path);
  EXPECT_EQ(t.joint_names, model.jointNames());
  ASSERT_EQ(t.numFrames(), 50);
  EXPECT_EQ(t.times, times);
  EXPECT_EQ(t.gap, gaps);
  const std::vector<Configuration> back = toConfigurations(t, model);
  for (int f = 0; f < 50; ++f) {
    const Configuration& q = qs[static_cast<std::size_t>(f)];
    const Configuration& r = back[static_cast<std::size_t>(f)];
    // Shortest round-trip formatting: numbers come back bit for bit.
    EXPECT_EQ(r.base_position, q.base_position);
    EXPECT_EQ(r.joints, q.joints);
    EXPECT_EQ(t.joints.row(f).transpose(), q.joints);
    // The rotation goes through a quaternion: equal to round-off.
    EXPECT_LT((r.base_rotation - q.base_rotation).cwiseAbs().maxCoeff(), 1e-14);
  }
  EXPECT_TRUE(std::signbit(back[5].joints[0]));
  EXPECT_EQ(back[6].joints[1], 1e-300);
}

TEST(JointCsv, QuaternionHasNonNegativeW) {
  const Model model = twoJointModel();
  const std::string path = tempPath("w.csv");
  JointCsvWriter out(model, path);
  Configuration q(model);
  // Rotation by 270° about z: Eigen's quaternion has w < 0 for some inputs; the file must not.
  q.base_rotation = so3::axisAngle(Vector3d::UnitZ(), 1.5 * M_PI);
  out.write(0.0, q, false);
  out.commit();
  const JointTrajectory t = readJointCsv(path);
  fs::remove(path);
  const Eigen::Vector4d wxyz = so3::toQuaternionWxyz(t.base[0].R);
  EXPECT_GE(wxyz[0], 0.0);
  EXPECT_LT((t.base[0].R - q.base_rotation).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(JointCsv, NoPartialFileIsLeftWithoutCommit) {
  const Model model = makeHuman66();
  const std::string path = tempPath("partial.csv");
  {
    JointCsvWriter out(model, path);
    out.write(0.0, Configuration(model), false);
  }  // no commit: abandoned
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".part"));

  // An earlier complete file survives an abandoned rewrite untouched.
  {
    JointCsvWriter out(model, path);
    out.write(0.0, Configuration(model), false);
    out.commit();
  }
  const std::string before = slurp(path);
  try {
    JointCsvWriter out(model, path);
    out.write(0.0, Configuration(model), false);
    Configuration bad(model);
    bad.joints[3] = std::nan("");
    out.write(1.0, bad, false);  // throws: the file never holds NaN
    ADD_FAILURE() << "NaN was written";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), before);
  EXPECT_FALSE(fs::exists(path + ".part"));
  fs::remove(path);
}

TEST(JointCsv, WriteDoesNotAllocate) {
  const Model model = makeHuman66();
  std::mt19937_64 rng(3);
  std::vector<Configuration> qs;
  for (int i = 0; i < 16; ++i) qs.push_back(randomConfiguration(model, rng));
  const std::string path = tempPath("noalloc.csv");
  JointCsvWriter out(model, path);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    // ~1.4 kB per row: 3000 rows flush the 1 MiB buffer several times.
    for (int f = 0; f < 3000; ++f) out.write(f * 0.01, qs[static_cast<std::size_t>(f % 16)], f % 5 == 0);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  out.commit();
  EXPECT_EQ(readJointCsv(path).numFrames(), 3000);
  fs::remove(path);
}

TEST(JointCsv, WriterRejectsBadInput) {
  const Model model = twoJointModel();
  const std::string path = tempPath("bad_input.csv");
  JointCsvWriter out(model, path);
  Configuration q(model);
  out.write(1.0, q, false);
  EXPECT_THROW(out.write(1.0, q, false), InvalidArgument);  // time must increase
  EXPECT_THROW(out.write(0.5, q, false), InvalidArgument);
  EXPECT_THROW(out.write(std::nan(""), q, false), InvalidArgument);
  Configuration wrong;
  wrong.joints = VectorXd::Zero(3);
  EXPECT_THROW(out.write(2.0, wrong, false), InvalidArgument);
  q.base_position.x() = std::numeric_limits<double>::infinity();
  EXPECT_THROW(out.write(2.0, q, false), InvalidArgument);
  out.commit();
  EXPECT_THROW(out.write(3.0, Configuration(model), false), InvalidArgument);
  EXPECT_THROW(out.commit(), InvalidArgument);
  EXPECT_EQ(readJointCsv(path).numFrames(), 1);
  fs::remove(path);

  try {
    JointCsvWriter bad(model, "/nonexistent/dir/q.csv");
    ADD_FAILURE() << "opened a file in a missing directory";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/dir/q.csv");
    EXPECT_NE(e.message().find("cannot open"), std::string::npos) << e.what();
  }
}

const char* kGood =
    "# written by hand\n"
    "time,base_x,base_y,base_z,base_qw,base_qx,base_qy,base_qz,knee,hip,gap\r\n"
    "0,0,0,1,1,0,0,0,0.5,-0.25,0\n"
    "\n"
    "0.01, 0, 0, 1, 0.7071067811865476, 0, 0, 0.7071067811865476, .5, 1e-3, 1\n";

TEST(JointCsv, ReadsByNameInAnyColumnOrder) {
  const JointTrajectory t = parseJointCsv(kGood, "good.csv");
  EXPECT_EQ(t.joint_names, (std::vector<std::string>{"knee", "hip"}));
  EXPECT_EQ(t.gap, (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(t.base[1].p, Vector3d(0, 0, 1));
  EXPECT_LT((t.base[1].R - so3::axisAngle(Vector3d::UnitZ(), M_PI / 2)).norm(), 1e-15);
  const std::vector<Configuration> qs = toConfigurations(t, twoJointModel());
  EXPECT_EQ(qs[0].joints, Eigen::Vector2d(-0.25, 0.5));
  EXPECT_EQ(qs[1].joints, Eigen::Vector2d(1e-3, 0.5));

  try {
    toConfigurations(t, makeHuman66());
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("missing from the file: [jL5S1_rotx, "), std::string::npos) << what;
    EXPECT_NE(what.find("unknown to the model: [knee, hip]"), std::string::npos) << what;
  }
}

void expectError(const std::string& text, int line, const std::string& needle) {
  try {
    parseJointCsv(text, "broken.csv");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "broken.csv");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what() << "\n  expected: " << needle;
  }
}

// kGood with the n-th occurrence of `from` replaced by `to`.
std::string edit(const std::string& from, const std::string& to, int occurrence = 0) {
  std::string t = kGood;
  std::size_t p = t.find(from);
  for (int i = 0; i < occurrence; ++i) p = t.find(from, p + 1);
  return t.replace(p, from.size(), to);
}

TEST(JointCsv, BrokenFilesNameFileLineAndColumn) {
  expectError(edit(",0.5,-0.25,0", ",0.5,0"), 3, "expected 11 columns, got 10");
  expectError(edit("0.5,-0.25", "0.5,abc"), 3, "column 'hip': 'abc' is not a number");
  expectError(edit("0.5,-0.25", "0.5,+-0.25"), 3, "column 'hip': '+-0.25' is not a number");  // one sign only
  expectError(edit("0.5,-0.25", "0.5,++0.25"), 3, "column 'hip': '++0.25' is not a number");
  expectError(edit("0.5,-0.25", "0.5,nan"), 3, "column 'hip': 'nan' is not finite");
  expectError(edit("0.5,-0.25", "0.5,"), 3, "column 'hip': empty field");
  expectError(edit("0.01,", "0,"), 5, "column 'time': 0 does not increase (previous 0)");
  expectError(edit("0,0,1,1,0,0,0", "0,0,1,1,0.01,0,0"), 3, "column 'base_qw': quaternion");
  expectError(edit("-0.25,0\n", "-0.25,2\n"), 3, "column 'gap': expected 0 or 1, got '2'");
  expectError(edit("knee,hip", "knee,knee"), 2, "duplicate joint column 'knee'");
  expectError(edit("base_qw", "base_w"), 2, "column 5 must be 'base_qw', found 'base_w'");
  expectError(edit(",gap", ",gaps"), 2, "header: expected time,base_x");
  expectError("# nothing\n\n", 2, "empty file");
  EXPECT_THROW(readJointCsv("/nonexistent.csv"), ParseError);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
