#include "kinetrack/ik/pin_drag.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/finite_diff.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kDt = 0.01;

// A bent, deterministic start pose (every joint uniform in ±0.3 rad, inside its limits).
Configuration startPose(const Model& m, unsigned seed = 7) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    double s = u(rng);
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    if (std::isfinite(lo) && std::isfinite(hi)) s = 0.5 * (lo + hi) + 0.5 * (hi - lo) * u(rng);
    q.joints[j] = s;
  }
  q.base_position = Vector3d(0.0, 0.0, 1.0);
  // human66: elbows bent (a straight arm pinned at the hand is the closed chain's singularity).
  if (const auto r = m.findJoint("jRightElbow_rotz"), l = m.findJoint("jLeftElbow_rotz"); r && l) {
    q.joints[r->value] = -1.0;
    q.joints[l->value] = 1.0;
  }
  return q;
}

Vector3d placement(const Model& m, const Configuration& q, FrameId f, Matrix3d* R = nullptr) {
  Data d(m);
  forwardKinematics(m, d, q);
  const Transform& X = updateFramePlacement(m, d, f);
  if (R != nullptr) *R = X.R;
  return X.p;
}

// Per-update checks shared by every scripted run: finite, velocity limits, joint limits.
struct RunStats {
  double max_pin_position = 0.0, max_pin_orientation = 0.0, max_speed_ratio = 0.0, max_limit_violation = 0.0;
  bool finite = true;
};

void record(const ik::PinDragIk& ik, const ik::PinDragResult& r, RunStats& st) {
  const Model& m = ik.model();
  st.max_pin_position = std::max(st.max_pin_position, r.pin_position_error);
  st.max_pin_orientation = std::max(st.max_pin_orientation, r.pin_orientation_error);
  st.finite = st.finite && ik.velocity().allFinite() && ik.state().joints.allFinite() &&
              ik.state().base_position.allFinite() && std::isfinite(r.pin_position_error);
  st.max_speed_ratio =
      std::max(st.max_speed_ratio, ik.velocity().cwiseAbs().cwiseQuotient(ik.velocityLimits()).maxCoeff());
  st.max_limit_violation = std::max(st.max_limit_violation, positionLimitViolation(m, ik.state()));
}

// Drags `frame` from its start along a circle of radius `radius` (m) in the y–z plane for `steps`.
RunStats circleDrag(ik::PinDragIk& ik, FrameId frame, double radius, int steps) {
  RunStats st;
  const Vector3d centre = placement(ik.model(), ik.state(), frame) - Vector3d(0.0, radius, 0.0);
  for (int k = 1; k <= steps; ++k) {
    const double a = 2.0 * M_PI * k / steps;
    ik.setDragTarget(frame, centre + radius * Vector3d(0.0, std::cos(a), std::sin(a)));
    record(ik, ik.update(kDt), st);
  }
  return st;
}

Model loadIcub() { return io::loadUrdf(testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf")); }

// ---- feasible drags: pins held ---------------------------------------------------------------

// The scripted drag of the issue: both feet pinned as poses, the other hand pinned in position,
// one hand dragged round a circle of `radius` (m) in 3 s and held 0.5 s on its start.
struct ScriptedDrag {
  RunStats stats;
  double return_error = 0.0;  ///< distance of the dragged hand from its start at the end (m)
};

ScriptedDrag scriptedHandDrag(const Model& m, const std::vector<std::string>& names, double radius) {
  const ik::PinDragOptions o;
  ik::PinDragIk ik(m, o);
  ik.setState(startPose(m));
  ik.pin(names[0], TargetType::Pose);
  ik.pin(names[1], TargetType::Pose);
  ik.pin(names[2], TargetType::Position);
  const FrameId hand = m.frameId(names[3]);
  ik.drag(hand);
  const Vector3d start = placement(m, ik.state(), hand);
  ScriptedDrag out;
  out.stats = circleDrag(ik, hand, radius, 300);
  for (int k = 0; k < 50; ++k) record(ik, ik.update(kDt), out.stats);  // settle on the last target
  out.return_error = (placement(m, ik.state(), hand) - start).norm();
  return out;
}

TEST(PinDrag, Human66HandDragHoldsPinnedFeetAndHand) {
  const ScriptedDrag r = scriptedHandDrag(makeHuman66(), {"RightToe", "LeftToe", "LeftHand", "RightHand"}, 0.15);
  EXPECT_TRUE(r.stats.finite);
  EXPECT_LT(r.stats.max_pin_position, 1e-4);
  EXPECT_LT(r.stats.max_pin_orientation, 1e-3);
  EXPECT_LE(r.stats.max_speed_ratio, 1.0 + 1e-9);
  EXPECT_LT(r.return_error, 0.01);  // the hand followed the circle back to its start
}

TEST(PinDrag, IcubHandDragHoldsPinnedSolesWithinJointLimits) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const ScriptedDrag r = scriptedHandDrag(loadIcub(), {"l_sole", "r_sole", "l_hand", "r_hand"}, 0.05);
  EXPECT_TRUE(r.stats.finite);
  EXPECT_LT(r.stats.max_pin_position, 1e-4);
  EXPECT_LT(r.stats.max_pin_orientation, 1e-3);
  EXPECT_LE(r.stats.max_speed_ratio, 1.0 + 1e-9);
  EXPECT_EQ(r.stats.max_limit_violation, 0.0);
  EXPECT_LT(r.return_error, 0.01);
}

TEST(PinDrag, ManyDragLinksFollowTheirTargets) {
  const Model m = makeHuman66();
  ik::PinDragIk ik(m);
  ik.setState(startPose(m));
  ik.pin("RightToe", TargetType::Pose);
  ik.pin("LeftToe", TargetType::Pose);
  const std::vector<FrameId> drags = {m.frameId("RightHand"), m.frameId("LeftHand"), m.frameId("Head")};
  std::vector<Vector3d> goals;
  for (const FrameId f : drags) {
    ik.drag(f);
    goals.push_back(placement(m, ik.state(), f) + Vector3d(0.05, 0.0, -0.05));
    ik.setDragTarget(f, goals.back());
  }
  ik::PinDragResult r;
  for (int k = 0; k < 200; ++k) r = ik.update(kDt);
  EXPECT_LT(r.pin_position_error, 1e-4);
  for (std::size_t i = 0; i < drags.size(); ++i)
    EXPECT_LT((placement(m, ik.state(), drags[i]) - goals[i]).norm(), 1e-3);
}

TEST(PinDrag, RolesSwitchMidRun) {
  const Model m = makeHuman66();
  const ik::PinDragOptions o;
  ik::PinDragIk ik(m, o);
  ik.setState(startPose(m));
  const FrameId rhand = m.frameId("RightHand"), lhand = m.frameId("LeftHand"), rtoe = m.frameId("RightToe");
  ik.pin(rtoe, TargetType::Pose);
  ik.pin("LeftToe", TargetType::Pose);
  ik.drag(rhand);
  ik.pin(lhand);
  RunStats st = circleDrag(ik, rhand, 0.1, 100);
  // Switch: the right hand is now pinned where it is, the left hand dragged, the right toe dragged
  // upward (a knee lift) while the left foot stays.
  ik.pin(rhand);
  ik.drag(lhand);
  ik.drag(rtoe, TargetType::Position, 5.0);
  EXPECT_EQ(ik.role(rhand), ik::PinDragRole::Pinned);
  EXPECT_EQ(ik.role(lhand), ik::PinDragRole::Dragged);
  const Vector3d toe_goal = placement(m, ik.state(), rtoe) + Vector3d(0.0, 0.0, 0.08);
  ik.setDragTarget(rtoe, toe_goal);
  RunStats st2 = circleDrag(ik, lhand, 0.1, 100);
  for (int k = 0; k < 100; ++k) record(ik, ik.update(kDt), st2);
  EXPECT_TRUE(st.finite && st2.finite);
  EXPECT_LT(std::max(st.max_pin_position, st2.max_pin_position), 1e-4);
  EXPECT_LT(std::max(st.max_pin_orientation, st2.max_pin_orientation), 1e-3);
  EXPECT_LT((placement(m, ik.state(), rtoe) - toe_goal).norm(), 1e-3);
  ik.release(rtoe);
  EXPECT_EQ(ik.role(rtoe), ik::PinDragRole::Free);
}

// ---- infeasible drags: bounded ---------------------------------------------------------------

TEST(PinDrag, DragBeyondReachStaysBoundedOnHuman66) {
  const Model m = makeHuman66();
  const ik::PinDragOptions o;
  ik::PinDragIk ik(m, o);
  ik.setState(startPose(m));
  ik.pin("RightToe", TargetType::Pose);
  ik.pin("LeftToe", TargetType::Pose);
  const FrameId hand = m.frameId("RightHand");
  ik.drag(hand);
  ik.setDragTarget(hand, placement(m, ik.state(), hand) + Vector3d(0.0, -3.0, 1.0));
  RunStats st;
  ik::PinDragResult r;
  for (int k = 0; k < 500; ++k) record(ik, r = ik.update(kDt), st);
  EXPECT_TRUE(st.finite);
  EXPECT_LE(st.max_speed_ratio, 1.0 + 1e-9);
  EXPECT_GT(r.drag_error, 1.0);  // out of reach: it stays away, stretched
  // The SR-inverse gives way: the pins are pulled along (0.37 m at most here), never further.
  EXPECT_LT(st.max_pin_position, 0.5);
}

TEST(PinDrag, ConflictingPinsAndDragStayBoundedOnIcub) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = loadIcub();
  const ik::PinDragOptions o;
  ik::PinDragIk ik(m, o);
  ik.setState(startPose(m));
  ik.pin("l_sole", TargetType::Pose);
  ik.pin("r_sole", TargetType::Pose);
  ik.pin("r_hand", TargetType::Pose);  // the hand is pinned, its forearm dragged away: conflict
  const FrameId forearm = m.frameId("r_forearm");
  ik.drag(forearm);
  ik.setDragTarget(forearm, placement(m, ik.state(), forearm) + Vector3d(0.5, -2.0, 1.0));
  const FrameId lhand = m.frameId("l_hand");
  ik.drag(lhand);
  ik.setDragTarget(lhand, placement(m, ik.state(), lhand) + Vector3d(0.0, 5.0, 0.0));
  RunStats st;
  ik::PinDragResult r;
  double max_k = 0.0;
  for (int k = 0; k < 500; ++k) {
    record(ik, r = ik.update(kDt), st);
    max_k = std::max(max_k, r.sr_damping + r.drag_damping);
  }
  EXPECT_TRUE(st.finite);
  EXPECT_LE(st.max_speed_ratio, 1.0 + 1e-9);
  EXPECT_EQ(st.max_limit_violation, 0.0);
  EXPECT_GT(max_k, 0.0);  // the SR-inverse damping was raised
}

TEST(PinDrag, JointRangeReturnBringsAJointBackInside) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = loadIcub();
  ik::PinDragIk ik(m);
  Configuration q = startPose(m);
  const JointId elbow = m.jointId("r_elbow");
  q.joints[elbow.value] = m.upperPositionLimits()[elbow.value] + 0.2;  // outside its range
  ik.setState(q);
  ik.pin("l_sole", TargetType::Pose);
  for (int k = 0; k < 200; ++k) ik.update(kDt);
  EXPECT_LE(ik.state().joints[elbow.value], m.upperPositionLimits()[elbow.value]);
  EXPECT_TRUE(ik.state().joints.allFinite());
}

TEST(PinDrag, DesiredJointValuesActInThePinsNullSpace) {
  const Model m = makeHuman66();
  ik::PinDragOptions o;
  o.posture_gain = 5.0;
  ik::PinDragIk ik(m, o);
  const Configuration q0 = startPose(m);
  ik.setState(q0);
  ik.pin("RightToe", TargetType::Pose);
  ik.pin("LeftToe", TargetType::Pose);
  const double before = q0.joints.norm();
  ik::PinDragResult r;
  for (int k = 0; k < 300; ++k) r = ik.update(kDt);
  EXPECT_LT(ik.state().joints.norm(), 0.8 * before);  // pulled towards s_d = 0
  EXPECT_LT(r.pin_position_error, 1e-4);
  EXPECT_LT(r.pin_orientation_error, 1e-3);
}

// ---- the assembled velocity, against finite differences --------------------------------------

TEST(PinDrag, StepVelocityMatchesFiniteDifferenceOfPinsAndDrag) {
  // The ν of one update, pushed through each task's finite-difference Jacobian: pins see their
  // Eq. 8 velocity K_F(r_ref − r), the drag its K_P(r_target − r) (feasible, undamped case).
  const Model m = makeHuman66();
  ik::PinDragOptions o;
  o.max_joint_velocity = 100.0;
  o.max_base_linear_velocity = o.max_base_angular_velocity = 100.0;
  ik::PinDragIk ik(m, o);
  const Configuration q = startPose(m);
  ik.setState(q);
  const FrameId toe = m.frameId("RightToe"), lhand = m.frameId("LeftHand"), rhand = m.frameId("RightHand");
  const Vector3d p_toe = placement(m, q, toe) + Vector3d(0.001, 0.0, 0.0);  // a small pin error
  ik.pinAt(toe, p_toe, Matrix3d::Identity(), TargetType::Position, 30.0);
  ik.pin(lhand, TargetType::Orientation, 30.0);
  ik.drag(rhand);
  const Vector3d goal = placement(m, q, rhand) + Vector3d(0.0, 0.01, 0.02);
  ik.setDragTarget(rhand, goal);
  const ik::PinDragResult r = ik.update(1e-3);
  ASSERT_EQ(r.sr_damping, 0.0);
  ASSERT_EQ(r.drag_damping, 0.0);
  const VectorXd& nu = ik.velocity();
  const Matrix6Xd Jt = testing::finiteDifferenceFrameJacobian(m, q, toe);
  const Matrix6Xd Jl = testing::finiteDifferenceFrameJacobian(m, q, lhand);
  const Matrix6Xd Jr = testing::finiteDifferenceFrameJacobian(m, q, rhand);
  const double tol = 1e-5;
  EXPECT_LT((Jt.topRows(3) * nu - 30.0 * (p_toe - placement(m, q, toe))).norm(), tol);
  EXPECT_LT((Jl.bottomRows(3) * nu).norm(), tol);
  EXPECT_LT((Jr.topRows(3) * nu - o.drag_gain * (goal - placement(m, q, rhand))).norm(), tol);
}

// ---- pins and drags are TaskSets ------------------------------------------------------------

// The same script twice, once through pin()/drag()/setDragTarget, once on pins()/drags() directly:
// the states agree bit for bit (the shortcuts are thin layers over the two sets).
TEST(PinDrag, TaskSetsAndShortcutsGiveTheSameSteps) {
  const Model m = makeHuman66();
  ik::PinDragOptions o;
  o.posture_gain = 2.0;
  ik::PinDragIk a(m, o), b(m, o);
  a.setState(startPose(m));
  b.setState(startPose(m));
  const FrameId hand = m.frameId("RightHand");
  a.pin("RightToe", TargetType::Pose);
  a.pin("LeftToe", TargetType::Pose, 30.0);
  a.pin("LeftHand", TargetType::Orientation);
  a.drag(hand, TargetType::Position, 15.0);
  // b: values left unset are taken where the frames are at the first update.
  b.pins().addPose("RightToe", {.gain = o.pin_gain}, {.gain = o.pin_gain});
  b.pins().addPose("LeftToe", {.gain = 30.0}, {.gain = 30.0});
  b.pins().addOrientation("LeftHand", {.gain = o.pin_gain});
  const TargetId drag = b.drags().addPosition("RightHand", {.gain = 15.0});
  const Vector3d start = placement(m, a.state(), hand);
  for (int k = 1; k <= 60; ++k) {
    const Vector3d p = start + Vector3d(0.0, 0.001 * k, 0.0005 * k), v(0.0, 0.1, 0.05);
    if (k > 1) {  // first update: the targets are where the hand is
      a.setDragTarget(hand, p, v);
      b.drags().setPosition(drag, p, v);
    }
    const ik::PinDragResult ra = a.update(kDt), rb = b.update(kDt);
    ASSERT_EQ(ra.pin_position_error, rb.pin_position_error) << k;
    ASSERT_EQ(ra.aux_rows, rb.aux_rows);
  }
  EXPECT_EQ(a.state().joints, b.state().joints);
  EXPECT_EQ(a.state().base_position, b.state().base_position);
  EXPECT_EQ(a.velocity(), b.velocity());
  EXPECT_EQ(b.role(hand), ik::PinDragRole::Dragged);
  EXPECT_EQ(b.role(m.frameId("LeftHand")), ik::PinDragRole::Pinned);
}

TEST(PinDrag, TasksAddedRemovedAndDisabledBetweenUpdates) {
  const Model m = makeHuman66();
  ik::PinDragIk ik(m);
  ik.setState(startPose(m));
  const TargetId rtoe = ik.pins().addPose("RightToe");
  const TargetId ltoe = ik.pins().addPose("LeftToe");
  ik::PinDragResult r = ik.update(kDt);
  const int base_rows = r.aux_rows;
  EXPECT_GE(base_rows, 12);
  const TargetId hand = ik.pins().addPosition("LeftHand");
  r = ik.update(kDt);
  EXPECT_EQ(r.aux_rows, base_rows + 3);
  ik.pins().setEnabled(hand, false);
  EXPECT_EQ(ik.role(m.frameId("LeftHand")), ik::PinDragRole::Free);
  r = ik.update(kDt);
  EXPECT_EQ(r.aux_rows, base_rows);
  ik.pins().setWeights(rtoe, 1.0, 0.0);  // a component of weight 0 is left out
  r = ik.update(kDt);
  EXPECT_EQ(r.aux_rows, base_rows - 3);
  ik.pins().remove(ltoe);
  r = ik.update(kDt);
  EXPECT_EQ(r.aux_rows, base_rows - 9);
  EXPECT_EQ(ik.role(m.frameId("LeftToe")), ik::PinDragRole::Free);
  EXPECT_EQ(ik.role(m.frameId("RightToe")), ik::PinDragRole::Pinned);
  EXPECT_EQ(ik.pins().size(), 2);
  ik.releaseAll();
  EXPECT_EQ(ik.pins().size(), 0);
  r = ik.update(kDt);
  EXPECT_EQ(r.aux_rows, base_rows - 12);
  EXPECT_EQ(r.status, ik::Status::Converged);
}

TEST(PinDrag, UpdateAfterATaskIsAddedAllocatesOnlyOnce) {
  const Model m = makeHuman66();
  ik::PinDragIk ik(m);
  ik.setState(startPose(m));
  ik.pin("RightToe", TargetType::Pose);
  const FrameId hand = m.frameId("RightHand");
  ik.drag(hand);
  ik.update(kDt);
  ik.pins().addPosition("LeftHand");  // value unset: taken at the next update
  ik.update(kDt);                     // re-sizes the workspace
  const Vector3d goal = placement(m, ik.state(), hand) + Vector3d(0.0, 0.05, 0.05);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    for (int k = 0; k < 3; ++k) {
      ik.setDragTarget(hand, goal);
      ik.update(kDt);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(PinDrag, PinFeedForwardMovesThePinnedFrame) {
  // A pin with a velocity given: ṙ_F^d = v + K_F (r_ref − r); at r = r_ref the frame moves at v.
  const Model m = makeHuman66();
  ik::PinDragOptions o;
  o.max_joint_velocity = 100.0;
  o.max_base_linear_velocity = o.max_base_angular_velocity = 100.0;
  ik::PinDragIk ik(m, o);
  const Configuration q = startPose(m);
  ik.setState(q);
  const FrameId lhand = m.frameId("LeftHand");
  const TargetId t = ik.pins().addPosition("LeftHand", {.gain = 20.0});
  const Vector3d v(0.02, -0.01, 0.03);
  ik.pins().setPosition(t, placement(m, q, lhand), v);
  ik.pin("RightToe", TargetType::Pose);
  const ik::PinDragResult r = ik.update(1e-3);
  ASSERT_EQ(r.sr_damping, 0.0);
  const Matrix6Xd J = testing::finiteDifferenceFrameJacobian(m, q, lhand);
  EXPECT_LT((J.topRows(3) * ik.velocity() - v).norm(), 1e-5);
}

// ---- the result ------------------------------------------------------------------------------

TEST(PinDrag, ResultReportsStatusPassesMnteAndViolations) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = loadIcub();
  Configuration q = startPose(m);
  const JointId elbow = m.jointId("r_elbow");
  const double hi = m.upperPositionLimits()[elbow.value];
  q.joints[elbow.value] = hi - 1e-3;  // just inside: a drag that bends it crosses in one step
  ik::PinDragOptions o;
  ik::PinDragIk ik(m, o);
  ik.setState(q);
  ik.pin("l_sole", TargetType::Pose);
  const FrameId hand = m.frameId("r_hand");
  ik.drag(hand, TargetType::Pose);
  ik.setDragOrientation(hand, Matrix3d::Identity());
  ik.setDragTarget(hand, placement(m, q, hand) + Vector3d(0.0, 0.0, 0.3));
  const ik::PinDragResult r = ik.update(kDt);
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_GE(r.iterations, 1);
  EXPECT_GT(r.mnte, 0.0);  // the hand's orientation is off its target
  EXPECT_EQ(r.limit_violation, 0.0);
  EXPECT_EQ(r.row_violation, 0.0);
  // Without lock passes, a joint crossing its limit is clipped: the passes ran out. Desired joint
  // values beyond the elbow's limit drive it across in one step.
  o.max_lock_passes = 0;
  o.posture_gain = 10.0;
  ik::PinDragIk clip(m, o);
  q.joints[elbow.value] = hi - 0.05;
  clip.setState(q);
  VectorXd desired = q.joints;
  desired[elbow.value] = hi + 1.0;
  clip.setDesiredJoints(desired);
  const ik::PinDragResult rc = clip.update(kDt);
  EXPECT_EQ(rc.status, ik::Status::IterationLimit);
  EXPECT_EQ(rc.iterations, 1);
  EXPECT_EQ(rc.limit_violation, 0.0);  // clipped onto the limit, never across
  EXPECT_EQ(clip.state().joints[elbow.value], hi);
  // Without orientation tasks, MNTE is 0.
  clip.releaseAll();
  clip.pin(hand);
  EXPECT_EQ(clip.update(kDt).mnte, 0.0);
}

// ---- API -------------------------------------------------------------------------------------

TEST(PinDrag, UpdateDoesNotAllocate) {
  const Model m = makeHuman66();
  ik::PinDragIk ik(m);
  ik.setState(startPose(m));
  ik.pin("RightToe", TargetType::Pose);
  ik.pin("LeftToe", TargetType::Pose);
  ik.pin("LeftHand");
  const FrameId hand = m.frameId("RightHand");
  ik.drag(hand);
  ik.setDragTarget(hand, placement(m, ik.state(), hand) + Vector3d(0.0, 0.0, 0.1));
  for (int k = 0; k < 3; ++k) ik.update(kDt);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    ik.update(kDt);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(PinDrag, VelocityLimitsAreTheModelsOrTheOptions) {
  ik::PinDragOptions o;
  o.max_joint_velocity = 3.0;
  o.max_base_linear_velocity = 1.5;
  const Model h = makeHuman66();  // no model velocity limits
  const ik::PinDragIk hik(h, o);
  EXPECT_EQ(hik.velocityLimits().head(3), Vector3d::Constant(1.5));
  EXPECT_EQ(hik.velocityLimits().segment(3, 3), Vector3d::Constant(o.max_base_angular_velocity));
  EXPECT_TRUE((hik.velocityLimits().tail(h.numJoints()).array() == 3.0).all());
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = loadIcub();
  const ik::PinDragIk ik(m, o);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double v = std::min(std::abs(m.lowerVelocityLimits()[j]), std::abs(m.upperVelocityLimits()[j]));
    EXPECT_EQ(ik.velocityLimits()[m.nvBase() + j], std::isfinite(v) && v > 0.0 ? v : 3.0) << m.jointName(JointId(j));
  }
}

TEST(PinDrag, BadInputThrowsClearly) {
  const Model m = makeHuman66();
  ik::PinDragIk ik(m);
  try {
    ik.pin("NoSuchLink");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("NoSuchLink"), std::string::npos) << e.what();
  }
  const FrameId hand = m.frameId("RightHand");
  EXPECT_THROW(ik.setDragTarget(hand, Vector3d::Zero()), InvalidArgument);  // not dragged
  ik.drag(hand);
  EXPECT_THROW(ik.setDragTarget(hand, Vector3d(NAN, 0.0, 0.0)), InvalidArgument);
  EXPECT_THROW(ik.pin("LeftHand", TargetType::Position, -5.0), InvalidArgument);  // negative gain
  EXPECT_THROW(ik.drag(m.frameId("LeftHand"), TargetType::Position, NAN), InvalidArgument);
  EXPECT_EQ(ik.role(m.frameId("LeftHand")), ik::PinDragRole::Free);
  const FrameId head = m.frameId("Head");
  ik.drag(head, TargetType::Orientation);
  EXPECT_THROW(ik.setDragTarget(head, Vector3d::Zero()), InvalidArgument);  // no position drag
  EXPECT_THROW(ik.setDragOrientation(hand, Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(ik.pins().addPosition("NoSuchLink"), InvalidArgument);
  EXPECT_THROW(ik.drags().addPose("Head", {.weight = -1.0}), InvalidArgument);
  EXPECT_THROW(ik::PinDragIk(std::shared_ptr<const Model>()), InvalidArgument);
  EXPECT_THROW(ik.update(0.0), InvalidArgument);
  EXPECT_THROW(ik.update(NAN), InvalidArgument);
  ik::PinDragOptions o;
  o.pin_gain = -1.0;
  EXPECT_THROW(ik::PinDragIk(m, o), InvalidArgument);
  o = {};
  o.sr_max_damping = -1e-3;
  EXPECT_THROW(ik::PinDragIk(m, o), InvalidArgument);
  EXPECT_THROW(ik.setJointMobility(VectorXd::Constant(m.numJoints(), -1.0)), InvalidArgument);
  EXPECT_THROW(ik.setDesiredJoints(VectorXd::Zero(3)), InvalidArgument);
  EXPECT_TRUE(ik.velocity().allFinite());
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
