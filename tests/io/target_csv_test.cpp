// Pose-target CSV: writer → reader round trip (exact numbers, gaps kept), position-only and
// orientation-only segments, comments, broken files naming file, line and column.
#include "kinetrack/io/capture/target_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("kinetrack_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A random clip of `frames` frames and three segments, with some gaps.
MotionClip randomClip(int frames, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  MotionClip c;
  c.source = "random";
  c.segment_names = {"Pelvis", "Right.Hand", "LeftFoot"};  // a dot inside a name is fine
  c.segment_parent = {-1, -1, -1};
  for (int f = 0; f < frames; ++f) {
    c.times.push_back(0.25 + f / 60.0);
    for (int s = 0; s < 3; ++s) {
      const Vector3d w = randomVector3(u, rng);
      c.poses.push_back({so3::exp(3.0 * w), randomVector3(u, rng).cwiseProduct(Vector3d(1.0, 1.0, 1e-7))});
      c.valid.push_back((f + s) % 5 != 2);
    }
  }
  return c;
}

TEST(TargetCsv, RoundTripIsExactAndKeepsGaps) {
  std::mt19937_64 rng(17);
  const MotionClip clip = randomClip(40, rng);
  const std::string path = tempPath("targets.csv");
  writeTargetCsv(clip, path);
  EXPECT_FALSE(fs::exists(path + ".part"));
  const PoseTargets t = readTargetCsv(path);
  fs::remove(path);
  EXPECT_EQ(t.clip.source, path);
  EXPECT_EQ(t.clip.segment_names, clip.segment_names);
  EXPECT_EQ(t.clip.segment_parent, clip.segment_parent);
  EXPECT_EQ(t.clip.times, clip.times);  // bit for bit
  EXPECT_EQ(t.clip.valid, clip.valid);
  EXPECT_EQ(t.position_valid, clip.valid);
  EXPECT_EQ(t.orientation_valid, clip.valid);
  EXPECT_EQ(t.has_position, (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_EQ(t.has_orientation, (std::vector<std::uint8_t>{1, 1, 1}));
  for (int f = 0; f < clip.numFrames(); ++f)
    for (int s = 0; s < clip.numSegments(); ++s) {
      if (!clip.isValid(f, s)) {
        EXPECT_TRUE(t.clip.pose(f, s).p.array().isNaN().all());  // a gap is NaN, never made up
        continue;
      }
      EXPECT_EQ(t.clip.pose(f, s).p, clip.pose(f, s).p);  // bit for bit
      // The orientation goes through a quaternion: equal to round-off.
      EXPECT_LT((t.clip.pose(f, s).R - clip.pose(f, s).R).cwiseAbs().maxCoeff(), 1e-14);
    }
  // Velocities are filled (computeVelocities), e.g. at a frame between two valid ones.
  ASSERT_EQ(t.clip.linear_velocity.size(), clip.poses.size());
  const Vector3d v = (clip.pose(1, 0).p - clip.pose(0, 0).p) / (clip.times[1] - clip.times[0]);
  EXPECT_LT((t.clip.linear_velocity[0] - v).norm(), 1e-12);
}

const char* kMixed =
    "# pose targets by hand\n"
    "time,Head.qw,Head.qx,Head.qy,Head.qz,Hand.pz,Hand.px,Hand.py,Foot.px,Foot.py,Foot.pz,Foot.qw,Foot.qx,Foot.qy,"
    "Foot.qz\r\n"
    "0.0,1,0,0,0,3,1,2,0,0,0,1,0,0,0\n"
    "# a comment between rows\n"
    "0.1,1,0,0,0,,1,2,0,0,0,1,0,0,0\n"
    "0.2,nan,0,0,0,3,1,2,0.5,0,0,NaN,NaN,NaN,NaN\n"
    "0.3,0.7071067811865476,0.7071067811865476,0,0,6,4,5,1,0,0,1,0,0,0\n";

TEST(TargetCsv, PositionOnlyOrientationOnlyAndGaps) {
  const PoseTargets t = parseTargetCsv(kMixed, "mixed.csv");
  const MotionClip& c = t.clip;
  ASSERT_EQ(c.segment_names, (std::vector<std::string>{"Head", "Hand", "Foot"}));
  EXPECT_EQ(t.has_position, (std::vector<std::uint8_t>{0, 1, 1}));
  EXPECT_EQ(t.has_orientation, (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(c.numFrames(), 4);
  // Columns in any order: Hand.pz came first.
  EXPECT_EQ(c.pose(0, 1).p, Vector3d(1, 2, 3));
  EXPECT_EQ(c.pose(3, 1).p, Vector3d(4, 5, 6));
  EXPECT_LT((c.pose(3, 0).R - so3::axisAngle(Vector3d::UnitX(), M_PI / 2)).norm(), 1e-15);
  // Frame 1: Hand.pz empty → Hand position gap; frame 2: Head quaternion NaN → gap.
  EXPECT_FALSE(c.isValid(1, 1));
  EXPECT_FALSE(t.positionValid(1, 1));
  EXPECT_TRUE(c.isValid(1, 0));
  EXPECT_FALSE(c.isValid(2, 0));
  EXPECT_FALSE(t.orientationValid(2, 0));
  // Frame 2, Foot: the position is measured, the orientation is not; nothing is dropped.
  EXPECT_FALSE(c.isValid(2, 2));
  EXPECT_TRUE(t.positionValid(2, 2));
  EXPECT_FALSE(t.orientationValid(2, 2));
  EXPECT_EQ(c.pose(2, 2).p, Vector3d(0.5, 0, 0));
  // Parts a segment does not have: identity / zero, and velocities zero for them.
  EXPECT_EQ(c.pose(0, 0).p, Vector3d::Zero());
  EXPECT_EQ(c.pose(0, 1).R, Matrix3d::Identity());
  EXPECT_EQ(c.angular_velocity[static_cast<std::size_t>(3 * 3 + 1)], Vector3d::Zero());
  // Written back, each segment keeps its columns and its gaps.
  const PoseTargets r = parseTargetCsv(toTargetCsv(t), "again.csv");
  EXPECT_EQ(r.has_position, t.has_position);
  EXPECT_EQ(r.has_orientation, t.has_orientation);
  EXPECT_EQ(r.position_valid, t.position_valid);
  EXPECT_EQ(r.orientation_valid, t.orientation_valid);
  EXPECT_EQ(r.clip.pose(2, 2).p, Vector3d(0.5, 0, 0));
}

void expectError(const std::string& text, int line, const std::string& needle) {
  try {
    parseTargetCsv(text, "broken.csv");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "broken.csv");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what() << "\n  expected: " << needle;
  }
}

std::string edit(const std::string& from, const std::string& to) {
  std::string t = kMixed;
  return t.replace(t.find(from), from.size(), to);
}

TEST(TargetCsv, BrokenFilesNameFileLineAndColumn) {
  expectError(edit("time,", "t,"), 2, "first column must be 'time', found 't'");
  expectError(edit("Hand.pz,", "Hand.z,"), 2, "column 'Hand.z': expected <segment>.px");
  expectError(edit("Hand.pz,", "Hand.px,"), 2, "column 'Hand.px': appears twice");
  expectError(edit("Head.qz,", ""), 2, "segment 'Head' has orientation columns but no 'Head.qz'");
  expectError(edit(",Foot.py", ""), 2, "segment 'Foot' has position columns but no 'Foot.py'");
  expectError(edit("0.1,1,0,0,0,,1,2", "0.1,1,0,0,0,1,2"), 5, "expected 15 fields, got 14");
  expectError(edit("0.1,1,0,0,0,,1,2", "0.1,1,0,0,0,x,1,2"), 5, "column 'Hand.pz': 'x' is not a number");
  expectError(edit("0.1,1,0,0,0,,1,2", "0.1,1,0,0,0,inf,1,2"), 5, "column 'Hand.pz': 'inf' is not finite");
  expectError(edit("0.1,", ","), 5, "column 'time': the time of a row cannot be empty or NaN");
  expectError(edit("0.2,", "0.1,"), 6, "column 'time': 0.1 does not increase (previous 0.1)");
  expectError(edit("0.3,0.7071067811865476,", "0.3,0.8,"), 7, "column 'Head.qw': quaternion (w, x, y, z) has norm");
  expectError("time\n0\n", 1, "no segment columns");
  expectError("# only comments\n", 1, "empty file");
  EXPECT_THROW(readTargetCsv("/nonexistent.csv"), ParseError);
}

TEST(TargetCsv, WriterChecksItsInput) {
  std::mt19937_64 rng(2);
  PoseTargets t = poseTargetsFromClip(randomClip(3, rng));
  t.clip.segment_names[1] = "a,b";
  EXPECT_THROW(toTargetCsv(t), InvalidArgument);
  t = poseTargetsFromClip(randomClip(3, rng));
  t.has_position[0] = t.has_orientation[0] = 0;
  EXPECT_THROW(toTargetCsv(t), InvalidArgument);
  t = poseTargetsFromClip(randomClip(3, rng));
  t.position_valid.pop_back();
  EXPECT_THROW(toTargetCsv(t), InvalidArgument);
  try {
    writeTargetCsv(randomClip(3, rng), "/nonexistent/dir/t.csv");
    ADD_FAILURE() << "wrote into a missing directory";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/dir/t.csv");
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
