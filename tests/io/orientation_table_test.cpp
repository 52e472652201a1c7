// OpenSense orientation tables (issue 41): both of the shared walk's files read (8 IMUs, 100 Hz,
// unit quaternions w,x,y,z), writer → reader round trip, missing cells, and broken files naming
// file, line and column; truncated copies either parse or throw ParseError, never crash.
#include "kinetrack/io/table/orientation_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

const char* kSmall =
    "DataRate=50.000000\nDataType=Quaternion\nversion=3\nOpenSimVersion=4.1\nendheader\n"
    "time\tpelvis_imu\ttibia_r_imu\n"
    "0\t1,0,0,0\t0.5,0.5,0.5,0.5\n"
    "0.02\t0.70710678118654757,0.70710678118654757,0,0\t\n"
    "0.04\tnan\t0,0,0,1\n";

std::string parseMessage(const std::string& text) {
  try {
    parseOrientationTable(text, "q.sto");
  } catch (const ParseError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return "";
}

TEST(OrientationTable, ReadsOpenSenseWalk) {
  KINETRACK_REQUIRE_SHARED(walk, "data/opensim/opensense_imu_walk/walking_orientations.sto");
  KINETRACK_REQUIRE_SHARED(place, "data/opensim/opensense_imu_walk/placement_orientations.sto");
  const OrientationTable t = readOrientationTable(walk);
  EXPECT_EQ(t.numSensors(), 8);
  EXPECT_EQ(t.names.front(), "torso_imu");
  EXPECT_EQ(t.names.back(), "calcn_l_imu");
  EXPECT_EQ(t.numFrames(), 2432);
  EXPECT_DOUBLE_EQ(t.data_rate, 100.0);
  EXPECT_NEAR(t.times[1] - t.times[0], 0.01, 1e-12);
  // The file's first cell, normalised (it is a unit quaternion to ~1e-16).
  const Eigen::Quaterniond& q = t.orientation(0, 0);
  EXPECT_NEAR(q.w(), 0.5105588968224414, 1e-15);
  EXPECT_NEAR(q.z(), 0.2882240976375608, 1e-15);
  for (int f = 0; f < t.numFrames(); ++f)
    for (int i = 0; i < t.numSensors(); ++i) ASSERT_NEAR(t.orientation(f, i).norm(), 1.0, 1e-12);
  const OrientationTable p = readOrientationTable(place);
  EXPECT_EQ(p.names, t.names);
  EXPECT_GE(p.numFrames(), 1);
  EXPECT_EQ(t.find("pelvis_imu"), 1);
  EXPECT_EQ(t.find("head_imu"), -1);
}

TEST(OrientationTable, MissingCellsAndRoundTrip) {
  const OrientationTable t = parseOrientationTable(kSmall, "q.sto");
  ASSERT_EQ(t.numFrames(), 3);
  EXPECT_DOUBLE_EQ(t.data_rate, 50.0);
  EXPECT_TRUE(t.isValid(0, 0));
  EXPECT_FALSE(t.isValid(1, 1));  // empty cell
  EXPECT_FALSE(t.isValid(2, 0));  // nan
  EXPECT_EQ(t.lines, (std::vector<int>{7, 8, 9}));
  const OrientationTable r = parseOrientationTable(toOrientationSto(t), "r.sto");
  EXPECT_EQ(r.names, t.names);
  EXPECT_EQ(r.times, t.times);
  for (std::size_t k = 0; k < t.orientations.size(); ++k) {
    if (!t.orientations[k].coeffs().allFinite()) {
      EXPECT_FALSE(r.orientations[k].coeffs().allFinite());
      continue;
    }
    EXPECT_LT((r.orientations[k].coeffs() - t.orientations[k].coeffs()).norm(), 1e-15);
  }
  OrientationTable bad = t;
  bad.orientations.pop_back();
  EXPECT_THROW(toOrientationSto(bad), InvalidArgument);
}

TEST(OrientationTable, BrokenFilesNameLineAndColumn) {
  const std::string head = "DataType=Quaternion\nendheader\ntime\tpelvis_imu\n";
  EXPECT_NE(parseMessage("time\tpelvis_imu\n0\t1,0,0,0\n").find("endheader"), std::string::npos);
  EXPECT_NE(parseMessage("DataType=Vec3\nendheader\ntime\ta\n0\t1,0,0\n").find("DataType is 'Vec3'"),
            std::string::npos);
  EXPECT_NE(parseMessage("endheader\nframe\ta\n").find("first column must be 'time'"), std::string::npos);
  EXPECT_NE(parseMessage("endheader\ntime\ta\ta\n0\t1,0,0,0\t1,0,0,0\n").find("'a' appears twice"), std::string::npos);
  EXPECT_NE(parseMessage(head + "0\t1,0,0\n").find("q.sto:4: column 'pelvis_imu': '1,0,0' is not a quaternion"),
            std::string::npos);
  EXPECT_NE(parseMessage(head + "0\t1,0,x,0\n").find("is not a quaternion"), std::string::npos);
  EXPECT_NE(parseMessage(head + "0\t2,0,0,0\n").find("norm 2"), std::string::npos);
  EXPECT_NE(parseMessage(head + "0\t1,0,0,0\t1,0,0,0\n").find("expected 2 cells"), std::string::npos);
  EXPECT_NE(parseMessage(head + "0.1\t1,0,0,0\n0.1\t1,0,0,0\n").find("q.sto:5: time 0.1 does not increase"),
            std::string::npos);
  EXPECT_NE(parseMessage(head + "inf\t1,0,0,0\n").find("not a finite number"), std::string::npos);
  EXPECT_NE(parseMessage(head).find("no data row"), std::string::npos);
  EXPECT_NE(parseMessage("DataRate=fast\nendheader\n").find("DataRate"), std::string::npos);
  EXPECT_THROW(readOrientationTable("/nonexistent/q.sto"), ParseError);
}

// Every truncation of a small table either parses into a consistent table or throws ParseError.
TEST(OrientationTable, TruncatedCopiesParseOrThrow) {
  const std::string text = kSmall;
  for (std::size_t n = 0; n <= text.size(); ++n) {
    try {
      const OrientationTable t = parseOrientationTable(text.substr(0, n), "q.sto");
      ASSERT_EQ(t.orientations.size(), t.times.size() * t.names.size());
    } catch (const ParseError&) {
    }
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
