// MVNX reader: both fixtures (v3 and v4), the BVH ⇄ MVNX cross-check of the Xsens capture,
// broken and truncated files.
#include "kinetrack/io/capture/mvnx.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Mvnx, Version4UpperBodyCapture) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const MvnxFile f = readMvnx(path);
  EXPECT_EQ(f.version, 4);
  EXPECT_DOUBLE_EQ(f.frame_rate, 60.0);
  EXPECT_EQ(f.configuration, "UpperBody");
  ASSERT_EQ(f.segments.size(), 23u);
  EXPECT_EQ(f.segments[0].label, "Pelvis");
  EXPECT_EQ(f.segments[22].label, "LeftToe");
  EXPECT_LT((f.segments[0].points.at("jL5S1") - Vector3d(-0.000220, 0, 0.114960)).norm(), 1e-12);
  EXPECT_EQ(f.frames.size(), 112u);
  EXPECT_EQ(f.calibration.count("identity"), 1u);
  EXPECT_EQ(f.calibration.count("tpose"), 1u);
  EXPECT_EQ(f.calibration.count("tpose-isb"), 1u);
  EXPECT_NEAR(f.frames[1].time, 1.0 / 60.0, 1e-15);
  const MotionClip clip = mvnxToClip(f);
  ASSERT_EQ(clip.numFrames(), 112);
  ASSERT_EQ(clip.numSegments(), 23);
  ASSERT_EQ(clip.angular_velocity.size(), clip.poses.size());  // the file's own velocities
  for (int k = 0; k < clip.numFrames(); ++k)
    for (int s = 0; s < clip.numSegments(); ++s) {
      ASSERT_TRUE(clip.isValid(k, s));
      const Matrix3d& R = clip.pose(k, s).R;
      ASSERT_LT((R.transpose() * R - Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-12);
    }
  // The segment tree of <joints>: the pelvis is the root, each limb a chain.
  ASSERT_EQ(f.parents.size(), 23u);
  auto parentOf = [&](const char* label) {
    const int s = clip.findSegment(label);
    return s < 0 || clip.segment_parent[static_cast<std::size_t>(s)] < 0
               ? std::string("-")
               : clip.segment_names[static_cast<std::size_t>(clip.segment_parent[static_cast<std::size_t>(s)])];
  };
  EXPECT_EQ(parentOf("Pelvis"), "-");
  EXPECT_EQ(parentOf("L5"), "Pelvis");
  EXPECT_EQ(parentOf("RightUpperArm"), "RightShoulder");
  EXPECT_EQ(parentOf("RightShoulder"), "T8");
  EXPECT_EQ(parentOf("LeftUpperLeg"), "Pelvis");
  EXPECT_EQ(parentOf("LeftToe"), "LeftFoot");
  EXPECT_EQ(std::count(clip.segment_parent.begin(), clip.segment_parent.end(), -1), 1);
  const MotionClip tpose = mvnxCalibrationPose(f, "tpose");
  EXPECT_EQ(tpose.segment_parent, clip.segment_parent);
  EXPECT_EQ(tpose.numFrames(), 1);
  EXPECT_NEAR(tpose.pose(0, 0).p.z(), 0.863902, 1e-12);  // pelvis height in the T-pose
  EXPECT_THROW(mvnxCalibrationPose(f, "npose"), InvalidArgument);
}

TEST(Mvnx, Version3FullBodyCaptureWithCalibrationFrames) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/Meri-020.mvnx");
  const MvnxFile f = readMvnx(path);
  EXPECT_EQ(f.version, 3);
  EXPECT_DOUBLE_EQ(f.frame_rate, 240.0);
  ASSERT_EQ(f.segments.size(), 23u);
  EXPECT_FALSE(f.segments[0].points.empty());  // pos_s in v3
  EXPECT_EQ(f.frames.size(), 4u);
  EXPECT_EQ(f.calibration.count("npose"), 1u);
  EXPECT_EQ(f.calibration.count("tpose"), 1u);
  const MotionClip clip = mvnxToClip(f);
  EXPECT_EQ(clip.numFrames(), 4);
  EXPECT_NEAR(clip.times[3] - clip.times[0], 3.0 / 240.0, 1e-15);
  // Full body, standing: head well above the feet (Z up, metres).
  const int head = clip.findSegment("Head"), foot = clip.findSegment("RightFoot");
  ASSERT_GE(head, 0);
  ASSERT_GE(foot, 0);
  EXPECT_GT(clip.pose(0, head).p.z() - clip.pose(0, foot).p.z(), 1.2);
}

TEST(Mvnx, AgreesWithTheXsensBvhExportOfTheSameCapture) {
  // ../shared/data/README.md: BVH frame k ≥ 1 root position = 100 × MVNX frame k pelvis position,
  // axes (X,Y,Z)_BVH = (Y,Z,X)_MVNX. Our BVH reader maps Y-up to Z-up, so after it both clips
  // must agree in metres; orientation increments agree when the BVH rotation orders are right.
  KINETRACK_REQUIRE_SHARED(mvnx_path, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(bvh_path, "data/bvh/xsens/xsens_test_mocap.bvh");
  const MotionClip m = mvnxToClip(readMvnx(mvnx_path));
  const MotionClip b = bvhToClip(readBvh(bvh_path));
  ASSERT_EQ(m.numFrames(), b.numFrames());
  const int mp = m.findSegment("Pelvis"), bp = b.findSegment("Hips");
  ASSERT_GE(mp, 0);
  ASSERT_GE(bp, 0);
  double worst_p = 0.0, worst_r = 0.0;
  for (int k = 1; k < m.numFrames(); ++k) {
    worst_p = std::max(worst_p, (m.pose(k, mp).p - b.pose(k, bp).p).cwiseAbs().maxCoeff());
    const Matrix3d dm = m.pose(k, mp).R * m.pose(1, mp).R.transpose();
    const Matrix3d db = b.pose(k, bp).R * b.pose(1, bp).R.transpose();
    worst_r = std::max(worst_r, (dm - db).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst_p, 1e-6);  // MVNX prints metres with 6 decimals
  EXPECT_LT(worst_r, 1e-4);
}

void expectError(const std::string& xml, int line, const std::string& needle) {
  try {
    parseMvnx(xml, "broken.mvnx");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "broken.mvnx");
    if (line > 0) {
      EXPECT_EQ(e.line(), line) << e.what();
    }
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what() << "\n  expected: " << needle;
  }
}

int lineOf(const std::string& text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

TEST(Mvnx, BrokenFilesNameFileLineAndField) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const std::string good = slurp(path);
  // A value dropped from the first normal frame's orientation.
  std::string t = good;
  std::size_t at = t.find("<orientation>", t.find("<frame time=\"0\" index=\"0\""));
  std::size_t sp = t.find(' ', at);
  t.erase(at + 13, sp - (at + 13) + 1);
  expectError(t, lineOf(t, at), "frame 0 <orientation> (23 segments × 4): expected 92 numbers, got 91");
  // A non-numeric position value.
  t = good;
  at = t.find("<position>", t.find("<frame time=\"83\" index=\"5\""));
  t.replace(at + 10, t.find(' ', at) - (at + 10), "abc");
  expectError(t, lineOf(t, at), "frame 5 <position> (23 segments × 3): value 1 'abc' is not a number");
  // A joint naming a segment that is not there; a segment with two parents.
  t = good;
  at = t.find("<connector2>L5/jL5S1");
  t.replace(at + 12, 2, "L9");
  expectError(t, lineOf(t, at), "<connector2> names segment 'L9', not in <segments>");
  t = good;
  at = t.find("<connector2>T12/jL1T12");
  t.replace(at + 12, 3, "L5");
  expectError(t, 0, "segment 'L5' has two parent joints");
  // Missing frame rate, malformed XML, non-increasing index.
  t = good;
  at = t.find("frameRate=\"60\"");
  t.replace(at, 14, "frameRatX=\"60\"");
  expectError(t, lineOf(t, at), "frameRate must be a positive number");
  expectError(good.substr(0, good.size() / 2), 0, "malformed XML");
  t = good;
  at = t.find("index=\"7\"");
  t.replace(at, 9, "index=\"6\"");
  expectError(t, lineOf(t, at), "frame index 6 does not increase");
  EXPECT_THROW(readMvnx("/nonexistent/capture.mvnx"), ParseError);
}

TEST(Mvnx, TruncatedCopiesFailCleanly) {
  for (const char* name : {"data/mvnx/test_mocap.mvnx", "data/mvnx/Meri-020.mvnx"}) {
    const std::string path = testing::sharedFile(name);
    if (path.empty()) GTEST_SKIP() << "../shared/" << name << " not found";
    const std::string text = slurp(path);
    for (double cut : {0.001, 0.2, 0.6, 0.95, 0.9999})
      EXPECT_THROW(parseMvnx(text.substr(0, static_cast<std::size_t>(cut * static_cast<double>(text.size()))), name),
                   ParseError)
          << name << " cut at " << cut;
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
