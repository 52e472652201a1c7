// ik::TaskSet (ids, validation, revisions, solver rules; frame, marker, coordinate, coupler and
// posture tasks, each solver accepting only the kinds it reads) and the limit objects: Eq. 12
// shaping by hand, DYN's QP bounds and the per-frame chart bounds written by the same objects,
// violations, per-coordinate bounds (free, clamped, locked).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The message of the InvalidArgument `f` throws ("" and a test failure when it does not throw).
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidArgument";
  return {};
}
bool mentions(const std::string& message, const std::string& what) { return message.find(what) != std::string::npos; }

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

// --- marker, coordinate, coupler and posture tasks ----------------------------------------------

std::shared_ptr<const Model> human48() { return std::make_shared<const Model>(makeHuman48()); }

TEST(TaskSet, MarkerTasksTakeMissingMeasurements) {
  ik::TaskSet tasks(human48(), "Test", {}, ik::TaskKinds::all());
  std::uint64_t r = tasks.structureRevision(), w = tasks.weightRevision();
  const ik::MarkerTaskId head = tasks.addMarker("Head", 2.0);
  const ik::MarkerTaskId hand = tasks.addMarker("RightHand");
  EXPECT_EQ(head.value, 0);
  EXPECT_EQ(hand.value, 1);
  EXPECT_NE(tasks.structureRevision(), r);
  EXPECT_NE(tasks.weightRevision(), w);
  EXPECT_EQ(tasks[head].frame, tasks.model().frameId("Head"));
  EXPECT_EQ(tasks[head].link, tasks.model().frameLink(tasks.model().frameId("Head")));
  EXPECT_EQ(tasks[head].weight, 2.0);
  EXPECT_EQ(tasks[hand].weight, 1.0);
  EXPECT_EQ(tasks.size(), 0);  // frame tasks are another kind
  EXPECT_TRUE(tasks.all().empty());

  // Errors: the unknown frame with the valid names, bad weights naming the marker.
  EXPECT_TRUE(mentions(refusal([&] { tasks.addMarker("NoSuchFrame"); }), "RightHand"));
  EXPECT_TRUE(mentions(refusal([&] { tasks.addMarker("Head", -1.0); }), "marker 'Head'"));
  EXPECT_THROW(tasks.addMarker("Head", kNaN), InvalidArgument);
  EXPECT_THROW(tasks.addMarker("Head", kInf), InvalidArgument);
  EXPECT_THROW(tasks.setWeight(head, -0.5), InvalidArgument);
  EXPECT_THROW(static_cast<void>(tasks[ik::MarkerTaskId()]), InvalidArgument);
  EXPECT_THROW(static_cast<void>(tasks[ik::MarkerTaskId(7)]), InvalidArgument);

  // No measurement yet: missing. A NaN (or infinite) measurement is a missing marker, not an error.
  EXPECT_FALSE(tasks[head].present());
  EXPECT_FALSE(tasks[head].active());
  tasks.setMeasurement(head, Vector3d(0.1, 0.2, 1.7));
  EXPECT_TRUE(tasks[head].active());
  EXPECT_EQ(tasks[head].measured, Vector3d(0.1, 0.2, 1.7));
  EXPECT_NO_THROW(tasks.setMeasurement(head, Vector3d(kNaN, 0.0, 0.0)));
  EXPECT_FALSE(tasks[head].active());
  tasks.setMeasurement(head, Vector3d(0.0, kInf, 0.0));
  EXPECT_FALSE(tasks[head].present());
  tasks.setMeasurement(head, Vector3d::Zero());
  tasks.setMissing(head);
  EXPECT_FALSE(tasks[head].present());
  const std::vector<Vector3d> both = {Vector3d(1, 2, 3), Vector3d::Constant(kNaN)};
  tasks.setMeasurements(both);
  EXPECT_TRUE(tasks[head].active());
  EXPECT_FALSE(tasks[hand].active());
  EXPECT_THROW(tasks.setMeasurements(std::vector<Vector3d>(3)), InvalidArgument);

  // Weights: zero ↔ non-zero and enabling change the structure; other weight changes do not.
  r = tasks.structureRevision();
  w = tasks.weightRevision();
  tasks.setWeight(head, 3.0);
  EXPECT_EQ(tasks.structureRevision(), r);
  EXPECT_NE(tasks.weightRevision(), w);
  tasks.setWeight(head, 0.0);
  EXPECT_FALSE(tasks[head].active());
  EXPECT_NE(tasks.structureRevision(), r);
  tasks.setWeight(head, 1.0);
  r = tasks.structureRevision();
  tasks.setEnabled(head, true);  // unchanged
  EXPECT_EQ(tasks.structureRevision(), r);
  tasks.setEnabled(head, false);
  EXPECT_NE(tasks.structureRevision(), r);
  EXPECT_FALSE(tasks[head].active());
  tasks.setEnabled(head, true);
  EXPECT_TRUE(tasks[head].active());

  // Removal: the id stays invalid, never reused; the list keeps its slot.
  r = tasks.structureRevision();
  tasks.remove(hand);
  EXPECT_NE(tasks.structureRevision(), r);
  EXPECT_THROW(tasks.setMeasurement(hand, Vector3d::Zero()), InvalidArgument);
  EXPECT_THROW(tasks.remove(hand), InvalidArgument);
  EXPECT_THROW(static_cast<void>(tasks[hand]), InvalidArgument);
  EXPECT_FALSE(tasks.markers()[1].alive);
  EXPECT_EQ(tasks.addMarker("Pelvis").value, 2);
  EXPECT_EQ(tasks.markers().size(), 3u);
  tasks.setMeasurements(std::vector<Vector3d>(3, Vector3d::Zero()));  // one per task ever added
}

TEST(TaskSet, CoordinateTasksAreOffWithoutAValue) {
  ik::TaskSet tasks(human48(), "Test", {}, ik::TaskKinds::all());
  const Model& m = tasks.model();
  const std::string j0 = m.jointName(JointId(0)), j5 = m.jointName(JointId(5));
  const ik::CoordinateTaskId a = tasks.addCoordinate(j0, 5.0);
  const ik::CoordinateTaskId b = tasks.addCoordinate(j5);
  EXPECT_EQ(a.value, 0);
  EXPECT_EQ(b.value, 1);
  EXPECT_EQ(tasks[b].joint, JointId(5));
  EXPECT_EQ(tasks[a].weight, 5.0);
  EXPECT_TRUE(mentions(refusal([&] { tasks.addCoordinate("no_such_joint"); }), j5));  // lists the joints
  EXPECT_TRUE(mentions(refusal([&] { tasks.addCoordinate(j0, -2.0); }), "coordinate task '" + j0 + "'"));
  EXPECT_THROW(tasks.addCoordinate(j0, kNaN), InvalidArgument);
  EXPECT_THROW(tasks.setWeight(a, kInf), InvalidArgument);

  EXPECT_FALSE(tasks[a].active());  // no value yet
  tasks.setValue(a, 0.3);
  EXPECT_TRUE(tasks[a].active());
  tasks.setValue(a, kNaN);  // off for the frame
  EXPECT_FALSE(tasks[a].active());
  const std::vector<double> values = {0.1, kNaN};
  tasks.setCoordinateValues(values);
  EXPECT_EQ(tasks[a].value, 0.1);
  EXPECT_TRUE(tasks[a].active());
  EXPECT_FALSE(tasks[b].active());
  tasks.setCoordinateValues({});  // none: every task off
  EXPECT_FALSE(tasks[a].active());
  EXPECT_THROW(tasks.setCoordinateValues(std::vector<double>(3, 0.0)), InvalidArgument);

  std::uint64_t r = tasks.structureRevision();
  tasks.setWeight(a, 0.0);
  EXPECT_NE(tasks.structureRevision(), r);
  r = tasks.structureRevision();
  tasks.setEnabled(b, false);
  EXPECT_NE(tasks.structureRevision(), r);
  tasks.remove(b);
  EXPECT_THROW(tasks.setValue(b, 0.0), InvalidArgument);
  EXPECT_EQ(tasks.addCoordinate(j5).value, 2);
}

TEST(TaskSet, CouplerTasksAreExactOrPenalties) {
  ik::TaskSet tasks(human48(), "Test", {}, ik::TaskKinds::all());
  const Model& m = tasks.model();
  const std::string a = m.jointName(JointId(3)), b = m.jointName(JointId(4));
  const std::uint64_t r0 = tasks.structureRevision();
  const ik::CouplerTaskId exact = tasks.addCoupler("k1", a, b, ScalarFunction::linear(0.5, 0.0));
  EXPECT_NE(tasks.structureRevision(), r0);
  const ik::CouplerTaskId soft = tasks.addCoupler("k2", b, a, ScalarFunction::constant(0.1), 20.0);
  EXPECT_EQ(exact.value, 0);
  EXPECT_EQ(soft.value, 1);
  EXPECT_TRUE(tasks[exact].exact());
  EXPECT_TRUE(tasks[exact].active());
  EXPECT_FALSE(tasks[soft].exact());
  EXPECT_EQ(tasks[soft].weight, 20.0);
  EXPECT_EQ(tasks[soft].name, "k2");
  EXPECT_EQ(tasks[exact].dependent, JointId(3));
  EXPECT_EQ(tasks[exact].independent, JointId(4));
  EXPECT_EQ(tasks[exact].function.slope(), 0.5);

  // Errors: unknown joints (listing them), a joint coupled to itself, NaN or negative weights.
  EXPECT_TRUE(mentions(refusal([&] { tasks.addCoupler("k", "nope", b, ScalarFunction()); }), a));
  EXPECT_THROW(tasks.addCoupler("k", a, "nope", ScalarFunction()), InvalidArgument);
  EXPECT_TRUE(mentions(refusal([&] { tasks.addCoupler("self", a, a, ScalarFunction()); }), "coupler 'self'"));
  EXPECT_TRUE(mentions(refusal([&] { tasks.addCoupler("kn", a, b, ScalarFunction(), kNaN); }), "coupler 'kn'"));
  EXPECT_THROW(tasks.addCoupler("k", a, b, ScalarFunction(), -1.0), InvalidArgument);
  EXPECT_THROW(tasks.addCoupler("k", a, b, ScalarFunction(), -kInf), InvalidArgument);
  EXPECT_THROW(tasks.setWeight(soft, kNaN), InvalidArgument);
  EXPECT_EQ(tasks.couplers().size(), 2u);  // nothing added by the refused calls

  // Exact ↔ penalty and zero ↔ non-zero change the structure; a penalty re-weighted does not.
  std::uint64_t r = tasks.structureRevision();
  tasks.setWeight(soft, 30.0);
  EXPECT_EQ(tasks.structureRevision(), r);
  tasks.setWeight(soft, kInf);
  EXPECT_TRUE(tasks[soft].exact());
  EXPECT_NE(tasks.structureRevision(), r);
  r = tasks.structureRevision();
  tasks.setWeight(exact, 0.0);
  EXPECT_FALSE(tasks[exact].active());
  EXPECT_NE(tasks.structureRevision(), r);
  r = tasks.structureRevision();
  tasks.setEnabled(soft, false);
  EXPECT_FALSE(tasks[soft].active());
  EXPECT_NE(tasks.structureRevision(), r);
  tasks.remove(soft);
  EXPECT_THROW(tasks.setWeight(soft, 1.0), InvalidArgument);
}

TEST(TaskSet, PostureTasksWeighEveryJoint) {
  ik::TaskSet tasks(human48(), "Test", {}, ik::TaskKinds::all());
  const int n = tasks.model().numJoints();
  const ik::PostureTaskId all = tasks.addPosture(2.0);
  EXPECT_EQ(all.value, 0);
  EXPECT_EQ(tasks[all].weights, VectorXd::Constant(n, 2.0));
  EXPECT_FALSE(tasks[all].values.allFinite());  // no pose yet
  VectorXd w = VectorXd::Zero(n);
  w[4] = 3.0;
  const ik::PostureTaskId one = tasks.addPosture(w);
  EXPECT_EQ(one.value, 1);
  EXPECT_THROW(tasks.addPosture(VectorXd::Zero(n - 1)), InvalidArgument);
  w[2] = -1.0;
  EXPECT_TRUE(mentions(refusal([&] { tasks.addPosture(w); }), tasks.model().jointName(JointId(2))));
  EXPECT_THROW(tasks.addPosture(kNaN), InvalidArgument);
  EXPECT_THROW(tasks.setWeights(one, w), InvalidArgument);
  EXPECT_EQ(tasks[one].weights[2], 0.0);  // unchanged by the refused call
  EXPECT_THROW(tasks.setValues(one, VectorXd::Zero(n + 1)), InvalidArgument);
  tasks.setValues(one, VectorXd::Constant(n, 0.25));
  EXPECT_EQ(tasks[one].values, VectorXd::Constant(n, 0.25));
  std::uint64_t r = tasks.structureRevision();
  w[2] = 0.0;
  w[4] = 5.0;
  tasks.setWeights(one, w);  // joint 4 stays weighted
  EXPECT_EQ(tasks.structureRevision(), r);
  w[4] = 0.0;
  tasks.setWeights(one, w);  // joint 4 leaves the sum
  EXPECT_NE(tasks.structureRevision(), r);
  tasks.setEnabled(one, false);
  EXPECT_FALSE(tasks[one].active());
  tasks.remove(all);
  EXPECT_THROW(tasks.setValues(all, VectorXd::Zero(n)), InvalidArgument);
}

TEST(TaskSet, PerFrameValuesDoNotAllocate) {
  ik::TaskSet tasks(human48(), "Test", {}, ik::TaskKinds::all());
  const int n = tasks.model().numJoints();
  const ik::MarkerTaskId mk = tasks.addMarker("Head");
  const ik::CoordinateTaskId c = tasks.addCoordinate(tasks.model().jointName(JointId(1)));
  const ik::CouplerTaskId k =
      tasks.addCoupler("k", tasks.model().jointName(JointId(1)), tasks.model().jointName(JointId(2)), {}, 4.0);
  const ik::PostureTaskId p = tasks.addPosture(1.0);
  const std::vector<Vector3d> measured = {Vector3d(0.0, 0.1, 1.6)};
  const std::vector<double> values = {0.2};
  const VectorXd pose = VectorXd::Constant(n, 0.1), weights = VectorXd::Constant(n, 0.5);
  testing::AllocationCounter counter;
  tasks.setMeasurement(mk, Vector3d(kNaN, kNaN, kNaN));
  tasks.setMissing(mk);
  tasks.setMeasurements(measured);
  tasks.setWeight(mk, 2.0);
  tasks.setEnabled(mk, false);
  tasks.setValue(c, 0.1);
  tasks.setCoordinateValues(values);
  tasks.setCoordinateValues({});
  tasks.setWeight(c, 0.0);
  tasks.setWeight(k, kInf);
  tasks.setValues(p, pose);
  tasks.setWeights(p, weights);
  EXPECT_EQ(counter.count(), 0);
}

TEST(TaskSet, SolversAcceptOnlyTheKindsTheyRead) {
  const Model m = makeHuman66();
  DynamicalIk dyn(m);
  InstantaneousIk whole(m);
  PairwiseIk pair(m);
  EXPECT_TRUE(mentions(refusal([&] { dyn.tasks().addMarker("Head"); }), "DynamicalIk"));
  EXPECT_THROW(whole.tasks().addCoordinate(m.jointName(JointId(0))), InvalidArgument);
  EXPECT_THROW(pair.tasks().addPosture(1.0), InvalidArgument);
  EXPECT_THROW(dyn.tasks().addCoupler("k", m.jointName(JointId(0)), m.jointName(JointId(1)), {}), InvalidArgument);
  EXPECT_TRUE(dyn.tasks().markers().empty());
  ik::MarkerIk marker_ik(std::make_shared<const Model>(m));
  EXPECT_TRUE(mentions(refusal([&] { marker_ik.tasks().addPose("Head"); }), "MarkerIk"));
  EXPECT_NO_THROW(marker_ik.tasks().addMarker("Head"));
  EXPECT_EQ(marker_ik.tasks().size(), 0);
}

// --- per-coordinate bounds ------------------------------------------------------------------------

TEST(CoordinateBounds, ClampLockAndFreeJointByJoint) {
  const auto model = human48();
  const Model& m = *model;
  ik::CoordinateBounds b(model, "Test");
  const int n = m.numJoints();
  EXPECT_EQ(b.size(), n);
  EXPECT_EQ(b.lower(), VectorXd::Constant(n, -kInf));  // free by default
  EXPECT_EQ(b.upper(), VectorXd::Constant(n, kInf));
  JointId limited(0);
  while (!std::isfinite(m.lowerPositionLimits()[limited.value])) limited = JointId(limited.value + 1);
  const std::string name = m.jointName(limited), other = m.jointName(JointId(limited.value + 1));
  EXPECT_TRUE(b.isFree(limited));

  std::uint64_t r = b.revision();
  b.clamp(name);  // the model's range
  EXPECT_NE(b.revision(), r);
  EXPECT_EQ(b.lower()[limited.value], m.lowerPositionLimits()[limited.value]);
  EXPECT_EQ(b.upper()[limited.value], m.upperPositionLimits()[limited.value]);
  EXPECT_FALSE(b.isFree(limited));
  b.clamp(other, -0.1, kInf);  // one side
  EXPECT_EQ(b.lower()[limited.value + 1], -0.1);
  EXPECT_EQ(b.upper()[limited.value + 1], kInf);
  b.lock(name, 0.05);
  EXPECT_TRUE(b.locked(limited));
  EXPECT_EQ(b.lower()[limited.value], 0.05);
  b.free(name);
  EXPECT_TRUE(b.isFree(limited));

  // Errors name the joint (or list the joints); a refused call changes nothing.
  EXPECT_TRUE(mentions(refusal([&] { b.lock("no_such_joint", 0.0); }), name));
  EXPECT_TRUE(mentions(refusal([&] { b.lock(name, kNaN); }), name));
  EXPECT_TRUE(mentions(refusal([&] { b.clamp(name, 0.2, 0.1); }), name));
  EXPECT_THROW(b.clamp(name, kNaN, 0.1), InvalidArgument);
  EXPECT_THROW(b.clamp(name, kInf, kInf), InvalidArgument);
  EXPECT_THROW(b.clamp(name, -kInf, -kInf), InvalidArgument);
  EXPECT_THROW(b.set(VectorXd::Zero(2), VectorXd::Zero(2)), InvalidArgument);
  VectorXd lo = VectorXd::Zero(n), hi = VectorXd::Constant(n, 1.0);
  lo[n - 1] = 2.0;
  const VectorXd before = b.lower();
  EXPECT_TRUE(mentions(refusal([&] { b.set(lo, hi); }), m.jointName(JointId(n - 1))));
  EXPECT_EQ(b.lower(), before);
  EXPECT_TRUE(b.isFree(limited));

  b.clampAll();
  EXPECT_EQ(b.lower(), m.lowerPositionLimits());
  EXPECT_EQ(b.upper(), m.upperPositionLimits());
  b.freeAll();
  EXPECT_EQ(b.lower(), VectorXd::Constant(n, -kInf));
  EXPECT_THROW(ik::CoordinateBounds(nullptr), InvalidArgument);
}

TEST(CoordinateBounds, StepBoundsProjectionAndViolation) {
  const auto model = human48();
  const int n = model->numJoints();
  ik::CoordinateBounds b(model);
  const std::string a = model->jointName(JointId(0)), c = model->jointName(JointId(2));
  b.clamp(a, -0.5, 0.5);
  b.lock(c, 0.1);
  VectorXd s = VectorXd::Zero(n);
  s[0] = 0.75;  // 0.25 past the upper bound
  s[2] = -0.2;  // 0.3 off the locked value
  EXPECT_DOUBLE_EQ(b.violation(s), 0.3);
  // The step bounds written into the joint block of a longer (chart) vector.
  VectorXd lb = VectorXd::Zero(6 + n), ub = VectorXd::Zero(6 + n);
  {
    testing::AllocationCounter counter;
    b.displacementBounds(s, lb.tail(n), ub.tail(n));
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(lb.head(6).isZero());
  EXPECT_EQ(lb[6 + 0], -0.5 - 0.75);
  EXPECT_EQ(ub[6 + 0], 0.5 - 0.75);  // negative: the step must bring the joint back in
  EXPECT_EQ(lb[6 + 2], 0.1 - (-0.2));
  EXPECT_EQ(ub[6 + 2], lb[6 + 2]);  // locked: the step is fixed
  EXPECT_EQ(lb[6 + 1], -kInf);      // free stays infinite
  EXPECT_EQ(ub[6 + 1], kInf);
  b.project(s);
  EXPECT_EQ(s[0], 0.5);
  EXPECT_EQ(s[2], 0.1);
  EXPECT_EQ(b.violation(s), 0.0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
