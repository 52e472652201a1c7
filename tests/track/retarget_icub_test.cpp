// Human → iCub retargeting (issue 5, DYN §4.3, Fig. 3/9): every BVH clip of ../shared/data/bvh
// and the Xsens MVNX capture onto the iCub with its coupled shoulder rows and real velocity
// limits: no joint limit and no coupled row violated by more than 1e-6 at any frame, velocity
// limits kept between frames, one row per frame.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/feasible.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"
#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

struct Check {
  double limit = 0.0, row = 0.0, velocity_excess = 0.0, mnte_median = 0.0;
  int frames = 0;
};

Check retargetAndCheck(const Model& robot, const std::string& path, track::TrackerOptions o = {}) {
  const track::Capture capture = track::loadCapture(path);
  const auto pairs =
      track::composeMaps(io::resolveSegmentMap(capture.clip.segment_names, ""), io::builtinRobotMap("icub"));
  const track::Retargeting plan = track::planTracking(robot, capture, pairs);
  o.dynamical.use_model_velocity_limits = true;
  Check c;
  Configuration previous;
  double t_prev = 0.0;
  const VectorXd& lo = robot.lowerPositionLimits();
  const VectorXd& hi = robot.upperPositionLimits();
  const VectorXd& vmax = robot.upperVelocityLimits();
  const track::TrackRecord record =
      track::runTracking(robot, capture, plan, o, [&](int f, const Configuration& q, const track::FrameOutcome&) {
        ++c.frames;
        for (int j = 0; j < robot.numJoints(); ++j)
          c.limit = std::max({c.limit, lo[j] - q.joints[j], q.joints[j] - hi[j]});
        for (const LinearConstraint& r : robot.linearConstraints()) {
          const double v = r.coefficients.dot(q.joints);
          c.row = std::max({c.row, r.lower - v, v - r.upper});
        }
        const double t = capture.clip.times[static_cast<std::size_t>(f)];
        if (f > 0)
          for (int j = 0; j < robot.numJoints(); ++j)
            c.velocity_excess =
                std::max(c.velocity_excess, std::abs(q.joints[j] - previous.joints[j]) / (t - t_prev) - vmax[j]);
        previous = q;
        t_prev = t;
      });
  c.mnte_median = track::summarize(record, 2.0, false).mnte_median;
  return c;
}

TEST(RetargetIcub, EveryCaptureKeepsTheLimitsRowsAndVelocities) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model robot = icubForRetargeting(io::loadUrdf(urdf));
  ASSERT_EQ(robot.linearConstraints().size(), 14u);
  std::vector<std::string> files;
  for (const std::string& f : testing::sharedBvhClips()) files.push_back(testing::sharedFile("data/" + f));
  if (const std::string mvnx = testing::sharedFile("data/mvnx/test_mocap.mvnx"); !mvnx.empty()) files.push_back(mvnx);
  if (files.empty()) GTEST_SKIP() << "../shared/data not found";
#ifndef NDEBUG
  files.resize(2);  // Debug/ASan: the same code on two captures
#endif
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const Check c = retargetAndCheck(robot, f);
    std::printf("iCub  %-70s limits %.1e rows %.1e velocity excess %.1e rad/s, MNTE median %.3f (%d frames)\n",
                f.substr(f.find("data/")).c_str(), c.limit, c.row, c.velocity_excess, c.mnte_median, c.frames);
    EXPECT_LE(c.limit, 1e-6);
    EXPECT_LE(c.row, 1e-6);
    EXPECT_LE(c.velocity_excess, 1e-6);
  }
}

// The pair-wise baseline with merged coupled subsystems enforces every iCub row too (per-frame
// methods know position limits and rows, not velocities).
TEST(RetargetIcub, PairwiseBaselineKeepsTheLimitsAndRows) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model robot = icubForRetargeting(io::loadUrdf(urdf));
  std::vector<std::string> files;
  for (const std::string& f : testing::sharedBvhClips()) files.push_back(testing::sharedFile("data/" + f));
  if (files.empty()) GTEST_SKIP() << "../shared/data not found";
  files.resize(std::min<std::size_t>(files.size(), 3));
  track::TrackerOptions o;
  o.method = track::Method::Pairwise;
  o.pairwise = PairwiseIkOptions{2, 200.0, {}, true};
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const Check c = retargetAndCheck(robot, f, o);
    std::printf("iCub pair-wise  %-60s limits %.1e rows %.1e, MNTE median %.3f (%d frames)\n",
                f.substr(f.find("data/")).c_str(), c.limit, c.row, c.mnte_median, c.frames);
    EXPECT_LE(c.limit, 1e-6);
    EXPECT_LE(c.row, 1e-6);
    EXPECT_LT(c.mnte_median, 0.1);
  }
}

TEST(NearestFeasible, ProjectsTheIcubZeroPoseIntoItsLimitsAndRows) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model robot = icubForRetargeting(io::loadUrdf(urdf));
  const Configuration zero(robot);
  const Configuration q = nearestFeasible(robot, zero);
  for (int j = 0; j < robot.numJoints(); ++j) {
    EXPECT_GE(q.joints[j], robot.lowerPositionLimits()[j] - 1e-9);
    EXPECT_LE(q.joints[j], robot.upperPositionLimits()[j] + 1e-9);
  }
  for (const LinearConstraint& r : robot.linearConstraints()) {
    const double v = r.coefficients.dot(q.joints);
    EXPECT_GE(v, r.lower - 1e-9) << r.name;
    EXPECT_LE(v, r.upper + 1e-9) << r.name;
  }
  // The elbows move to their 15° lower limit; a feasible pose is returned unchanged.
  EXPECT_NEAR(q.joints[robot.jointId("r_elbow").value], 15.0 * M_PI / 180.0, 1e-6);
  EXPECT_EQ(nearestFeasible(robot, q).joints, q.joints);
}

TEST(NearestFeasible, InfeasibleRowsAreReported) {
  ModelBuilder b("two", "base", BaseType::Fixed);
  JointSpec j;
  j.name = "a";
  j.parent = "base";
  j.child = "l1";
  j.lower = -1.0;
  j.upper = 1.0;
  b.addJoint(j);
  b.addLinearConstraint("impossible", {{"a", 1.0}}, 2.0, 3.0);
  const Model m = b.build();
  EXPECT_THROW(static_cast<void>(nearestFeasible(m, Configuration(m))), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
