// Retargeting onto a humanoid standing on the ground: the person's foot contacts (height and
// speed with hysteresis), the pose-agreement angles, stream slots left out of a frame, the sole
// targets, and the G1 walk measured by its quality report.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <vector>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/foot_contact.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget_quality.hpp"
#include "kinetrack/track/stream_tracker.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

// A two-segment "foot" (ankle, toe) at 100 Hz: standing 0.30 s at its ground level, a swing of
// 0.40 s that lifts it 0.15 m and carries it 0.6 m forward, then standing again.
io::MotionClip steppingFoot() {
  io::MotionClip c;
  c.segment_names = {"ankle", "toe"};
  c.segment_parent = {-1, 0};
  const int n = 100;
  for (int f = 0; f < n; ++f) {
    const double t = 0.01 * f;
    c.times.push_back(t);
    double x = 0.0, z = 0.0;
    if (t >= 0.30 && t < 0.70) {
      const double u = (t - 0.30) / 0.40;
      x = 0.6 * (u - std::sin(2.0 * M_PI * u) / (2.0 * M_PI));
      z = 0.15 * std::sin(M_PI * u);
    } else if (t >= 0.70) {
      x = 0.6;
    }
    Transform a, b;
    a.p = Vector3d(x, 0.0, 0.08 + z);
    b.p = Vector3d(x + 0.15, 0.0, 0.02 + z);
    c.poses.push_back(a);
    c.poses.push_back(b);
    c.valid.push_back(1);
    c.valid.push_back(1);
  }
  return c;
}

TEST(FootContacts, DownWhileStandingUpDuringTheSwing) {
  const io::MotionClip clip = steppingFoot();
  const track::FootContacts c = track::detectFootContacts(clip, {{"LeftFoot", {0, 1}}});
  ASSERT_EQ(c.frames, 100);
  EXPECT_NEAR(c.ground_level[0], 0.02, 1e-12);  // the toe's level
  for (int f = 0; f < 28; ++f) EXPECT_TRUE(c.inContact(f, 0)) << f;
  for (int f = 36; f < 66; ++f) EXPECT_FALSE(c.inContact(f, 0)) << f;
  for (int f = 75; f < 100; ++f) EXPECT_TRUE(c.inContact(f, 0)) << f;
  EXPECT_GT(c.count(0), 50);
}

TEST(FootContacts, HysteresisKeepsAContactThroughSmallLifts) {
  io::MotionClip clip = steppingFoot();
  // A 4 cm lift of the standing foot: above height_on (3 cm), below height_off (5 cm).
  for (int f = 10; f < 14; ++f)
    for (int s = 0; s < 2; ++s) clip.poses[static_cast<std::size_t>(2 * f + s)].p.z() += 0.04;
  const track::FootContacts c = track::detectFootContacts(clip, {{"LeftFoot", {0, 1}}});
  for (int f = 0; f < 20; ++f) EXPECT_TRUE(c.inContact(f, 0)) << f;
  // Entering needs height_on: the same lift from the swing would not start a contact.
  track::FootContactOptions o;
  o.height_off = 0.03;
  const track::FootContacts strict = track::detectFootContacts(clip, {{"LeftFoot", {0, 1}}}, o);
  EXPECT_FALSE(strict.inContact(11, 0));
}

TEST(FootContacts, GapsAreNotContactsAndBadInputIsRefused) {
  io::MotionClip clip = steppingFoot();
  clip.valid[2 * 5] = clip.valid[2 * 5 + 1] = 0;
  const track::FootContacts c = track::detectFootContacts(clip, {{"LeftFoot", {0, 1}}});
  EXPECT_FALSE(c.inContact(5, 0));
  EXPECT_THROW(track::detectFootContacts(clip, {{"LeftFoot", {}}}), InvalidArgument);
  EXPECT_THROW(track::detectFootContacts(clip, {{"LeftFoot", {7}}}), InvalidArgument);
  track::FootContactOptions o;
  o.height_off = 0.01;  // below height_on
  EXPECT_THROW(track::detectFootContacts(clip, {{"LeftFoot", {0}}}, o), InvalidArgument);
  o = {};
  o.speed_on = std::nan("");
  EXPECT_THROW(track::detectFootContacts(clip, {{"LeftFoot", {0}}}, o), InvalidArgument);
  o = {};
  o.ground_percentile = 0.5;
  EXPECT_THROW(track::detectFootContacts(clip, {{"LeftFoot", {0}}}, o), InvalidArgument);
}

// The detector one frame at a time (a live stream): each frame decided as it arrives, from the
// previous sample's speed, on the same steps as the whole-clip detector.
std::vector<std::uint8_t> liveContacts(const io::MotionClip& clip, track::FootContactTracker& live) {
  io::MotionClip one;  // one frame, overwritten per sample, as stream::LiveTracker does
  one.segment_names = clip.segment_names;
  one.segment_parent = clip.segment_parent;
  one.times = {0.0};
  one.poses.assign(clip.segment_names.size(), Transform{});
  one.valid.assign(clip.segment_names.size(), 0);
  std::vector<std::uint8_t> out;
  std::uint8_t c = 0;
  for (int f = 0; f < clip.numFrames(); ++f) {
    for (int s = 0; s < clip.numSegments(); ++s) {
      one.poses[static_cast<std::size_t>(s)] = clip.pose(f, s);
      one.valid[static_cast<std::size_t>(s)] = clip.isValid(f, s) ? 1 : 0;
    }
    live.update(clip.times[static_cast<std::size_t>(f)], one, 0, std::span(&c, 1));
    out.push_back(c);
  }
  return out;
}

TEST(FootContacts, TheLiveDetectorFindsTheSameStepsFrameByFrame) {
  const io::MotionClip clip = steppingFoot();
  const std::vector<track::FootPoints> feet = {{"LeftFoot", {0, 1}}};
  track::FootContactOptions o;
  o.min_duration = 0.0;
  const track::FootContacts file = track::detectFootContacts(clip, feet, o);
  const auto levels = track::pointGroundLevels(clip, feet, o.ground_percentile);
  ASSERT_EQ(levels.size(), 1U);
  EXPECT_NEAR(levels[0][0], 0.08, 1e-12);
  EXPECT_NEAR(levels[0][1], 0.02, 1e-12);
  track::FootContactTracker live(feet, levels, o);
  const std::vector<std::uint8_t> c = liveContacts(clip, live);
  int differ = 0;
  for (int f = 0; f < clip.numFrames(); ++f) differ += (c[static_cast<std::size_t>(f)] != 0) != file.inContact(f, 0);
  EXPECT_LE(differ, 2) << "a backward speed decides lift-off and touchdown a frame apart at most";
  for (int f = 0; f < 28; ++f) EXPECT_TRUE(c[static_cast<std::size_t>(f)]) << f;
  for (int f = 36; f < 66; ++f) EXPECT_FALSE(c[static_cast<std::size_t>(f)]) << f;
  for (int f = 75; f < 100; ++f) EXPECT_TRUE(c[static_cast<std::size_t>(f)]) << f;

  // Without known levels (NaN) each point's first sample sets it; a lower ground later lowers it.
  io::MotionClip lower = clip;
  for (int f = 70; f < lower.numFrames(); ++f)
    for (int s = 0; s < 2; ++s) lower.poses[static_cast<std::size_t>(2 * f + s)].p.z() -= 0.10;
  track::FootContactTracker fresh(feet, {{std::nan(""), std::nan("")}}, o);
  const std::vector<std::uint8_t> d = liveContacts(lower, fresh);
  for (int f = 0; f < 28; ++f) EXPECT_TRUE(d[static_cast<std::size_t>(f)]) << f;
  for (int f = 75; f < 100; ++f) EXPECT_TRUE(d[static_cast<std::size_t>(f)]) << f;

  EXPECT_THROW(track::FootContactTracker(feet, {}, o), InvalidArgument);
  EXPECT_THROW(track::FootContactTracker(feet, {{0.0}}, o), InvalidArgument);
  EXPECT_THROW(track::FootContactTracker({{"LeftFoot", {}}}, {{}}, o), InvalidArgument);
}

TEST(FootContacts, CanonicalFeetTakeTheFootThenTheToe) {
  const std::vector<std::string> roles = {"Pelvis", "LeftToe", "LeftFoot", "RightFoot", ""};
  const std::vector<track::FootPoints> feet = track::canonicalFeet(roles);
  ASSERT_EQ(feet.size(), 2U);
  EXPECT_EQ(feet[0].name, "LeftFoot");
  EXPECT_EQ(feet[0].segments, (std::vector<int>{2, 1}));
  EXPECT_EQ(feet[1].segments, (std::vector<int>{3}));
  EXPECT_EQ(track::canonicalFeet(roles, {"RightFoot"}).size(), 1U);
}

TEST(PoseAngles, ElbowKneeAndTrunkAnglesFromKeypoints) {
  track::Keypoints k;
  // Left side: shoulder, elbow, wrist, hip, knee, ankle; the right mirrored in y.
  const Vector3d pts[6] = {{0, 0.2, 1.4}, {0, 0.2, 1.1},   {0.3, 0.2, 1.1},
                           {0, 0.1, 0.9}, {0.3, 0.1, 0.9}, {0.3, 0.1, 0.5}};
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < 6; ++i) {
      Vector3d p = pts[i];
      if (side == 1) p.y() = -p.y();
      k.p[static_cast<std::size_t>(6 * side + i)] = p;
      k.valid[static_cast<std::size_t>(6 * side + i)] = true;
    }
  const track::PoseAngles a = track::poseAngles(k);
  const double deg = 180.0 / M_PI;
  EXPECT_NEAR(a[0] * deg, 90.0, 1e-9);  // elbow bent at a right angle
  EXPECT_NEAR(a[2] * deg, 90.0, 1e-9);  // knee: thigh forward, shank down
  EXPECT_NEAR(a[4] * deg, 0.0, 1e-9);   // upper arm along the trunk
  EXPECT_NEAR(a[6] * deg, 90.0, 1e-9);  // thigh horizontal: hip flexed 90°
  EXPECT_NEAR(a[1], a[0], 1e-12);
  k.valid[2] = false;  // no left wrist
  EXPECT_TRUE(std::isnan(track::poseAngles(k)[0]));
  EXPECT_FALSE(std::isnan(track::poseAngles(k)[4]));
  EXPECT_STREQ(track::toString(track::PoseAngle::RightHipTrunk), "right_hip_trunk");
}

// A stream slot left out of every frame changes nothing: DYN disables its task (its values, even
// NaN, are not read), so the run equals the run without it, bit for bit.
TEST(StreamTrackerSlots, AnInactiveSlotIsLeftOutOfTheFrame) {
  const Model m = makeHuman66();
  const auto walk = track::syntheticWalkJob(m, 1.0, 60.0);
  const track::Capture& capture = walk.first;
  const track::Retargeting& plan = walk.second.plan;
  std::vector<track::StreamTarget> targets = track::streamTargets(plan.bindings);
  const std::size_t nb = targets.size();
  track::TrackerOptions o;
  o.first_frame_interval = track::meanFrameInterval(capture.clip);
  track::StreamTracker plain(std::make_shared<const Model>(m), targets, o);
  targets.push_back({"LeftHand", false, true, 1000.0});
  track::StreamTracker extra(std::make_shared<const Model>(m), targets, o);
  plain.setState(plan.initial);
  extra.setState(plan.initial);
  std::vector<Matrix3d> R(nb + 1, Matrix3d::Identity());
  std::vector<Vector3d> p(nb + 1, Vector3d::Zero());
  std::vector<std::uint8_t> active(nb + 1, 1);
  active[nb] = 0;
  for (int f = 0; f < capture.clip.numFrames(); ++f) {
    ASSERT_TRUE(track::clipFrameTargets(capture.clip, plan.bindings, plan.alignment, f, std::span(R).first(nb),
                                        std::span(p).first(nb)));
    p[nb] = Vector3d::Constant(std::nan(""));
    const double t = capture.clip.times[static_cast<std::size_t>(f)];
    const track::FrameOutcome a = plain.track(t, std::span(R).first(nb), std::span(p).first(nb));
    const track::FrameOutcome b = extra.track(t, R, p, true, active);
    ASSERT_EQ(plain.state().joints, extra.state().joints) << "frame " << f;
    ASSERT_EQ(plain.state().base_position, extra.state().base_position);
    EXPECT_EQ(a.rmse, b.rmse);
    EXPECT_EQ(a.mnte, b.mnte);
  }
  // When it comes back it pulls: the hand moves to a target 10 cm away.
  p[nb] = extra.solver().data().frame[static_cast<std::size_t>(m.frameId("LeftHand").value)].p + Vector3d(0.1, 0, 0);
  active[nb] = 1;
  const double t = capture.clip.times.back() + 1.0 / 60.0;
  extra.track(t, R, p, true, active);
  extra.track(t + 1.0 / 60.0, R, p, true, active);
  const Vector3d hand = extra.solver().data().frame[static_cast<std::size_t>(m.frameId("LeftHand").value)].p;
  EXPECT_LT((hand - p[nb]).norm(), 0.01);
  // Wrong sizes are refused.
  std::vector<std::uint8_t> short_active(nb, 1);
  EXPECT_THROW(extra.track(t + 1.0, R, p, true, short_active), InvalidArgument);
}

// The map a user would write for the Unitree G1 (the built-in one names the same frames).
std::string writeG1Map(const fs::path& dir) {
  const fs::path path = dir / "g1_test_map.json";
  std::ofstream out(path);
  out << R"({"name": "g1test", "segments": {"Pelvis": "pelvis", "T8": "torso_link",
    "RightUpperArm": "right_shoulder_yaw_link", "RightForeArm": "right_elbow_link", "RightHand": "right_wrist_yaw_link",
    "LeftUpperArm": "left_shoulder_yaw_link", "LeftForeArm": "left_elbow_link", "LeftHand": "left_wrist_yaw_link",
    "RightUpperLeg": "right_hip_yaw_link", "RightLowerLeg": "right_knee_link", "RightFoot": "right_ankle_roll_link",
    "LeftUpperLeg": "left_hip_yaw_link", "LeftLowerLeg": "left_knee_link", "LeftFoot": "left_ankle_roll_link"}})";
  return path.string();
}

// A walk onto the G1: it stands on the ground, its soles hold while the person's feet are down,
// and its pose is the person's (elbow, knee, shoulder- and hip-to-trunk angles).
TEST(RetargetGround, G1WalkStandsHoldsItsSolesAndKeepsThePose) {
  KINETRACK_REQUIRE_SHARED(robot, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(walk, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  const fs::path dir = fs::temp_directory_path() / ("kinetrack_retarget_ground_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  app::RetargetOptions o;
  o.robot = robot;
  o.input = walk;
  o.map = writeG1Map(dir);
  o.quality_json = (dir / "quality.json").string();
  const app::TrackResult r = app::runRetarget(o);
  ASSERT_TRUE(r.quality.has_value());
  const track::RetargetQuality& q = *r.quality;
  EXPECT_EQ(q.frames, 273);
  ASSERT_EQ(q.feet.size(), 2U);
  EXPECT_GT(q.contact_frames[0], 100);
  EXPECT_GT(q.contact_frames[1], 100);
  EXPECT_LE(q.slide_p95_mm, 2.0);
  EXPECT_EQ(q.limit_excess, 0.0);
  EXPECT_LE(q.velocity_limit_excess, 1e-9);
  for (int i = 0; i < track::kPoseAngles; ++i)
    EXPECT_LE(q.pose_median_deg[static_cast<std::size_t>(i)], 10.0)
        << track::toString(static_cast<track::PoseAngle>(i));
  // Standing at the first frame: the soles on the ground, the pelvis at the robot's height.
  Data data(*r.model);
  framesForwardKinematics(*r.model, data, r.q.front());
  for (const char* sole : {"left_ankle_roll_link_sole", "right_ankle_roll_link_sole"})
    EXPECT_NEAR(data.frame[static_cast<std::size_t>(r.model->frameId(sole).value)].p.z(), 0.0, 0.01) << sole;
  EXPECT_GT(r.q.front().base_position.z(), 0.7);
  EXPECT_TRUE(fs::is_regular_file(o.quality_json));
  // Without contacts the soles slide.
  o.contacts = false;
  o.quality_json.clear();
  const app::TrackResult free = app::runRetarget(o);
  EXPECT_GT(free.quality->slide_p95_mm, 5.0 * q.slide_p95_mm);
  fs::remove_all(dir);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
