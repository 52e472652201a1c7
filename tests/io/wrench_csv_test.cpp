// External-wrench CSV: writer → reader round trip (exact numbers), optional moments, any column
// order, comments; broken files naming file, line and column; binding body names to links of a
// model (a link, a fixed frame, an unknown name); resampling at motion times (linear in the
// spatial force, exact at sample times, the outside-the-range policy).
#include "kinetrack/io/table/wrench_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <filesystem>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("kinetrack_" + std::to_string(::getpid()) + "_" + name)).string();
}

// Two bodies over `samples` samples: a foot with a free moment, a hand frame without.
WrenchTrajectory randomWrenches(int samples, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  WrenchTrajectory w;
  w.bodies.resize(2);
  w.bodies[0].body = "LeftFoot";
  w.bodies[0].has_moment = true;
  w.bodies[1].body = "RightHandCOM";
  for (int k = 0; k < samples; ++k) {
    w.times.push_back(0.1 + k / 1000.0);
    for (BodyWrenches& b : w.bodies) {
      const Vector3d f = randomVector3(u, rng);
      b.force.emplace_back(100.0 * f.x(), 100.0 * f.y(), 700.0 + 1e-7 * f.z());
      b.point.push_back(randomVector3(u, rng).cwiseProduct(Vector3d(1.0, 1.0, 1e-3)));
      b.moment.push_back(b.has_moment ? randomVector3(u, rng) : Vector3d::Zero());
    }
  }
  return w;
}

// The ParseError of parsing `text`, or a failed test.
ParseError parseError(const std::string& text) {
  try {
    parseWrenchCsv(text, "w.csv");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return ParseError("", -1, "");
}

TEST(WrenchCsv, RoundTripIsExact) {
  std::mt19937_64 rng(5);
  const WrenchTrajectory w = randomWrenches(30, rng);
  const std::string path = tempPath("wrenches.csv");
  writeWrenchCsv(path, w);
  EXPECT_FALSE(fs::exists(path + ".part"));
  const WrenchTrajectory r = readWrenchCsv(path);
  fs::remove(path);
  EXPECT_EQ(r.source, path);
  EXPECT_EQ(r.header_line, 2);  // after the units comment
  EXPECT_EQ(r.times, w.times);  // bit for bit
  ASSERT_EQ(r.numBodies(), 2);
  for (int b = 0; b < 2; ++b) {
    const BodyWrenches &x = r.bodies[static_cast<std::size_t>(b)], &y = w.bodies[static_cast<std::size_t>(b)];
    EXPECT_EQ(x.body, y.body);
    EXPECT_EQ(x.has_moment, y.has_moment);
    EXPECT_EQ(x.force, y.force);
    EXPECT_EQ(x.point, y.point);
    EXPECT_EQ(x.moment, y.moment);
  }
}

TEST(WrenchCsv, ColumnsInAnyOrderCommentsAndOptionalMoments) {
  const std::string text =
      "# force plates\r\n"
      "time, B.pz, B.px, B.py, B.fz, B.fy, B.fx, Left.Foot.fx,Left.Foot.fy,Left.Foot.fz,Left.Foot.px,Left.Foot.py,"
      "Left.Foot.pz,Left.Foot.mz,Left.Foot.my,Left.Foot.mx\r\n"
      "\n"
      "0, 3, 1, 2, 6, 5, 4, 1,2,3,4,5,6,9,8,7\r\n"
      "# a comment between rows\n"
      "0.5, 0, 0, 0, 0, 0, 0, 0,0,0,0,0,0,0,0,+1e-3\n";
  const WrenchTrajectory w = parseWrenchCsv(text, "plates.csv");
  EXPECT_EQ(w.header_line, 2);
  EXPECT_EQ(w.times, (std::vector<double>{0.0, 0.5}));
  ASSERT_EQ(w.numBodies(), 2);
  EXPECT_EQ(w.bodies[0].body, "B");
  EXPECT_FALSE(w.bodies[0].has_moment);
  EXPECT_EQ(w.bodies[0].force[0], Vector3d(4, 5, 6));
  EXPECT_EQ(w.bodies[0].point[0], Vector3d(1, 2, 3));
  EXPECT_EQ(w.bodies[0].moment[0], Vector3d::Zero());
  EXPECT_EQ(w.bodies[1].body, "Left.Foot");  // the name is everything before the last '.'
  EXPECT_TRUE(w.bodies[1].has_moment);
  EXPECT_EQ(w.bodies[1].moment[0], Vector3d(7, 8, 9));
  EXPECT_EQ(w.bodies[1].moment[1], Vector3d(1e-3, 0, 0));
}

TEST(WrenchCsv, BrokenFilesNameFileLineAndColumn) {
  const std::string header = "time,F.fx,F.fy,F.fz,F.px,F.py,F.pz\n";
  const struct {
    std::string text;
    int line;
    std::string message;
  } cases[] = {
      {"", 0, "no header"},
      {"# only a comment\n", 1, "no header"},
      {header, 1, "no data rows"},
      {"t,F.fx\n", 1, "first column must be 'time'"},
      {"time,F.fx,F.fy,F.fz,F.px,F.py,F.pz,F.qw\n0,0,0,0,0,0,0,0\n", 1, "column 'F.qw': expected <body>.fx"},
      {"time,Ffx\n", 1, "column 'Ffx'"},
      {"time,.fx\n", 1, "column '.fx'"},
      {"time,F.fx,F.fy,F.fz,F.px,F.py,F.pz,F.fx\n", 1, "column 'F.fx': appears twice"},
      {"time,F.fx,F.fy,F.fz,F.px,F.py\n0,0,0,0,0,0\n", 1, "no column 'F.pz'"},
      {"time,F.fx,F.fy,F.fz,F.px,F.py,F.pz,F.mx,F.mz\n", 1, "has moment columns but no 'F.my'"},
      {"time\n0\n", 1, "no wrench columns"},
      {header + "0,1,2,3,4,5\n", 2, "expected 7 fields, got 6"},
      {header + "0,1,2,3,4,5,6\n\n0.1,1,2,1.2.3,4,5,6\n", 4, "column 'F.fz': '1.2.3' is not a number"},
      {header + "0,1,2,3,4,5,6\n0.1,1,nan,3,4,5,6\n", 3, "column 'F.fy': 'nan' is not finite"},
      {header + "0,1,2,3,4,5,6\n0.1,1,2,3,inf,5,6\n", 3, "column 'F.px': 'inf' is not finite"},
      {header + "0,1,2,3,4,5,6\n0.1,1,2,3,4,,6\n", 3, "column 'F.py': empty field"},
      {header + "0,1,2,3,4,5,6\n0,1,2,3,4,5,6\n", 3, "column 'time': 0 does not increase (previous 0)"},
      {header + "nan,1,2,3,4,5,6\n", 2, "column 'time': 'nan' is not finite"},
  };
  for (const auto& c : cases) {
    const ParseError e = parseError(c.text);
    EXPECT_EQ(e.file(), "w.csv") << c.text;
    EXPECT_EQ(e.line(), c.line) << c.text << "\n" << e.what();
    EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
  }
  try {
    readWrenchCsv(tempPath("no_such_wrenches.csv"));
    ADD_FAILURE() << "no error for a missing file";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("no_such_wrenches.csv"), std::string::npos);
  }
}

TEST(WrenchCsv, BodiesBindToLinksAndFrames) {
  const Model m = makeHuman66();
  const WrenchTrajectory w = parseWrenchCsv(
      "# c\ntime,LeftFoot.fx,LeftFoot.fy,LeftFoot.fz,LeftFoot.px,LeftFoot.py,LeftFoot.pz,RightHandCOM.fx,"
      "RightHandCOM.fy,RightHandCOM.fz,RightHandCOM.px,RightHandCOM.py,RightHandCOM.pz\n0,0,0,0,0,0,0,0,0,0,0,0,0\n",
      "w.csv");
  const std::vector<LinkId> links = bindWrenchBodies(w, m);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0], m.linkId("LeftFoot"));
  EXPECT_EQ(links[1], m.linkId("RightHand"));  // a fixed frame's wrench acts on its link
  WrenchTrajectory unknown = w;
  unknown.bodies[1].body = "LeftShoe";
  try {
    bindWrenchBodies(unknown, m);
    ADD_FAILURE() << "no error for an unknown body";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "w.csv");
    EXPECT_EQ(e.line(), 2);  // the header
    EXPECT_NE(e.message().find("column 'LeftShoe.fx': body 'LeftShoe' is neither a link nor a frame of model "
                               "'human66'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(e.message().find("LeftFoot"), std::string::npos) << "lists the valid names";
  }
}

TEST(WrenchCsv, ResamplingIsLinearInTheSpatialForce) {
  // A load linear in time, F(t) = F0 + F1 t at P(t) = P0 + P1 t with T(t) such that the moment
  // about the origin is n(t) = n0 + n1 t: sampled unevenly, resampled anywhere, it is exact.
  const Vector3d F0(10, -20, 700), F1(5, 1, -30), P0(0.1, 0.2, 0), P1(0.3, -0.1, 0.01), n0(1, 2, 3), n1(-4, 0.5, 2);
  const auto force = [&](double t) { return Vector3d(F0 + F1 * t); };
  const auto point = [&](double t) { return Vector3d(P0 + P1 * t); };
  const auto origin_moment = [&](double t) { return Vector3d(n0 + n1 * t); };
  WrenchTrajectory w;
  w.source = "w.csv";
  w.bodies.resize(1);
  w.bodies[0].body = "LeftFoot";
  w.bodies[0].has_moment = true;
  for (const double t : {0.0, 0.1, 0.25, 0.3, 0.7, 1.0}) {
    w.times.push_back(t);
    w.bodies[0].force.push_back(force(t));
    w.bodies[0].point.push_back(point(t));
    w.bodies[0].moment.push_back(origin_moment(t) - point(t).cross(force(t)));
  }
  const std::vector<double> times = {0.0, 0.05, 0.1, 0.2, 0.29, 0.5, 0.99, 1.0 + 5e-10};
  const WrenchTrajectory r = resampleWrenches(w, times);
  EXPECT_EQ(r.times, times);
  EXPECT_EQ(r.bodies[0].body, "LeftFoot");
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = std::min(times[k], 1.0);
    const BodyWrenches& b = r.bodies[0];
    EXPECT_LT((b.force[k] - force(t)).norm(), 1e-12) << t;
    EXPECT_LT((b.point[k] - point(t)).norm(), 1e-12) << t;
    EXPECT_LT((b.moment[k] + b.point[k].cross(b.force[k]) - origin_moment(t)).norm(), 1e-10) << t;
  }
  // At a sample time the sample is copied bit for bit.
  EXPECT_EQ(r.bodies[0].moment[2], w.bodies[0].moment[1]);
  // Outside the range: an error naming the time and the file, or no load.
  const std::vector<double> late = {0.5, 1.1};
  try {
    resampleWrenches(w, late);
    ADD_FAILURE() << "no error outside the range";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("time 1.1 s (row 1) is outside the time range [0, 1] s"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("w.csv"), std::string::npos);
  }
  const WrenchTrajectory z = resampleWrenches(w, late, WrenchOutside::Zero);
  EXPECT_EQ(z.bodies[0].force[1], Vector3d::Zero());
  EXPECT_EQ(z.bodies[0].moment[1], Vector3d::Zero());
  EXPECT_LT((z.bodies[0].force[0] - force(0.5)).norm(), 1e-12);
  const std::vector<double> decreasing = {0.5, 0.4};
  EXPECT_THROW(resampleWrenches(w, decreasing), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
