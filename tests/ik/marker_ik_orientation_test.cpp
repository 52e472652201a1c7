// Orientation targets in marker IK (ik/marker_ik.hpp; OpenSim's OrientationsReference, the IMU
// IK problem): a random pose of human48 recovered from the orientations of its links alone
// (joint rotations exact; the base position is not observed and stays), first-order optimality
// by finite differences of the objective when the orientations are noisy and some joints are
// bounded, the reported angles equal to the angles recomputed from the solved pose, a disabled
// target equal to no target, no allocation per solve, mixed with markers, position targets
// refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// World orientation of frame f at q.
Matrix3d rotationAt(const Model& m, const Configuration& q, FrameId f) {
  Data d(m);
  framesForwardKinematics(m, d, q);
  return d.frame[static_cast<std::size_t>(f.value)].R;
}

struct OrientationProblem {
  std::shared_ptr<const Model> model = std::make_shared<const Model>(makeHuman48());
  std::vector<FrameId> frames;  // one per link but the base: the "IMUs"
  OrientationProblem() {
    for (int l = 1; l < model->numLinks(); ++l) frames.push_back(model->frameId(model->linkName(LinkId(l))));
  }
  ik::MarkerIk solver(std::vector<TargetId>& ids) const {
    ik::MarkerIk ik(model);
    for (FrameId f : frames) ids.push_back(ik.tasks().addOrientation(model->frameName(f), {2.0, 0.0}));
    ik.tasks().addOrientation(model->linkName(LinkId(0)));  // the base too
    ids.push_back(TargetId(static_cast<int>(frames.size())));
    return ik;
  }
  void set(ik::MarkerIk& ik, const std::vector<TargetId>& ids, const Configuration& q, double noise = 0.0,
           std::mt19937_64* rng = nullptr) const {
    std::normal_distribution<double> n(0.0, noise);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const FrameId f = i < frames.size() ? frames[i] : model->frameId(model->linkName(LinkId(0)));
      Matrix3d R = rotationAt(*model, q, f);
      if (noise > 0.0) R = so3::exp(Vector3d(n(*rng), n(*rng), n(*rng))) * R;
      ik.tasks().setOrientation(ids[i], R);
    }
  }
};

Configuration randomPose(const Model& m, std::mt19937_64& rng) {
  RandomConfigurationOptions o;
  o.unbounded_range = 1.0;
  return randomConfiguration(m, rng, o);
}

// Σ w θ² over the targets at q (the objective without damping).
double objectiveAt(const ik::MarkerIk& ik, const Configuration& q) {
  const Model& m = ik.model();
  Data d(m);
  framesForwardKinematics(m, d, q);
  double F = 0.0;
  for (const ik::FrameTask& t : ik.tasks().all())
    if (t.orientationSet())
      F += t.orientation_weight *
           so3::log(t.R * d.frame[static_cast<std::size_t>(t.frame.value)].R.transpose()).squaredNorm();
  return F;
}

TEST(MarkerIkOrientation, RecoversAPoseFromLinkOrientationsAlone) {
  const OrientationProblem p;
  std::vector<TargetId> ids;
  ik::MarkerIk ik = p.solver(ids);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 8; ++trial) {
    const Configuration truth = randomPose(*p.model, rng);
    p.set(ik, ids, truth);
    Configuration start = truth;
    std::uniform_real_distribution<double> u(-0.3, 0.3);
    for (int j = 0; j < p.model->numJoints(); ++j) start.joints[j] += u(rng);
    start.base_rotation = so3::exp(Vector3d(0.4, -0.3, 0.5)) * truth.base_rotation;
    start.base_position.setZero();
    ik.setState(start);
    const ik::MarkerIkResult r = ik.solve();
    EXPECT_EQ(r.status, ik::Status::Converged) << trial;
    EXPECT_EQ(r.orientations_used, static_cast<int>(ids.size()));
    EXPECT_LT(r.orientation_max_error, 1e-6) << trial;
    EXPECT_LT((ik.state().joints - truth.joints).cwiseAbs().maxCoeff(), 1e-6) << trial;
    EXPECT_LT(so3::log(ik.state().base_rotation * truth.base_rotation.transpose()).norm(), 1e-6);
    // Orientations say nothing of the base position: it stays where it started.
    EXPECT_LT(ik.state().base_position.norm(), 1e-9);
  }
}

TEST(MarkerIkOrientation, NoisyTargetsReachAStationaryPointInsideTheBounds) {
  const OrientationProblem p;
  std::vector<TargetId> ids;
  ik::MarkerIk ik = p.solver(ids);
  ik.bounds().clampAll();
  std::mt19937_64 rng(9);
  const Configuration truth = randomPose(*p.model, rng);
  p.set(ik, ids, truth, 0.05, &rng);  // 3° of noise per axis
  ik::MarkerIkOptions o;
  o.accuracy = 1e-10;
  o.relative_tolerance = 0.0;
  ik.setOptions(o);
  ik.setState(truth);
  const ik::MarkerIkResult r = ik.solve();
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_LE(r.limit_violation, 1e-12);
  // Reported errors are the angles of the solved pose.
  const Model& m = *p.model;
  Data d(m);
  framesForwardKinematics(m, d, ik.state());
  double sum = 0.0, worst = 0.0;
  for (TargetId id : ids) {
    const ik::FrameTask& t = ik.tasks()[id];
    const double angle = so3::log(t.R * d.frame[static_cast<std::size_t>(t.frame.value)].R.transpose()).norm();
    EXPECT_NEAR(ik.orientationError(id), angle, 1e-12);
    sum += angle * angle;
    worst = std::max(worst, angle);
  }
  EXPECT_NEAR(r.orientation_rms_error, std::sqrt(sum / static_cast<double>(ids.size())), 1e-12);
  EXPECT_NEAR(r.orientation_max_error, worst, 1e-12);
  EXPECT_NEAR(r.cost, objectiveAt(ik, ik.state()), 1e-10);
  // First-order optimality by central differences of the objective: zero along every joint that
  // is off its bounds; along a joint at a bound, the objective does not fall into the range.
  const Configuration q = ik.state();
  const double h = 1e-6;
  int checked = 0;
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    Configuration a = q, b = q;
    a.joints[j] -= h;
    b.joints[j] += h;
    const double slope = (objectiveAt(ik, b) - objectiveAt(ik, a)) / (2 * h);
    if (q.joints[j] - lo > 1e-5 && hi - q.joints[j] > 1e-5) {
      EXPECT_NEAR(slope, 0.0, 1e-5) << m.jointName(JointId(j));
      ++checked;
    } else if (q.joints[j] - lo <= 1e-5) {
      EXPECT_GE(slope, -1e-5) << m.jointName(JointId(j));
    } else {
      EXPECT_LE(slope, 1e-5) << m.jointName(JointId(j));
    }
  }
  EXPECT_GT(checked, m.numJoints() / 2);
  // The base rotation: the objective's slope along each world axis is zero too.
  for (int k = 0; k < 3; ++k) {
    Configuration a = q, b = q;
    a.base_rotation = so3::exp(-h * Vector3d::Unit(k)) * q.base_rotation;
    b.base_rotation = so3::exp(h * Vector3d::Unit(k)) * q.base_rotation;
    EXPECT_NEAR((objectiveAt(ik, b) - objectiveAt(ik, a)) / (2 * h), 0.0, 1e-5) << k;
  }
}

TEST(MarkerIkOrientation, ADisabledTargetIsAMissingSample) {
  const OrientationProblem p;
  std::vector<TargetId> ids;
  ik::MarkerIk with = p.solver(ids);
  std::vector<TargetId> ids2;
  ik::MarkerIk without = p.solver(ids2);
  std::mt19937_64 rng(21);
  const Configuration truth = randomPose(*p.model, rng);
  p.set(with, ids, truth, 0.03, &rng);
  for (std::size_t i = 0; i < ids.size(); ++i) without.tasks().setOrientation(ids2[i], with.tasks()[ids[i]].R);
  with.tasks().setEnabled(ids[3], false);
  without.tasks().remove(ids2[3]);
  with.setState(truth);
  without.setState(truth);
  const ik::MarkerIkResult a = with.solve(), b = without.solve();
  EXPECT_EQ(a.orientations_used, static_cast<int>(ids.size()) - 1);
  EXPECT_TRUE(std::isnan(with.orientationError(ids[3])));
  EXPECT_LT((with.state().joints - without.state().joints).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(a.cost, b.cost, 1e-14);
}

TEST(MarkerIkOrientation, TrackingDoesNotAllocatePerFrame) {
  const OrientationProblem p;
  std::vector<TargetId> ids;
  ik::MarkerIk ik = p.solver(ids);
  ik.bounds().clampAll();
  std::mt19937_64 rng(2);
  const Configuration a = randomPose(*p.model, rng), b = randomPose(*p.model, rng);
  auto at = [&](double t) {
    Configuration q = a;
    q.joints = (1 - t) * a.joints + t * b.joints;
    return q;
  };
  p.set(ik, ids, at(0.0));
  ik.setState(at(0.0));
  (void)ik.solve();
  long allocations = 0;
  for (int k = 1; k <= 30; ++k) {
    const Configuration q = at(k / 30.0);
    std::vector<Matrix3d> R;
    for (FrameId f : p.frames) R.push_back(rotationAt(*p.model, q, f));
    R.push_back(rotationAt(*p.model, q, p.model->frameId(p.model->linkName(LinkId(0)))));
    testing::AllocationCounter counter;
    for (std::size_t i = 0; i < ids.size(); ++i) ik.tasks().setOrientation(ids[i], R[i]);
    ik.tasks().setEnabled(ids[k % ids.size()], k % 3 != 0);  // a missing sample now and then
    const ik::MarkerIkResult r = ik.solve();
    allocations += counter.count();
    EXPECT_LT(r.orientation_max_error, 0.05) << k;
    ik.tasks().setEnabled(ids[k % ids.size()], true);
  }
  EXPECT_EQ(allocations, 0);
}

TEST(MarkerIkOrientation, MarkersAndOrientationsTogether) {
  // A marker on the hand's link and the orientations of the other links: both fitted exactly.
  const OrientationProblem p;
  std::vector<TargetId> ids;
  ik::MarkerIk ik = p.solver(ids);
  const FrameId hand = p.frames.back();
  const ik::MarkerTaskId m = ik.tasks().addMarker(p.model->frameName(hand));
  std::mt19937_64 rng(4);
  const Configuration truth = randomPose(*p.model, rng);
  p.set(ik, ids, truth);
  Data d(*p.model);
  forwardKinematics(*p.model, d, truth);
  ik.tasks().setMeasurement(m, frameOrigin(*p.model, d, hand));
  Configuration start = truth;
  start.base_position += Vector3d(0.1, -0.2, 0.05);
  ik.setState(start);
  const ik::MarkerIkResult r = ik.solve();
  EXPECT_LT(r.max_error, 1e-7);
  EXPECT_LT(r.orientation_max_error, 1e-7);
  EXPECT_LT((ik.state().base_position - truth.base_position).norm(), 1e-6);  // the marker places it
}

TEST(MarkerIkOrientation, PositionAndPoseTargetsAreRefused) {
  const OrientationProblem p;
  ik::MarkerIk ik(p.model);
  const std::string frame = p.model->frameName(p.frames[0]);
  EXPECT_THROW(ik.tasks().addPosition(frame), InvalidArgument);
  EXPECT_THROW(ik.tasks().addPose(frame), InvalidArgument);
  EXPECT_NO_THROW(ik.tasks().addOrientation(frame));
  EXPECT_THROW((void)ik.orientationError(TargetId(5)), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
