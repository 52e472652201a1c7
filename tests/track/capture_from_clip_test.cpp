// track::captureFromClip (Python's Capture.from_arrays): segment poses held in memory become a
// capture like a BVH's (positions and orientations everywhere, calibrated on the first frame),
// NaN samples are gaps, and what cannot be a capture is refused naming frame and segment.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

io::MotionClip twoSegments() {
  io::MotionClip c;
  c.segment_names = {"Hips", "Spine"};
  c.segment_parent = {-1, 0};
  for (int f = 0; f < 3; ++f) {
    c.times.push_back(0.01 * f);
    Transform a, b;
    a.p = Vector3d(0.0, 0.0, 1.0);
    b.p = Vector3d(0.0, 0.0, 1.2);
    c.poses.push_back(a);
    c.poses.push_back(b);
  }
  return c;
}

void expectRefused(const io::MotionClip& clip, const std::string& needle) {
  try {
    track::captureFromClip(clip);
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CaptureFromClip, PosesBecomeACaptureAndNanSamplesGaps) {
  io::MotionClip clip = twoSegments();
  clip.poses[3].p.x() = std::nan("");  // frame 1, Spine
  const track::Capture c = track::captureFromClip(clip);
  EXPECT_EQ(c.kind, track::CaptureKind::Bvh);
  EXPECT_FALSE(c.bvh.has_value());
  EXPECT_EQ(c.has_position, (std::vector<std::uint8_t>{1, 1}));
  EXPECT_TRUE(c.clip.isValid(1, 0));
  EXPECT_FALSE(c.clip.isValid(1, 1));
  EXPECT_TRUE(c.clip.isValid(2, 1));

  io::MotionClip bad = twoSegments();
  bad.poses[5].R(0, 0) = 2.0;
  expectRefused(bad, "frame 2, segment 'Spine': the orientation is not a rotation");
  bad = twoSegments();
  bad.poses[2].R = -Matrix3d::Identity();  // a reflection
  expectRefused(bad, "frame 1, segment 'Hips': the orientation is not a rotation");
  bad = twoSegments();
  bad.poses[0].p.z() = INFINITY;
  expectRefused(bad, "frame 0, segment 'Hips': the position is not finite");
  bad = twoSegments();
  bad.times[2] = bad.times[1];
  expectRefused(bad, "frame 2: time");
  bad = twoSegments();
  bad.segment_parent = {1, -1};
  expectRefused(bad, "segment 'Hips': parent 1 is not an earlier segment");
  bad = twoSegments();
  bad.segment_names[1] = "Hips";
  expectRefused(bad, "segment name 'Hips' appears twice");
  bad = twoSegments();
  bad.poses.pop_back();
  expectRefused(bad, "need as many parents and 6 poses");
  expectRefused(io::MotionClip{}, "no segment or no frame");
}

// A BVH's clip handed over as poses plans and tracks as the file does.
TEST(CaptureFromClip, AFilesClipTracksAsTheFile) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  const track::Capture file = track::loadCapture(bvh);
  const track::Capture mem = track::captureFromClip(file.clip);
  EXPECT_EQ(mem.clip.segment_parent, file.clip.segment_parent);
  EXPECT_EQ(mem.clip.numFrames(), file.clip.numFrames());
  for (std::size_t i = 0; i < file.clip.poses.size(); ++i) {
    ASSERT_EQ(mem.clip.poses[i].p, file.clip.poses[i].p);
    ASSERT_EQ(mem.clip.poses[i].R, file.clip.poses[i].R);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
