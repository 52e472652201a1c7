// BVH reader: every clip of ../shared/data/bvh against its CLIPS.csv row, FK sanity in the Z-up
// world, velocities, and broken files naming file, line and field.
#include "kinetrack/io/capture/bvh.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

struct ClipRow {
  std::string file;
  double fps = 0;
  int frames = 0, joints = 0;
  std::string units;
};

// CLIPS.csv: quoted fields may contain commas.
std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.push_back(cur), cur.clear();
    else
      cur += c;
  }
  out.push_back(cur);
  return out;
}

std::vector<ClipRow> clipRows(const std::string& csv) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<ClipRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = splitCsv(line);
    rows.push_back({f[0], std::stod(f[5]), std::stoi(f[6]), std::stoi(f[8]), f[11]});
  }
  return rows;
}

double expectedScale(const std::string& units) {
  if (units == "cm") return 0.01;
  if (units == "m") return 1.0;
  if (units.rfind("CMU", 0) == 0) return 0.056444;
  if (units.find("inches") != std::string::npos) return 0.0254;
  return -1.0;
}

TEST(Bvh, EveryClipParsesAsDescribedInClipsCsv) {
  KINETRACK_REQUIRE_SHARED(csv, "data/bvh/CLIPS.csv");
  const auto rows = clipRows(csv);
  ASSERT_EQ(rows.size(), 20u);
  for (const ClipRow& r : rows) {
    SCOPED_TRACE(r.file);
    const std::string path = testing::sharedFile("data/" + r.file);
    ASSERT_FALSE(path.empty());
    const BvhFile f = readBvh(path);
    EXPECT_EQ(f.motion.rows(), r.frames);
    EXPECT_NEAR(1.0 / f.frame_time, r.fps, 1e-3 * r.fps);
    int joints = 0;
    for (const BvhJoint& j : f.joints) joints += j.end_site ? 0 : 1;
    EXPECT_EQ(joints, r.joints);
    EXPECT_EQ(bvhScale(f, BvhUnits::Auto), expectedScale(r.units));

    // Forward kinematics in the Z-up world: the body's vertical extent stays that of a person
    // (a wrong axis mapping would lay it down, a wrong unit or OFFSET rule would stretch it).
    const MotionClip clip = bvhToClip(f);
    ASSERT_EQ(clip.numFrames(), r.frames);
    ASSERT_EQ(clip.numSegments(), r.joints);
    double min_extent = 1e9, max_extent = 0.0;
    for (int fr = 0; fr < clip.numFrames(); fr += 5) {
      double lo = 1e9, hi = -1e9;
      for (int s = 0; s < clip.numSegments(); ++s) {
        ASSERT_TRUE(clip.isValid(fr, s));
        lo = std::min(lo, clip.pose(fr, s).p.z());
        hi = std::max(hi, clip.pose(fr, s).p.z());
        const Matrix3d& R = clip.pose(fr, s).R;
        ASSERT_LT((R.transpose() * R - Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-12);
      }
      min_extent = std::min(min_extent, hi - lo);
      max_extent = std::max(max_extent, hi - lo);
    }
    std::printf("%-60s vertical extent %.2f–%.2f m\n", r.file.c_str(), min_extent, max_extent);
    EXPECT_GT(min_extent, 0.6);
    EXPECT_GT(max_extent, 1.2);
    EXPECT_LT(max_extent, 2.5);
  }
}

constexpr const char* kSmall =
    "HIERARCHY\r\n"
    "ROOT Hips\r\n{\r\n\tOFFSET 0 100 0\r\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\r\n"
    "\tJOINT Spine\r\n\t{\r\n\t\tOFFSET 0 50 0\r\n\t\tCHANNELS 3 Yrotation Xrotation Zrotation\r\n"
    "\t\tEnd Site\r\n\t\t{\r\n\t\t\tOFFSET 0 30 0\r\n\t\t}\r\n\t}\r\n"
    "\tJOINT Leg\r\n\t{\r\n\t\tOFFSET 0 -90 0\r\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\r\n"
    "\t\tEnd Site\r\n\t\t{\r\n\t\t\tOFFSET 0 -10 0\r\n\t\t}\r\n\t}\r\n}\r\n"
    "MOTION\r\nFrames:\t3\r\nFrame Time: .01\r\n"
    "0 0 0 0 0 0 0 0 0 0 0 0\r\n"
    "1 0 0 0 0 0 1 0 0 0 0 0\r\n"
    "2 0 0 0 0 0 2 0 0 0 0 0\r\n";

TEST(Bvh, SmallFileWithCrlfTabsAndLeadingDotAndVelocities) {
  const BvhFile f = parseBvh(kSmall, "small.bvh");
  EXPECT_EQ(f.num_channels, 12);
  EXPECT_DOUBLE_EQ(f.frame_time, 0.01);
  BvhOptions o;
  o.units = BvhUnits::Centimetres;
  const MotionClip clip = bvhToClip(f, o);
  ASSERT_EQ(clip.numSegments(), 3);
  // Hips at 1 m up (BVH Y) → kinetrack z; X position 1 cm per frame → kinetrack y.
  EXPECT_LT((clip.pose(0, 0).p - Vector3d(0, 0, 1.0)).norm(), 1e-12);
  EXPECT_LT((clip.pose(2, 0).p - Vector3d(0, 0.02, 1.0)).norm(), 1e-12);
  EXPECT_LT((clip.linear_velocity[static_cast<std::size_t>(1 * 3 + 0)] - Vector3d(0, 1.0, 0)).norm(), 1e-9);
  // Spine: 1°/frame about BVH Y (up) = 100°/s about kinetrack z.
  const Vector3d w = clip.angular_velocity[static_cast<std::size_t>(1 * 3 + 1)];
  EXPECT_LT((w - Vector3d(0, 0, 100.0 * M_PI / 180.0)).norm(), 1e-9);
  EXPECT_LT((clip.pose(0, 1).p - Vector3d(0, 0, 1.5)).norm(), 1e-12);
  EXPECT_LT((clip.pose(0, 2).p - Vector3d(0, 0, 0.1)).norm(), 1e-12);
}

TEST(Bvh, NanValuesMarkTheJointAndItsDescendantsAsGaps) {
  std::string text = kSmall;
  const std::size_t at = text.find("1 0 0 0 0 0 1 0 0 0 0 0");
  text.replace(at, 23, "1 0 0 0 0 nan 1 0 0 0 0 0");
  BvhOptions o;
  o.units = BvhUnits::Centimetres;
  const MotionClip clip = bvhToClip(parseBvh(text, "nan.bvh"), o);
  for (int s = 0; s < 3; ++s) {
    EXPECT_TRUE(clip.isValid(0, s));
    EXPECT_FALSE(clip.isValid(1, s));  // the root's rotation is NaN: everything below is unknown
    EXPECT_TRUE(clip.isValid(2, s));
  }
}

void expectError(const std::string& text, int line, const std::string& needle) {
  try {
    parseBvh(text, "broken.bvh");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "broken.bvh");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Bvh, BrokenFilesNameFileLineAndField) {
  const std::string good = kSmall;
  // Truncated: the last frame is missing.
  expectError(good.substr(0, good.find("2 0 0 0 0 0 2")), 30, "truncated file: 'Frames: 3' but 2 motion rows");
  // Wrong channel count in a row.
  std::string t = good;
  t.replace(t.find("1 0 0 0 0 0 1 0 0 0 0 0"), 23, "1 0 0 0 0 0 1 0 0 0 0");
  expectError(t, 29, "frame 1: expected 12 values, got 11");
  // Non-numeric value, naming the joint and channel.
  t = good;
  t.replace(t.find("1 0 0 0 0 0 1 0 0 0 0 0"), 23, "1 0 0 0 0 0 x 0 0 0 0 0");
  expectError(t, 29, "frame 1, field 7 (Spine Yrotation): 'x' is not a number");
  // Duplicate joint names.
  t = good;
  t.replace(t.find("JOINT Leg"), 9, "JOINT Spine");
  expectError(t, 15, "duplicate joint name 'Spine'");
  // Frame time must be positive (times must increase).
  t = good;
  t.replace(t.find("Frame Time: .01"), 15, "Frame Time: 0");
  expectError(t, 27, "Frame Time must be > 0");
  // Bad channel name, and a hierarchy cut short.
  t = good;
  t.replace(t.find("Yrotation Xrotation Zrotation"), 9, "Qrotation");
  expectError(t, 9, "unknown channel 'Qrotation'");
  expectError("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n", 5, "unexpected end of file");
  EXPECT_THROW(readBvh("/nonexistent/clip.bvh"), ParseError);
}

TEST(Bvh, TruncatedAndCorruptedCopiesOfEveryClipFailCleanly) {
  KINETRACK_REQUIRE_SHARED(csv, "data/bvh/CLIPS.csv");
  for (const ClipRow& r : clipRows(csv)) {
    std::ifstream in(testing::sharedFile("data/" + r.file), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    // Cut at several points and flip a byte: an error or a valid parse, never a crash.
    for (double cut : {0.01, 0.1, 0.5, 0.9, 0.999}) {
      const std::string part = text.substr(0, static_cast<std::size_t>(cut * static_cast<double>(text.size())));
      EXPECT_THROW(parseBvh(part, r.file), ParseError) << r.file << " cut at " << cut;
    }
    std::string flipped = text;
    flipped[flipped.size() / 2] = '#';
    try {
      parseBvh(flipped, r.file);
    } catch (const ParseError&) {
    }
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io

#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

TEST(BvhModel, ModelFromClipReproducesEveryClipExactly) {
  // Two independent paths: the BVH's own forward kinematics (bvhToClip) and kinetrack's FK of
  // modelFromBvh at the clip's own joint angles (bvhConfigurations) must give the same world pose
  // of every segment, so the clip's angles are ground truth for tracking on that model.
  KINETRACK_REQUIRE_SHARED(csv, "data/bvh/CLIPS.csv");
  for (const ClipRow& r : clipRows(csv)) {
    SCOPED_TRACE(r.file);
    const BvhFile f = readBvh(testing::sharedFile("data/" + r.file));
    const Model m = modelFromBvh(f);
    const MotionClip clip = bvhToClip(f);
    const std::vector<Configuration> qs = bvhConfigurations(m, f);
    ASSERT_EQ(static_cast<int>(qs.size()), clip.numFrames());
    Data d(m);
    std::vector<LinkId> links;
    for (const auto& name : clip.segment_names) links.push_back(m.linkId(name));
    double worst_p = 0.0, worst_r = 0.0;
    for (int fr = 0; fr < clip.numFrames(); fr += std::max(1, clip.numFrames() / 40)) {
      forwardKinematics(m, d, qs[static_cast<std::size_t>(fr)]);
      for (int s = 0; s < clip.numSegments(); ++s) {
        const Transform& L = d.link[static_cast<std::size_t>(links[static_cast<std::size_t>(s)].value)];
        worst_p = std::max(worst_p, (L.p - clip.pose(fr, s).p).cwiseAbs().maxCoeff());
        worst_r = std::max(worst_r, (L.R - clip.pose(fr, s).R).cwiseAbs().maxCoeff());
      }
    }
    EXPECT_LT(worst_p, 1e-9);
    EXPECT_LT(worst_r, 1e-12);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
