// ik::TaskSet (ids, validation, revisions, solver rules) and the limit objects: Eq. 12 shaping by
// hand, DYN's QP bounds and the per-frame chart bounds written by the same objects, violations.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(TaskSet, AddsValidatesAndCounts) {
  ik::TaskSet tasks(std::make_shared<const Model>(makeHuman48()), "Test");
  const TargetId head = tasks.addOrientation("Head", {2.0, 5.0});
  const TargetId pelvis = tasks.addPose("Pelvis", {3.0, 7.0}, {4.0, 9.0});
  const TargetId hand = tasks.addPosition("RightHand");
  EXPECT_EQ(tasks.size(), 3);
  EXPECT_EQ(tasks.type(head), TargetType::Orientation);
  EXPECT_EQ(tasks[head].position_weight, 0.0);  // the component the type lacks stays 0
  EXPECT_EQ(tasks[head].orientation_weight, 2.0);
  EXPECT_EQ(tasks[head].orientation_gain, 5.0);
  EXPECT_EQ(tasks[pelvis].position_gain, 7.0);
  EXPECT_EQ(tasks[hand].orientation_weight, 0.0);
  EXPECT_EQ(tasks.frame(hand), tasks.model().frameId("RightHand"));

  // Unknown frames list the valid names; bad weights and gains are refused.
  try {
    tasks.addOrientation("NoSuchFrame");
    ADD_FAILURE() << "no throw";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("Head"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tasks.addOrientation("Head", {-1.0, 1.0}), InvalidArgument);
  EXPECT_THROW(tasks.addOrientation("Head", {1.0, std::nan("")}), InvalidArgument);
  EXPECT_THROW(tasks.setWeights(head, kInf, 1.0), InvalidArgument);
  EXPECT_THROW(tasks.setGains(head, 1.0, -2.0), InvalidArgument);

  // Values: rotations checked, kinds checked, velocities remembered only when given.
  EXPECT_THROW(tasks.setOrientation(head, 2.0 * Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(tasks.setOrientation(head, -Matrix3d::Identity()), InvalidArgument);  // det < 0
  EXPECT_THROW(tasks.setPosition(head, Vector3d::Zero()), InvalidArgument);
  EXPECT_THROW(tasks.setOrientation(hand, Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(tasks.setPosition(hand, Vector3d(0, std::nan(""), 0)), InvalidArgument);
  tasks.setOrientation(head, Matrix3d::Identity(), Vector3d(0, 0, 1));
  EXPECT_TRUE(tasks[head].angular_velocity_given);
  tasks.setOrientation(head, Matrix3d::Identity());
  EXPECT_FALSE(tasks[head].angular_velocity_given);
  EXPECT_TRUE(tasks[head].orientationSet());
  EXPECT_FALSE(tasks[pelvis].orientationSet());  // no value yet

  // Removal: the id stays invalid, ids are never reused.
  tasks.remove(head);
  EXPECT_EQ(tasks.size(), 2);
  EXPECT_THROW(tasks.setEnabled(head, true), InvalidArgument);
  EXPECT_THROW(static_cast<void>(tasks[TargetId()]), InvalidArgument);
  EXPECT_EQ(tasks.addOrientation("Head").value, 3);
}

TEST(TaskSet, StructureRevisionChangesOnlyWhenTheActiveSetMayChange) {
  ik::TaskSet tasks(std::make_shared<const Model>(makeHuman48()));
  const TargetId a = tasks.addOrientation("Head");
  std::uint64_t r = tasks.structureRevision();
  tasks.setOrientation(a, Matrix3d::Identity());
  tasks.setWeight(a, 2.0);    // still active
  tasks.setEnabled(a, true);  // unchanged
  EXPECT_EQ(tasks.structureRevision(), r);
  const std::uint64_t w = tasks.weightRevision();
  tasks.setWeight(a, 0.0);  // inactive now
  EXPECT_NE(tasks.structureRevision(), r);
  EXPECT_NE(tasks.weightRevision(), w);
  r = tasks.structureRevision();
  tasks.setEnabled(a, false);
  EXPECT_NE(tasks.structureRevision(), r);
}

TEST(TaskSet, SolversImposeTheirRules) {
  const Model m = makeHuman66();
  PairwiseIk pair(m);
  EXPECT_THROW(pair.tasks().addPosition("Head"), InvalidArgument);  // off the root link
  EXPECT_THROW(pair.tasks().addPose("Pelvis"), InvalidArgument);
  EXPECT_NO_THROW(pair.tasks().addPosition("Pelvis"));
  InstantaneousIk whole(m);
  EXPECT_NO_THROW(whole.tasks().addPose("Head"));
}

TEST(Limits, ShapedVelocityBoundsFollowEq12) {
  ik::LimitShaping s;  // k = 20, V = 20, discrete guard on
  const double dt = 0.01;
  // Far inside: ±V tanh(k·distance), the guard inactive.
  auto [lo, hi] = ik::shapedVelocityBounds(0.0, -1.0, 1.0, kInf, s, dt);
  EXPECT_NEAR(lo, -20.0 * std::tanh(20.0), 1e-12);
  EXPECT_NEAR(hi, 20.0 * std::tanh(20.0), 1e-12);
  // Near the upper limit the guard caps the step: (upper − s)/Δt.
  std::tie(lo, hi) = ik::shapedVelocityBounds(0.99, -1.0, 1.0, kInf, s, dt);
  EXPECT_NEAR(hi, std::min(20.0 * std::tanh(20.0 * 0.01), 0.01 / dt), 1e-12);
  // Past the upper limit both bounds push back in, at most onto the limit in one step.
  std::tie(lo, hi) = ik::shapedVelocityBounds(1.1, -1.0, 1.0, kInf, s, dt);
  EXPECT_LT(hi, 0.0);
  EXPECT_GE(hi, -0.1 / dt - 1e-12);
  // A model velocity bound is the amplitude and bounds an unlimited side.
  std::tie(lo, hi) = ik::shapedVelocityBounds(0.0, -kInf, 1.0, 3.0, s, dt);
  EXPECT_EQ(lo, -3.0);
  EXPECT_NEAR(hi, 3.0 * std::tanh(20.0), 1e-12);
  // Without the guard: the paper's Eq. 12 exactly.
  s.discrete_safe = false;
  std::tie(lo, hi) = ik::shapedVelocityBounds(0.99, -1.0, 1.0, kInf, s, dt);
  EXPECT_NEAR(hi, 20.0 * std::tanh(20.0 * 0.01), 1e-12);
}

TEST(Limits, DynamicalQpBoundsAreTheLimitObjects) {
  // Two paths to the same numbers: the QP DYN solved and the limit objects evaluated here.
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubForRetargeting(io::loadUrdf(urdf));
  ASSERT_GT(m.linearConstraints().size(), 0u);
  DynamicalIkOptions o;
  o.use_model_velocity_limits = true;
  DynamicalIk dyn(m, o);
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j)
    q.joints[j] = std::clamp(0.3 * std::sin(j), m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  dyn.setState(q);
  const TargetId t = dyn.tasks().addOrientation(m.frameName(m.linkFrame(LinkId(m.numLinks() - 1))));
  dyn.tasks().setOrientation(t, Matrix3d::Identity());
  const double dt = 0.01;
  static_cast<void>(dyn.step(dt));
  const ik::LimitShaping s{o.limit_gain, o.default_velocity_limit, o.discrete_safe_limits};
  const int n = m.numJoints(), nb = m.nvBase(), rows = static_cast<int>(m.linearConstraints().size());
  VectorXd lb(n), ub(n), lbA(rows), ubA(rows);
  ik::JointLimits(m).velocityBounds(q.joints, dt, s, true, lb, ub);
  ik::RowLimits(m).velocityBounds(q.joints, dt, s, lbA, ubA);
  EXPECT_EQ(dyn.lastProblem().lb.tail(n), lb);
  EXPECT_EQ(dyn.lastProblem().ub.tail(n), ub);
  EXPECT_EQ(dyn.lastProblem().lbA, lbA);
  EXPECT_EQ(dyn.lastProblem().ubA, ubA);
  EXPECT_EQ(dyn.lastProblem().A.rightCols(n), ik::RowLimits(m).matrix().rightCols(n));
  EXPECT_TRUE(ik::RowLimits(m).matrix().leftCols(nb).isZero());
}

TEST(Limits, ChartBoundsAndViolations) {
  const Model m = makeHuman48();
  const ik::JointLimits limits(m);
  Configuration q(m);
  JointId knee(0);
  while (!std::isfinite(m.lowerPositionLimits()[knee.value])) knee = JointId(knee.value + 1);
  q.joints[knee.value] = m.lowerPositionLimits()[knee.value] - 0.25;
  VectorXd lb(m.numJoints()), ub(m.numJoints());
  limits.displacementBounds(q.joints, lb, ub);
  EXPECT_DOUBLE_EQ(lb[knee.value], 0.25);  // the step must bring the knee back in
  EXPECT_DOUBLE_EQ(limits.violation(q.joints), 0.25);
  EXPECT_TRUE(ik::RowLimits(m).empty());
  EXPECT_EQ(ik::RowLimits(m).violation(q.joints), 0.0);
  VectorXd blb = VectorXd::Zero(6), bub = VectorXd::Zero(6);
  ik::BaseVelocityLimit{1.0, 2.0}.bounds(6, blb, bub);
  EXPECT_EQ(bub, (VectorXd(6) << 1, 1, 1, 2, 2, 2).finished());
  EXPECT_EQ(blb, -bub);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
