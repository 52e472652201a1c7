// OpenSim TRC (markers) and MOT (coordinates) readers, the MOT writer round trip, broken files.
#include "kinetrack/io/table/opensim_table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

TEST(OpenSim, TrcWalkMarkersInMetresZUp) {
  KINETRACK_REQUIRE_SHARED(path, "data/opensim/gait2354_walk/subject01_walk1.trc");
  const MarkerTrajectories m = readTrc(path);
  EXPECT_EQ(m.numMarkers(), 41);
  EXPECT_EQ(m.numFrames(), 151);
  EXPECT_DOUBLE_EQ(m.data_rate, 60.0);
  EXPECT_EQ(m.names[0], "R.ASIS");
  // Frame 1, R.ASIS = (617.24762, 1055.27502, 170.78198) mm, Y up → (z, x, y) m.
  EXPECT_LT((m.position(0, 0) - Vector3d(0.17078198, 0.61724762, 1.05527502)).norm(), 1e-12);
  EXPECT_DOUBLE_EQ(m.times[1], 0.017);
  // R.ASIS is seen in almost every frame.
  int valid = 0;
  for (int f = 0; f < m.numFrames(); ++f) valid += m.isValid(f, 0);
  EXPECT_GT(valid, 140);
}

TEST(OpenSim, MotReferenceIkAndRoundTrip) {
  KINETRACK_REQUIRE_SHARED(path, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  const MotTable t = readMot(path);
  EXPECT_TRUE(t.in_degrees);
  EXPECT_EQ(t.times.size(), 73u);
  EXPECT_EQ(t.columns.size(), 23u);
  EXPECT_EQ(t.columns[0], "pelvis_tilt");
  EXPECT_DOUBLE_EQ(t.times[0], 0.4);
  EXPECT_DOUBLE_EQ(t.values(0, 0), 4.84455933);
  const std::string out = (std::filesystem::temp_directory_path() / "kinetrack_mot_roundtrip.mot").string();
  writeMot(t, out);
  const MotTable r = readMot(out);
  std::filesystem::remove(out);
  EXPECT_EQ(r.columns, t.columns);
  EXPECT_EQ(r.times, t.times);
  EXPECT_EQ(r.in_degrees, t.in_degrees);
  EXPECT_EQ((r.values - t.values).cwiseAbs().maxCoeff(), 0.0);  // 17 digits: exact
  EXPECT_THROW(writeMot(t, "/nonexistent/dir/out.mot"), ParseError);
}

const char* kTrc =
    "PathFileType\t4\t(X/Y/Z)\tx.trc\n"
    "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
    "100\t100\t3\t2\tmm\n"
    "Frame#\tTime\tA\t\t\tB\t\t\n"
    "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\n"
    "\n"
    "1\t0.00\t1\t2\t3\t4\t5\t6\n"
    "2\t0.01\t1\t2\t3\t\t\t\n"
    "3\t0.02\t1\t2\t3\t4\t5\t6\n";

void expectError(const std::string& text, int line, const std::string& needle, bool trc = true) {
  try {
    if (trc)
      parseTrc(text, "broken.trc");
    else
      parseMot(text, "broken.mot");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what() << "\n  expected: " << needle;
  }
}

TEST(OpenSim, TrcMissingMarkersAreGapsAndBrokenFilesNameLineAndField) {
  const MarkerTrajectories m = parseTrc(kTrc, "x.trc");
  EXPECT_TRUE(m.isValid(0, 1));
  EXPECT_FALSE(m.isValid(1, 1));  // empty fields: missing marker
  EXPECT_TRUE(m.isValid(1, 0));
  std::string t = kTrc;
  t.replace(t.find("3\t0.02\t1"), 8, "3\t0.02\tq");
  expectError(t, 9, "marker 'A' X: 'q' is not a number");
  t = kTrc;
  t.replace(t.find("3\t0.02"), 6, "3\t0.01");
  expectError(t, 9, "time 0.01 does not increase");
  t = kTrc;
  expectError(t.substr(0, t.find("3\t0.02")), 9, "truncated file: NumFrames 3 but 2 data rows");
  t = kTrc;
  t.replace(t.find("\tmm"), 3, "\tft");
  expectError(t, 3, "Units: 'ft'");
  t = kTrc;
  t.replace(t.find("B\t\t\n"), 1, "A");
  expectError(t, 4, "duplicate marker name 'A'");
  EXPECT_THROW(readTrc("/nonexistent.trc"), ParseError);
}

TEST(OpenSim, BrokenMotFiles) {
  const std::string good = "Coordinates\nversion=1\ninDegrees=no\nendheader\ntime\ta\tb\n0\t1\t2\n0.1\t3\t4\n";
  const MotTable t = parseMot(good, "x.mot");
  EXPECT_EQ(t.values(1, 1), 4.0);
  expectError("Coordinates\nversion=1\ntime\ta\n0\t1\n", 5, "no 'endheader'", false);
  expectError("x\nendheader\ntime\ta\tb\n0\t1\n", 4, "expected 3 values", false);
  expectError("x\nendheader\ntime\ta\tb\n0\t1\tz\n", 4, "column 'b': 'z' is not a number", false);
  expectError("x\nendheader\ntime\ta\n0\t1\n0\t2\n", 5, "time does not increase", false);
  expectError("x\nendheader\nt\ta\n0\t1\n", 3, "first column must be 'time'", false);
}

// OpenSim's Rajagopal walk puts two tabs between its header values.
TEST(Trc, HeaderValuesSeparatedByTwoTabs) {
  const std::string text =
      "PathFileType  4\t(X/Y/Z) walk.trc\n"
      "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n"
      "  100.0\t\t  100.0\t\t    2\t\t     1\t\t mm\t  100.0\t      1\t    2\n"
      "Frame#\tTime\tA\t\t\n"
      "\t\tX1\tY1\tZ1\n"
      "\n"
      "1\t0.00\t1\t2\t3\n"
      "2\t0.01\t4\t5\t6\n";
  const MarkerTrajectories m = parseTrc(text, "walk.trc", {.y_up = false});
  EXPECT_EQ(m.data_rate, 100.0);
  ASSERT_EQ(m.numFrames(), 2);
  EXPECT_TRUE(m.position(1, 0).isApprox(Vector3d(0.004, 0.005, 0.006)));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
