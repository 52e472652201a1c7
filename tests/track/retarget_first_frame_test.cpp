// The first frame must not decide the result (issue 38): a capture that starts in a held T-pose
// (the walk's first frame with both arms raised sideways to the horizontal, held for 1 s, then
// the walk) is calibrated on that T-pose; once the walk has run for a second, the G1's pose
// agrees with the person's as well as when the same walk is retargeted on its own, and its joints
// are near the plain run's but for the upper arms' twist (below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// The capture with `held` frames prepended: its first frame with the upper arms, forearms and
// hands of both sides turned about the shoulder until the upper arm points sideways.
track::Capture tPoseStart(const track::Capture& walk, int held) {
  const io::MotionClip& c = walk.clip;
  const int ns = c.numSegments();
  auto seg = [&](const char* name) {
    const int s = c.findSegment(name);
    EXPECT_GE(s, 0) << name;
    return s;
  };
  const int ul = seg("UpperArm_L"), ur = seg("UpperArm_R");
  std::vector<Transform> first(c.poses.begin(), c.poses.begin() + ns);
  const Vector3d lateral = (c.pose(0, ul).p - c.pose(0, ur).p).normalized();  // towards the left
  struct Arm {
    int upper, lower, hand;
    Vector3d outward;
  };
  for (const Arm& arm : {Arm{ul, seg("LowerArm_L"), seg("Hand_L"), lateral},
                         Arm{ur, seg("LowerArm_R"), seg("Hand_R"), Vector3d(-lateral)}}) {
    const Vector3d shoulder = c.pose(0, arm.upper).p;
    const Matrix3d turn = track::rotationBetween(c.pose(0, arm.lower).p - shoulder, arm.outward);
    for (const int s : {arm.upper, arm.lower, arm.hand}) {
      Transform& X = first[static_cast<std::size_t>(s)];
      X.p = shoulder + turn * (X.p - shoulder);
      X.R = turn * X.R;
    }
  }
  track::Capture out = walk;
  io::MotionClip& m = out.clip;
  const double dt = c.times[1] - c.times[0];
  m.times.clear();
  m.poses.clear();
  m.valid.clear();
  for (int f = 0; f < held; ++f) {
    m.times.push_back(c.times[0] + f * dt);
    m.poses.insert(m.poses.end(), first.begin(), first.end());
    m.valid.insert(m.valid.end(), c.valid.begin(), c.valid.begin() + ns);
  }
  for (int f = 0; f < c.numFrames(); ++f) m.times.push_back(c.times[static_cast<std::size_t>(f)] + held * dt);
  m.poses.insert(m.poses.end(), c.poses.begin(), c.poses.end());
  m.valid.insert(m.valid.end(), c.valid.begin(), c.valid.end());
  m.linear_velocity.clear();
  m.angular_velocity.clear();
  return out;
}

TEST(RetargetFirstFrame, AHeldTPoseStartRecovers) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  const Model g1 = io::loadUrdf(urdf);
  const track::Capture walk = track::loadCapture(bvh);
  const int held = 30;  // 1 s at 30 Hz
  const track::Capture start = tPoseStart(walk, held);
  app::RetargetOptions o;
  o.transient = 0.0;
  const app::TrackResult a = app::runRetarget(o, {}, &g1, &walk);
  const app::TrackResult b = app::runRetarget(o, {}, &g1, &start);
  ASSERT_EQ(b.q.size(), a.q.size() + held);
  // After a second of the walk, the pose agrees with the person's as well as when the walk is
  // retargeted on its own (median over the same frames, per angle, within 1°).
  const int settle = 30;
  ASSERT_TRUE(a.quality && b.quality);
  auto median = [](std::vector<double> e) {
    std::nth_element(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(e.size() / 2), e.end());
    return e[e.size() / 2];
  };
  for (std::size_t i = 0; i < a.quality->pose_median_deg.size(); ++i) {
    std::vector<double> ea, eb;
    for (std::size_t f = settle; f < a.q.size(); ++f) {
      ea.push_back(a.quality->angle_error_deg[f][i]);
      eb.push_back(b.quality->angle_error_deg[f + held][i]);
    }
    if (!std::isfinite(ea[0])) continue;
    EXPECT_LE(median(eb), median(ea) + 1.0) << "angle " << i;
  }
  // The joints too, but for the twist of the upper arms about their bones: the calibration
  // turns each robot segment by the smallest rotation that points its bone like the person's,
  // so the twist it gives an arm depends on where the arm points at the calibration frame
  // (measured: the left shoulder yaw 10.3° from the plain run's, every other joint within 8.3°).
  double worst = 0.0, worst_other = 0.0;
  for (int j = 0; j < g1.numJoints(); ++j) {
    double w = 0.0;
    for (std::size_t f = settle; f < a.q.size(); ++f)
      w = std::max(w, std::abs(a.q[f].joints[j] - b.q[f + held].joints[j]));
    const std::string& name = g1.jointName(JointId(j));
    if (name.find("shoulder_yaw") != std::string::npos)
      worst = std::max(worst, w);
    else
      worst_other = std::max(worst_other, w);
  }
  RecordProperty("shoulder_yaw_difference_deg", std::to_string(worst * 180.0 / M_PI));
  RecordProperty("other_joint_difference_deg", std::to_string(worst_other * 180.0 / M_PI));
  EXPECT_LT(worst * 180.0 / M_PI, 12.0);
  EXPECT_LT(worst_other * 180.0 / M_PI, 10.0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
