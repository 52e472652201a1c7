// Unlabelled point CSV (io/point_cloud.hpp): parsing, frames without points, NaN points counted,
// every malformed line reported with file, line and field; labels stripped from a trial; TRC
// written and read back.
#include "kinetrack/io/capture/point_cloud.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

TEST(PointCsv, ParsesFramesPointsAndEmptyFrames) {
  const std::string text =
      "# points in mm\n"
      "frame,time,x,y,z\n"
      "1,0.0,1000,2000,3000\n"
      "1,0.0,4,5,6\n"
      "\n"
      "2,0.01,,,\n"
      "4,0.03,nan,1,2\n"
      "4,0.03,7,8,9\n";
  const PointCloud c = parsePointCsv(text, "p.csv", 1e-3);
  ASSERT_EQ(c.numFrames(), 3);
  EXPECT_EQ(c.frame_numbers[2], 4);
  EXPECT_EQ(c.frame(0).size(), 2u);
  EXPECT_TRUE(c.frame(0)[0].isApprox(Vector3d(1, 2, 3)));
  EXPECT_EQ(c.frame(1).size(), 0u);  // a frame without points is still a frame
  EXPECT_EQ(c.frame(2).size(), 1u);
  EXPECT_EQ(c.dropped[2], 1);  // the NaN point: dropped and counted
  EXPECT_DOUBLE_EQ(c.times[2], 0.03);
}

// Each broken input names the file, the line and the field.
TEST(PointCsv, MalformedLinesNameFileLineAndField) {
  struct Case {
    std::string text;
    int line;
    std::string needle;
  };
  const std::string h = "frame,time,x,y,z\n";
  const Case cases[] = {
      {"frame,t,x,y,z\n1,0,1,2,3\n", 1, "header"},
      {"", 0, "empty file"},
      {h + "1,0,1,2\n", 2, "expected 5 fields"},
      {h + "1,0,1,2,abc\n", 2, "field 'z'"},
      {h + "1.5,0,1,2,3\n", 2, "field 'frame'"},
      {h + "1,inf,1,2,3\n", 2, "field 'time'"},
      {h + "2,0,1,2,3\n1,0.1,1,2,3\n", 3, "field 'frame': 1 after frame 2"},
      {h + "1,0,1,2,3\n2,0,1,2,3\n", 3, "does not increase"},
      {h + "1,0,1,2,3\n1,0.5,1,2,3\n", 3, "differs"},
      {h + "1,0,1,,3\n", 2, "give all three"},
  };
  for (const Case& k : cases) {
    try {
      (void)parsePointCsv(k.text, "bad.csv");
      ADD_FAILURE() << "no error for: " << k.text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), "bad.csv");
      EXPECT_EQ(e.line(), k.line) << e.what();
      EXPECT_NE(std::string(e.what()).find(k.needle), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)parsePointCsv(h, "x.csv", 0.0), InvalidArgument);
  EXPECT_THROW((void)readPointCsv("/nonexistent/points.csv"), ParseError);
}

TEST(PointCsv, StripLabelsKeepsPresentMarkersOfEveryFrame) {
  MarkerTrajectories t;
  t.names = {"a", "b"};
  t.times = {0.0, 0.1};
  t.positions = {Vector3d(1, 2, 3), Vector3d::Constant(std::nan("")), Vector3d(4, 5, 6), Vector3d(7, 8, 9)};
  const PointCloud c = stripLabels(t);
  ASSERT_EQ(c.numFrames(), 2);
  EXPECT_EQ(c.frame(0).size(), 1u);
  EXPECT_EQ(c.frame(1).size(), 2u);
  EXPECT_EQ(c.dropped[0], 0);
}

TEST(Trc, WriteThenReadRoundTrips) {
  MarkerTrajectories t;
  t.source = "dir/x.trc";
  t.names = {"R.ASIS", "L.ASIS", "V.Sacral"};
  t.times = {0.0, 1.0 / 60.0, 2.0 / 60.0};
  t.data_rate = 60.0;
  for (int f = 0; f < 3; ++f)
    for (int m = 0; m < 3; ++m) t.positions.emplace_back(0.1 * f + m, -0.25 * m, 1.5 + 0.001 * f);
  t.positions[4] = Vector3d::Constant(std::nan(""));  // a gap
  const std::string text = toTrc(t, {.units = "mm", .frame_numbers = {5, 6, 7}});
  const MarkerTrajectories back = parseTrc(text, "back.trc", {.y_up = false});
  ASSERT_EQ(back.names, t.names);
  ASSERT_EQ(back.numFrames(), 3);
  EXPECT_DOUBLE_EQ(back.data_rate, 60.0);
  for (std::size_t k = 0; k < t.positions.size(); ++k) {
    if (!t.positions[k].allFinite()) {
      EXPECT_FALSE(back.positions[k].allFinite());
      continue;
    }
    EXPECT_LT((back.positions[k] - t.positions[k]).norm(), 1e-12) << k;
  }
  EXPECT_NE(text.find("\n5\t0\t"), std::string::npos);
  TrcWriteOptions inch;
  inch.units = "inch";
  EXPECT_THROW((void)toTrc(t, inch), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
