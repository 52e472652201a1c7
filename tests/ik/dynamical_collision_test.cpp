// DYN with collision limits (DynamicalIkOptions::collision, DynamicalIk::setCollisionProxies): a
// hand pulled into the torso stops at the margin, a foot pulled below the ground stops on it (the
// mannequin and the G1); with the limits off, or on but far from everything, the steps are bit
// for bit those without them; the tree solver's row rounds give the dense QP's step; no
// allocation per step.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/collision_fixtures.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

ik::CollisionOptions selfOnly(double margin = 0.01) {
  ik::CollisionOptions o;
  o.self.enabled = true;
  o.self.margin = margin;
  return o;
}

int proxyIndex(const std::vector<CollisionProxy>& proxies, const std::string& name) {
  for (std::size_t i = 0; i < proxies.size(); ++i)
    if (proxies[i].name == name) return static_cast<int>(i);
  return -1;
}

// The world position of `frame` at the solver's state.
Vector3d framePosition(const DynamicalIk& ik, const std::string& frame) {
  return frameOrigin(ik.model(), ik.data(), ik.model().frameId(frame));
}

TEST(DynamicalCollision, HandPulledIntoTheTorsoStopsAtTheMargin) {
  const Model m = testing::makeMannequin(BaseType::Fixed);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  const int torso = proxyIndex(proxies, "torso");
  // The arm forward, then the hand pulled to the reachable point deepest in the torso (a grid
  // over the shoulder's pitch and yaw and the elbow).
  Configuration start(m);
  start.joints[m.jointId("r_shoulder_pitch").value] = -1.2;
  start.joints[m.jointId("r_elbow").value] = -0.8;
  const int hand_proxy = proxyIndex(proxies, "hand");
  Vector3d target = Vector3d::Zero();
  {
    ik::CollisionLimits probe(m, proxies, selfOnly());
    Data d(m);
    double deepest = 0.0;
    for (double pitch = -2.0; pitch <= 0.0; pitch += 0.2)
      for (double yaw = -1.5; yaw <= 1.5; yaw += 0.25)
        for (double elbow = -2.5; elbow <= 0.0; elbow += 0.25) {
          Configuration q(m);
          q.joints[m.jointId("r_shoulder_pitch").value] = pitch;
          q.joints[m.jointId("r_shoulder_yaw").value] = yaw;
          q.joints[m.jointId("r_elbow").value] = elbow;
          forwardKinematics(m, d, q);
          const double dist = probe.proxyDistance(d, torso, hand_proxy);
          if (dist < deepest) deepest = dist, target = frameOrigin(m, d, m.frameId("r_hand"));
        }
    ASSERT_LT(deepest, -0.05);
  }
  for (const bool limits : {false, true}) {
    DynamicalIkOptions o;
    o.collision = selfOnly(0.01);
    DynamicalIk ik(m, o);
    if (limits) ik.setCollisionProxies(proxies);
    ik.setState(start);
    const TargetId hand = ik.tasks().addPosition("r_hand", {.gain = 10.0});
    ik.tasks().setPosition(hand, target);
    // A light pull towards the start pose: the arm is redundant for a position target, and with
    // only λ = 1e-9 in its null space a row can be met by 20 rad/s null-space motion that the
    // next step undoes (a period-2 cycle, seen without it).
    const auto rest = ik.tasks().addPosture(0.01, 1.0);
    ik.tasks().setValues(rest, start.joints);
    double closest = std::numeric_limits<double>::infinity();
    int binding = 0;
    StepResult r;
    for (int k = 0; k < 400; ++k) {
      r = ik.step(0.01);
      ASSERT_EQ(r.status, ik::Status::Converged) << "step " << k;
      if (!limits) continue;
      binding += r.collision_rows_active > 0;
      closest = std::min(closest, r.collision.min_distance);
      EXPECT_EQ(r.collision.penetration, 0.0) << "step " << k;
    }
    ik::CollisionLimits probe(m, proxies, selfOnly());
    if (!limits) {  // without the limits the hand goes in
      EXPECT_LT(probe.proxyDistance(ik.data(), torso, hand_proxy), -0.05);
      EXPECT_LT((framePosition(ik, "r_hand") - target).norm(), 0.03);
      continue;
    }
    // With them the arm rests on the torso at the margin (within 2 mm) and never comes closer;
    // the hand stays outside.
    EXPECT_GE(closest, 0.01 - 0.002);
    EXPECT_NEAR(r.collision.min_distance, 0.01, 0.002);
    const ik::CollisionPair& nearest =
        ik.collisionLimits()->pairs()[static_cast<std::size_t>(ik.collisionLimits()->activeRow(0).index)];
    RecordProperty("resting_pair", proxies[static_cast<std::size_t>(nearest.a)].name + "-" +
                                       proxies[static_cast<std::size_t>(nearest.b)].name);
    EXPECT_GE(probe.proxyDistance(ik.data(), torso, hand_proxy), 0.01 - 0.002);
    EXPECT_GT(binding, 100);  // the rows held the arm for most of the run
  }
}

TEST(DynamicalCollision, FootPulledBelowTheGroundStopsOnIt) {
  const Model m = testing::makeMannequin(BaseType::Fixed);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  const int foot_proxy = proxyIndex(proxies, "foot");
  DynamicalIkOptions o;
  o.collision.ground.enabled = true;
  DynamicalIk ik(m, o);
  ik.setCollisionProxies(proxies);
  // The pelvis 0.86 m up: with the leg straight the foot's sphere would be 4 cm in the ground.
  Configuration q(m);
  q.base_position = Vector3d(0, 0, 0.86);
  ik.setState(q);
  EXPECT_NEAR(ik.collisionLimits()->groundHeight(ik.data(), foot_proxy), -0.04, 1e-12);
  const Vector3d straight = framePosition(ik, "l_foot");
  q.joints[m.jointId("l_hip_pitch").value] = -0.6;
  q.joints[m.jointId("l_knee").value] = 1.2;
  ik.setState(q);
  EXPECT_GT(ik.collisionLimits()->groundHeight(ik.data(), foot_proxy), 0.05);
  const TargetId foot = ik.tasks().addPosition("l_foot", {.gain = 10.0});
  ik.tasks().setPosition(foot, straight);
  double deepest = 0.0;
  for (int k = 0; k < 300; ++k) {
    const StepResult r = ik.step(0.01);
    ASSERT_EQ(r.status, ik::Status::Converged);
    deepest = std::max(deepest, r.collision.ground_depth);
  }
  EXPECT_LE(deepest, 0.002);
  EXPECT_NEAR(ik.collisionLimits()->groundHeight(ik.data(), foot_proxy), 0.0, 0.002);  // on the ground
}

// The G1 with its URDF's collision proxies, standing on the ground: the right hand pulled into
// the torso and the left foot pulled down, with ground and self-collision rows.
TEST(DynamicalCollision, UnitreeG1HandIntoTorsoAndFootIntoGround) {
  Model g1;
  std::vector<CollisionProxy> proxies;
  if (!testing::loadG1(g1, proxies)) GTEST_SKIP() << "../shared/models/unitree not found";
  DynamicalIkOptions o;
  o.collision.ground.enabled = true;
  o.collision.self = selfOnly(0.01).self;
  DynamicalIk ik(g1, o);
  ik.setCollisionProxies(proxies);
  const ik::CollisionLimits& c = *ik.collisionLimits();
  // Standing: the pelvis raised until the lowest proxy touches the ground.
  Configuration q(g1);
  ik.setState(q);
  double lowest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < static_cast<int>(proxies.size()); ++i) lowest = std::min(lowest, c.groundHeight(ik.data(), i));
  q.base_position.z() = -lowest + 0.001;
  ik.setState(q);
  // Hold the pelvis and torso; the right wrist to the torso's centre, the left ankle 10 cm down.
  const TargetId pelvis = ik.tasks().addPose("pelvis", {.gain = 10.0}, {.gain = 10.0});
  ik.tasks().setPosition(pelvis, ik.data().link[0].p);
  ik.tasks().setOrientation(pelvis, ik.data().link[0].R);
  const FrameId torso_frame = g1.frameId("torso_link");
  const Vector3d torso = frameOrigin(g1, ik.data(), torso_frame);
  const TargetId hand = ik.tasks().addPosition("right_wrist_yaw_link", {.gain = 10.0});
  ik.tasks().setPosition(hand, torso + Vector3d(0.0, 0.0, 0.1));
  const TargetId foot = ik.tasks().addPosition("left_ankle_roll_link", {.gain = 10.0});
  ik.tasks().setPosition(foot, framePosition(ik, "left_ankle_roll_link") + Vector3d(0.05, 0.0, -0.1));
  double penetration = 0.0, depth = 0.0;
  int rows = 0;
  for (int k = 0; k < 400; ++k) {
    const StepResult r = ik.step(0.01);
    ASSERT_NE(r.status, ik::Status::Failed) << "step " << k;
    penetration = std::max(penetration, r.collision.penetration);
    depth = std::max(depth, r.collision.ground_depth);
    rows = std::max(rows, r.collision_rows);
  }
  EXPECT_LE(penetration, 0.002);
  EXPECT_LE(depth, 0.002);
  EXPECT_GT(rows, 2);
  // the hand did not reach its target inside the torso
  EXPECT_GT((framePosition(ik, "right_wrist_yaw_link") - torso - Vector3d(0, 0, 0.1)).norm(), 0.05);
  RecordProperty("g1_overlapping_at_reference", static_cast<int>(c.overlappingAtReference().size()));
  RecordProperty("g1_pairs", static_cast<int>(c.pairs().size()));
}

// The G1's torso capsule holds its upper arms at the zero pose (they overlap by design and are
// skipped by default). Held at their reference overlap, the upper arm pulled across the chest
// stops where it is in the zero pose (within 2 mm); skipped, it goes through.
TEST(DynamicalCollision, UnitreeG1ArmHeldAtItsRestOverlapWithTheTorso) {
  Model g1;
  std::vector<CollisionProxy> proxies;
  if (!testing::loadG1(g1, proxies)) GTEST_SKIP() << "../shared/models/unitree not found";
  int torso = -1, arm = -1;
  for (int i = 0; i < static_cast<int>(proxies.size()); ++i) {
    if (proxies[static_cast<std::size_t>(i)].name == "torso_link:torso_link.STL") torso = i;
    if (proxies[static_cast<std::size_t>(i)].name == "right_shoulder_yaw_link:right_shoulder_yaw_link.STL") arm = i;
  }
  ASSERT_GE(torso, 0);
  ASSERT_GE(arm, 0);
  auto deepest = [&](bool hold) {
    DynamicalIkOptions o;
    o.collision.self = selfOnly(0.01).self;
    o.collision.self.hold_reference_overlaps = hold;
    DynamicalIk ik(g1, o);
    ik.setCollisionProxies(proxies);
    const ik::CollisionLimits& c = *ik.collisionLimits();
    ik.setState(Configuration(g1));
    const double rest = c.proxyDistance(ik.data(), torso, arm);
    const TargetId pelvis = ik.tasks().addPose("pelvis", {.gain = 10.0}, {.gain = 10.0});
    ik.tasks().setPosition(pelvis, ik.data().link[0].p);
    ik.tasks().setOrientation(pelvis, ik.data().link[0].R);
    const TargetId body = ik.tasks().addOrientation("torso_link", {.gain = 10.0});
    ik.tasks().setOrientation(body, ik.data().link[static_cast<std::size_t>(g1.linkId("torso_link").value)].R);
    // The right elbow to the left of the chest.
    const Vector3d chest = frameOrigin(g1, ik.data(), g1.frameId("torso_link"));
    const TargetId elbow = ik.tasks().addPosition("right_elbow_link", {.gain = 10.0});
    ik.tasks().setPosition(elbow, chest + Vector3d(0.05, 0.08, 0.15));
    double closest = rest, past = 0.0;
    for (int k = 0; k < 300; ++k) {
      const StepResult r = ik.step(0.01);
      EXPECT_NE(r.status, ik::Status::Failed) << "step " << k;
      closest = std::min(closest, c.proxyDistance(ik.data(), torso, arm));
      past = std::max(past, r.collision.penetration);
    }
    return std::make_tuple(rest, closest, past, c.overlappingAtReference().size());
  };
  const auto [rest, held, past, overlapping] = deepest(true);
  const auto [rest_off, skipped, past_off, overlapping_off] = deepest(false);
  EXPECT_LT(rest, 0.0);  // overlapping at the zero pose
  EXPECT_EQ(overlapping, overlapping_off);
  EXPECT_GE(held, rest - 0.005 - 0.002);  // no deeper than the rest overlap (slack 5 mm)
  EXPECT_LE(past, 0.002);
  EXPECT_LT(skipped, rest - 0.03);  // without: 3 cm deeper and more
  RecordProperty("rest_overlap_mm", std::to_string(-1e3 * rest));
  RecordProperty("held_mm", std::to_string(-1e3 * held));
  RecordProperty("skipped_mm", std::to_string(-1e3 * skipped));
}

// Steps of a walk-like motion on human66 with 24 targets, the same for every variant.
std::vector<Configuration> run(DynamicalIk& ik, int steps) {
  const Model& m = ik.model();
  std::vector<TargetId> ids;
  for (const std::string& name : humanSegmentNames()) ids.push_back(ik.tasks().addOrientation(name, {.gain = 10.0}));
  const TargetId root = ik.tasks().addPosition("Pelvis", {.gain = 10.0});
  Configuration q(m);
  q.base_position.z() = 1.0;
  ik.setState(q);
  std::vector<Configuration> out;
  Data d(m);
  for (int k = 0; k < steps; ++k) {
    Configuration t(m);
    for (int j = 0; j < m.numJoints(); ++j) t.joints[j] = 0.4 * std::sin(0.05 * k + 0.3 * j);
    t.base_position = Vector3d(0.01 * k, 0.0, 1.0);
    forwardKinematics(m, d, t);
    for (std::size_t i = 0; i < ids.size(); ++i)
      ik.tasks().setOrientation(ids[i], d.link[static_cast<std::size_t>(m.linkId(humanSegmentNames()[i]).value)].R);
    ik.tasks().setPosition(root, d.link[0].p);
    ik.step(0.01);
    out.push_back(ik.state());
  }
  return out;
}

std::vector<CollisionProxy> humanProxies(const Model& m) {
  std::vector<CollisionProxy> p;
  for (const std::string& name : humanSegmentNames())
    p.push_back({m.linkId(name), Vector3d::Zero(), Vector3d(0, 0, 0.05), 0.03, name});
  return p;
}

TEST(DynamicalCollision, OffOrInactiveIsBitIdentical) {
  const Model m = makeHuman66();
  DynamicalIk plain(m);
  const std::vector<Configuration> reference = run(plain, 60);
  // proxies given, limits off
  DynamicalIk off(m);
  off.setCollisionProxies(humanProxies(m));
  EXPECT_EQ(off.collisionLimits(), nullptr);
  // limits on, but the ground 10 m down and no pair within reach: no active row, the box QP
  DynamicalIkOptions o;
  o.collision.ground.enabled = true;
  o.collision.ground.height = -10.0;
  o.collision.self.enabled = true;
  o.collision.self.activation_distance = 0.0;
  o.collision.self.margin = 0.0;
  o.collision.self.ignore_within_joints = 100;  // no pair at all
  DynamicalIk inactive(m, o);
  inactive.setCollisionProxies(humanProxies(m));
  ASSERT_NE(inactive.collisionLimits(), nullptr);
  for (DynamicalIk* ik : {&off, &inactive}) {
    const std::vector<Configuration> got = run(*ik, 60);
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_TRUE(got[k].joints == reference[k].joints) << "step " << k;
      ASSERT_TRUE(got[k].base_position == reference[k].base_position) << "step " << k;
      ASSERT_TRUE(got[k].base_rotation == reference[k].base_rotation) << "step " << k;
    }
  }
  // turning the limits off again through setOptions removes them
  inactive.setOptions(DynamicalIkOptions{});
  EXPECT_EQ(inactive.collisionLimits(), nullptr);
  EXPECT_EQ(inactive.lastProblem().A.rows(), 0);
}

TEST(DynamicalCollision, TreeAndDenseSolversGiveTheSameStep) {
  const Model m = testing::makeMannequin(BaseType::Floating);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  DynamicalIkOptions o;
  o.damping = 1e-3;  // a well-conditioned QP (two targets on 13 coordinates): the solvers agree to round-off
  o.collision = selfOnly(0.01);
  o.collision.ground.enabled = true;
  DynamicalIkOptions dense_options = o;
  dense_options.sparse_qp = false;
  int binding = 0, free = 0;
  for (int trial = 0; trial < 12; ++trial) {
    Configuration q(m);
    q.base_position = Vector3d(0, 0, 0.9 + 0.01 * (trial % 3));
    q.joints[m.jointId("r_shoulder_pitch").value] = -0.2 * trial;
    q.joints[m.jointId("r_shoulder_roll").value] = 0.02 * trial;
    q.joints[m.jointId("r_elbow").value] = -0.15 * trial;
    q.joints[m.jointId("l_hip_pitch").value] = -0.1 * trial;
    DynamicalIk a(m, o), b(m, dense_options);
    for (DynamicalIk* ik : {&a, &b}) {
      ik->setCollisionProxies(proxies);
      ik->setState(q);
      const TargetId hand = ik->tasks().addPosition("r_hand", {.gain = 10.0});
      ik->tasks().setPosition(hand, Vector3d(0.0, 0.0, 0.35));
      const TargetId foot = ik->tasks().addPosition("l_foot", {.gain = 10.0});
      ik->tasks().setPosition(foot, framePosition(*ik, "l_foot") + Vector3d(0.1, 0, -0.3));
    }
    const StepResult ra = a.step(0.01), rb = b.step(0.01);
    ASSERT_EQ(ra.status, ik::Status::Converged);
    ASSERT_EQ(rb.status, ik::Status::Converged);
    EXPECT_TRUE(rb.dense_qp);
    (rb.collision_rows_active > 0 ? binding : free)++;
    EXPECT_EQ(ra.collision_rows, rb.collision_rows);
    EXPECT_EQ(ra.collision_rows_active, rb.collision_rows_active);
    EXPECT_LT((a.velocity() - b.velocity()).cwiseAbs().maxCoeff(), 1e-8 * (1 + b.velocity().cwiseAbs().maxCoeff()))
        << "trial " << trial;
  }
  EXPECT_GT(binding, 0);
  EXPECT_GT(free, 0);
}

TEST(DynamicalCollision, StepWithCollisionRowsDoesNotAllocate) {
  const Model m = testing::makeMannequin(BaseType::Floating);
  for (const bool sparse : {true, false}) {  // the tree solver's row rounds, the dense solver
    DynamicalIkOptions o;
    o.sparse_qp = sparse;
    o.collision = selfOnly(0.01);
    o.collision.ground.enabled = true;
    DynamicalIk ik(m, o);
    ik.setCollisionProxies(testing::mannequinProxies(m));
    Configuration q(m);
    q.base_position = Vector3d(0, 0, 0.91);
    q.joints[m.jointId("r_shoulder_pitch").value] = -1.2;
    q.joints[m.jointId("r_elbow").value] = -0.8;
    ik.setState(q);
    const TargetId hand = ik.tasks().addPosition("r_hand", {.gain = 10.0});
    ik.tasks().setPosition(hand, Vector3d(0.0, 0.0, 1.25));
    const TargetId foot = ik.tasks().addPosition("l_foot", {.gain = 10.0});
    ik.tasks().setPosition(foot, framePosition(ik, "l_foot") + Vector3d(0, 0, -0.2));
    const TargetId pelvis = ik.tasks().addPose("pelvis", {.gain = 10.0}, {.gain = 10.0});
    ik.tasks().setPosition(pelvis, q.base_position);
    ik.tasks().setOrientation(pelvis, q.base_rotation);
    for (int k = 0; k < 40; ++k) ik.step(0.01);  // in contact by now
    int binding = 0;
    for (int k = 0; k < 5; ++k) {
      long allocations = 0;
      StepResult r;
      {
        testing::AllocationCounter guard;
        r = ik.step(0.01);
        allocations = guard.count();
      }
      EXPECT_EQ(allocations, 0) << "step " << k << (sparse ? " (tree solver)" : " (dense solver)");
      EXPECT_GT(r.collision_rows, 0);
      if (!sparse) {
        EXPECT_TRUE(r.dense_qp);
      }
      binding += r.collision_rows_active > 0;
    }
    EXPECT_GT(binding, 0);
  }
}

TEST(DynamicalCollision, BadProxiesAreRefusedAndLeaveTheSolverAsItWas) {
  const Model m = testing::makeMannequin(BaseType::Fixed);
  DynamicalIkOptions o;
  o.collision = selfOnly();
  DynamicalIk ik(m, o);
  ik.setCollisionProxies(testing::mannequinProxies(m));
  const int pairs = static_cast<int>(ik.collisionLimits()->pairs().size());
  std::vector<CollisionProxy> bad = testing::mannequinProxies(m);
  bad[2].a.x() = std::nan("");
  EXPECT_THROW(ik.setCollisionProxies(bad), InvalidArgument);
  ASSERT_NE(ik.collisionLimits(), nullptr);
  EXPECT_EQ(static_cast<int>(ik.collisionLimits()->pairs().size()), pairs);
  DynamicalIkOptions negative = o;
  negative.collision.self.margin = -1.0;
  EXPECT_THROW(ik.setOptions(negative), InvalidArgument);
  EXPECT_EQ(ik.options().collision.self.margin, o.collision.self.margin);
  ik.setCollisionProxies({});
  EXPECT_EQ(ik.collisionLimits(), nullptr);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
