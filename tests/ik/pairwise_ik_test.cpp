// Pair-wise instantaneous IK (SPEC §3, DYN Fig. 6): the partition into pairs of adjacent targets
// (and its merges), ground-truth recovery of every target orientation on human66, human48 and
// iCub, limits and enforced rows never violated, threads = 1 and 2 bit-identical, joints on no
// path untouched, re-partition on target changes, no allocation per solve, bad arguments.
#include "kinetrack/ik/pairwise_ik.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/ik_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

/// The 15 iCub frames of the shipped retargeting map (maps/robots/icub.json).
const std::vector<std::string> kIcubMapFrames = {
    "root_link", "chest",       "head",        "r_upper_arm", "r_forearm",   "r_hand",      "l_upper_arm", "l_forearm",
    "l_hand",    "r_upper_leg", "r_lower_leg", "r_foot",      "l_upper_leg", "l_lower_leg", "l_foot"};

PairwiseIkOptions withThreads(int threads) {
  PairwiseIkOptions o;
  o.threads = threads;
  return o;
}

using Targets = testing::FkTargets<PairwiseIk>;
using testing::feasibleRandom;
using testing::icubWithCoupling;
using testing::perturbed;
using testing::smoothMotion;

struct RecoveryStats {
  int cases = 0, converged = 0, max_iterations = 0;
  double worst_pair = 0.0, worst_world = 0.0, worst_independent = 0.0, worst_position = 0.0, worst_limit = 0.0,
         worst_mnte = 0.0;
};

/// Ground truth: targets from FK of random feasible configurations, start 0.1–0.3 rad away.
RecoveryStats recover(const Model& m, const std::vector<std::string>& frames, const std::string& root, int cases,
                      std::uint64_t seed, double range = 1.0) {
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, frames, root);
  RecoveryStats s;
  testing::forRandomRecoveries(
      ik, targets, cases, seed, range, [&](const Configuration& truth, const PairwiseSolveResult& r) {
        ++s.cases;
        s.converged += r.status == ik::Status::Converged;
        s.max_iterations = std::max(s.max_iterations, r.iterations);
        s.worst_pair = std::max(s.worst_pair, r.max_pair_orientation_error);
        s.worst_world = std::max(s.worst_world, r.max_orientation_error);
        s.worst_independent = std::max(s.worst_independent, targets.maxAngle(ik.state(), truth));
        s.worst_position = std::max(s.worst_position, r.max_position_error);
        s.worst_limit = std::max(s.worst_limit, positionLimitViolation(m, ik.state()));
        s.worst_mnte = std::max(s.worst_mnte, r.mnte);
        EXPECT_NEAR(r.limit_violation, positionLimitViolation(m, ik.state()), 1e-15);
        EXPECT_EQ(r.subsystems, static_cast<int>(ik.subsystemResults().size()));
      });
  return s;
}

/// World-frame bound for pair tolerance 1e-6: a target's world error sums the residuals of the
/// pairs above it (≤ 8 pairs deep on the human models, 10 on the iCub).
constexpr double kWorldTolerance = 1e-5;

void expectRecovered(const RecoveryStats& s) {
  EXPECT_EQ(s.converged, s.cases);
  EXPECT_LE(s.worst_pair, 1e-6);                    // the per-pair tolerance
  EXPECT_LE(s.worst_world, kWorldTolerance);        // the assembled configuration, world frame
  EXPECT_LE(s.worst_independent, kWorldTolerance);  // recomputed here from the truth
  EXPECT_LE(s.worst_position, 1e-12);
  EXPECT_LE(s.worst_mnte, 1e-12);
  EXPECT_LE(s.worst_limit, 1e-9);
}

// ---- partition ------------------------------------------------------------------------------

TEST(PairwiseIk, Human66SplitsIntoTheTwentyTwoPairsOfAdjacentSegments) {
  const Model m = makeHuman66();
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, humanSegmentNames(), "Pelvis");
  const std::vector<PairwiseSubsystem>& subs = ik.subsystems();
  ASSERT_EQ(subs.size(), 22u);
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const PairwiseSubsystem& s = subs[i];
    ASSERT_EQ(s.child_links.size(), 1u);
    ASSERT_EQ(s.targets.size(), 1u);
    EXPECT_EQ(s.joints.size(), 3u);  // one spherical joint per pair
    EXPECT_TRUE(s.rows.empty());
    // The parent is the child's parent segment (two dummy links above the child).
    EXPECT_EQ(m.parentLink(s.joints.front()), s.parent_link);
    EXPECT_EQ(m.childLink(s.joints.back()), s.child_links.front());
    EXPECT_EQ(s.parent_target.valid(), s.parent_link.value != 0);
    const Model& sub = ik.subsystemModel(static_cast<int>(i));
    EXPECT_EQ(sub.baseType(), BaseType::Fixed);
    EXPECT_EQ(sub.numJoints(), 3);
    EXPECT_EQ(sub.linkName(LinkId(0)), m.linkName(s.parent_link));
  }
  auto pairOf = [&](const std::string& child) {
    for (const PairwiseSubsystem& s : subs)
      if (m.linkName(s.child_links.front()) == child) return m.linkName(s.parent_link);
    return std::string("?");
  };
  EXPECT_EQ(pairOf("L5"), "Pelvis");
  EXPECT_EQ(pairOf("RightForeArm"), "RightUpperArm");
  EXPECT_EQ(pairOf("RightLowerLeg"), "RightUpperLeg");
  EXPECT_EQ(pairOf("LeftShoulder"), "T8");
  EXPECT_EQ(pairOf("Neck"), "T8");
  EXPECT_TRUE(ik.unenforcedRows().empty());
  EXPECT_THROW((void)ik.subsystemModel(22), InvalidArgument);
}

TEST(PairwiseIk, Human48PairsHoldTheJointsOfEachSegmentJoint) {
  const Model m = makeHuman48();
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, humanSegmentNames(), "Pelvis");
  const std::vector<PairwiseSubsystem>& subs = ik.subsystems();
  ASSERT_EQ(subs.size(), 22u);
  int joints = 0;
  for (const PairwiseSubsystem& s : subs) {
    joints += static_cast<int>(s.joints.size());
    if (m.linkName(s.child_links.front()) == "RightForeArm") {
      EXPECT_EQ(s.joints.size(), 2u);  // elbow: flexion + pronation
      EXPECT_EQ(m.jointName(s.joints.front()), "jRightElbow_roty");
    }
    if (m.linkName(s.child_links.front()) == "RightShoulder") {
      EXPECT_EQ(s.joints.size(), 1u);
    }
  }
  EXPECT_EQ(joints, 48);  // every joint lies on exactly one pair path
}

TEST(PairwiseIk, ABranchWithoutATargetBecomesOneSubsystemWithSeveralChildren) {
  // Without a T8 target, the T12 → T8 joint carries the neck and both shoulders: the paths
  // T12 → Neck, T12 → RightShoulder, T12 → LeftShoulder share it and form one subsystem.
  const Model m = makeHuman66();
  std::vector<std::string> frames;
  for (const std::string& s : humanSegmentNames())
    if (s != "T8") frames.push_back(s);
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, frames, "Pelvis");
  const std::vector<PairwiseSubsystem>& subs = ik.subsystems();
  ASSERT_EQ(subs.size(), 19u);
  const auto branch =
      std::find_if(subs.begin(), subs.end(), [](const PairwiseSubsystem& s) { return s.child_links.size() > 1; });
  ASSERT_NE(branch, subs.end());
  EXPECT_EQ(m.linkName(branch->parent_link), "T12");
  ASSERT_EQ(branch->child_links.size(), 3u);
  EXPECT_EQ(m.linkName(branch->child_links[0]), "Neck");
  EXPECT_EQ(m.linkName(branch->child_links[2]), "LeftShoulder");
  EXPECT_EQ(branch->joints.size(), 12u);
  // Still reachable (12 DoF for three orientations): recovered exactly.
  std::mt19937_64 rng(5);
  const Configuration truth = feasibleRandom(m, rng);
  ik.setState(perturbed(m, truth, rng, 0.1, 0.2));
  targets.set(ik, truth);
  const PairwiseSolveResult r = ik.solve();
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_LE(r.max_orientation_error, kWorldTolerance);
}

TEST(PairwiseIk, JointsOnNoPathKeepTheirValues) {
  // No toe and no hand targets: the ball-of-foot and wrist joints are on no path.
  const Model m = makeHuman66();
  std::vector<std::string> frames;
  for (const std::string& s : humanSegmentNames())
    if (s.find("Toe") == std::string::npos && s.find("Hand") == std::string::npos) frames.push_back(s);
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, frames, "Pelvis");
  EXPECT_EQ(ik.subsystems().size(), 18u);
  std::mt19937_64 rng(6);
  const Configuration start = feasibleRandom(m, rng);
  ik.setState(start);
  targets.set(ik, feasibleRandom(m, rng));
  EXPECT_EQ(ik.solve().status, ik::Status::Converged);
  for (const char* side : {"Right", "Left"})
    for (const char* axis : {"rotx", "roty", "rotz"}) {
      for (const std::string& joint :
           {std::string("j") + side + "BallFoot_" + axis, std::string("j") + side + "Wrist_" + axis}) {
        const int j = m.jointId(joint).value;
        EXPECT_EQ(ik.state().joints[j], start.joints[j]) << joint;
      }
    }
}

// ---- ground truth ---------------------------------------------------------------------------

TEST(PairwiseIk, Human66ReproducesEveryTargetOrientation) {
  // Spherical joints: every pair is reachable, also for joint angles up to ±π.
  const Model m = makeHuman66();
  const RecoveryStats s = recover(m, humanSegmentNames(), "Pelvis", 20, 41, M_PI);
  expectRecovered(s);
  EXPECT_LE(s.max_iterations, 12);
}

TEST(PairwiseIk, Human48ReproducesEveryTargetOrientationWithinItsLimits) {
  const Model m = makeHuman48();
  const RecoveryStats s = recover(m, humanSegmentNames(), "Pelvis", 20, 42);
  expectRecovered(s);
}

TEST(PairwiseIk, ATenTimesTighterPairToleranceKeepsEveryWorldErrorWithinTheLooserOne) {
  // The world error of a target sums the pair residuals above it: with the pairs solved to
  // 1e-7 rad every target of the assembled configuration is within 1e-6 rad.
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    PairwiseIkOptions o = withThreads(2);
    o.solver.orientation_tolerance = 1e-7;
    PairwiseIk ik(m, o);
    Targets targets(ik, humanSegmentNames(), "Pelvis");
    std::mt19937_64 rng(49);
    for (int c = 0; c < 20; ++c) {
      const Configuration truth = feasibleRandom(m, rng);
      ik.setState(perturbed(m, truth, rng, 0.1, 0.3));
      targets.set(ik, truth);
      const PairwiseSolveResult r = ik.solve();
      EXPECT_EQ(r.status, ik::Status::Converged);
      EXPECT_LE(r.max_pair_orientation_error, 1e-7);
      EXPECT_LE(r.max_orientation_error, 1e-6) << m.name();
      EXPECT_LE(targets.maxAngle(ik.state(), truth), 1e-6) << m.name();
    }
  }
}

TEST(PairwiseIk, Human48OutOfReachTargetsKeepTheLimits) {
  // Targets from configurations 0.2 rad past every limit: no pair can reach its child; every
  // joint stays inside its limits and the errors are reported.
  const Model m = makeHuman48();
  PairwiseIkOptions o = withThreads(1);
  o.solver.max_iterations = 200;
  PairwiseIk ik(m, o);
  Targets targets(ik, humanSegmentNames(), "Pelvis");
  std::mt19937_64 rng(43);
  for (int c = 0; c < 5; ++c) {
    Configuration far = feasibleRandom(m, rng);
    std::bernoulli_distribution upper(0.5);
    for (int j = 0; j < m.numJoints(); ++j)
      far.joints[j] = upper(rng) ? m.upperPositionLimits()[j] + 0.2 : m.lowerPositionLimits()[j] - 0.2;
    ik.setState(feasibleRandom(m, rng));
    targets.set(ik, far);
    const PairwiseSolveResult r = ik.solve();
    EXPECT_NE(r.status, ik::Status::Converged);
    EXPECT_GT(r.not_converged, 10);  // (a few Euler triples past the limits have an equivalent inside)
    EXPECT_LE(r.limit_violation, 1e-9);
    EXPECT_LE(positionLimitViolation(m, ik.state()), 1e-9);
    EXPECT_GT(r.max_pair_orientation_error, 0.05);
    EXPECT_GE(r.max_orientation_error, r.max_pair_orientation_error - 1e-12);  // errors accumulate down chains
  }
}

TEST(PairwiseIk, ICubWithTheRetargetingMapEnforcesEveryCoupledRow) {
  // With the 15 frames of the iCub map, each coupled row's joints (shoulder pitch/roll/yaw;
  // elbow and pronation) lie in one pair: all 14 rows are enforced.
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  ASSERT_EQ(m.linearConstraints().size(), 14u);
  PairwiseIk ik(m, withThreads(2));
  Targets targets(ik, kIcubMapFrames, "root_link");
  EXPECT_EQ(ik.subsystems().size(), 14u);
  EXPECT_TRUE(ik.unenforcedRows().empty());
  int rows = 0;
  for (const PairwiseSubsystem& s : ik.subsystems()) rows += static_cast<int>(s.rows.size());
  EXPECT_EQ(rows, 14);
  std::mt19937_64 rng(44);
  for (int c = 0; c < 20; ++c) {
    const Configuration truth = feasibleRandom(m, rng);
    ik.setState(perturbed(m, truth, rng, 0.05, 0.2));
    targets.set(ik, truth);
    const PairwiseSolveResult r = ik.solve();
    EXPECT_EQ(r.status, ik::Status::Converged);
    EXPECT_LE(r.max_pair_orientation_error, 1e-6);
    EXPECT_LE(r.max_orientation_error, kWorldTolerance);
    EXPECT_LE(r.limit_violation, 1e-9);
    EXPECT_LE(r.row_violation, 1e-9);
    EXPECT_EQ(r.unenforced_row_violation, 0.0);
    EXPECT_LE(linearRowViolation(m, ik.state()), 1e-9);
  }
}

TEST(PairwiseIk, ICubWithEveryLinkTargetedReportsTheRowsItCannotEnforce) {
  // One joint per pair: the shoulder rows span 2–3 pairs and the forearm rows 2, so all but the
  // roll-only row 5 of each arm cannot be enforced pair-wise; limits hold and the 12 rows are
  // reported. With merge_coupled_subsystems the coupled pairs become one subsystem per arm part
  // and every row is enforced.
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  for (bool merge : {false, true}) {
    PairwiseIkOptions o = withThreads(2);
    o.merge_coupled_subsystems = merge;
    PairwiseIk ik(m, o);
    Targets targets(ik, m.linkNames(), "root_link");
    EXPECT_EQ(ik.unenforcedRows().size(), merge ? 0u : 12u);
    EXPECT_EQ(ik.subsystems().size(), merge ? 26u : 32u);  // 2 × (3 + 2) pairs → 2 × 2 subsystems
    std::mt19937_64 rng(45);
    for (int c = 0; c < 20; ++c) {
      const Configuration truth = feasibleRandom(m, rng);
      ik.setState(perturbed(m, truth, rng, 0.05, 0.2));
      targets.set(ik, truth);
      const PairwiseSolveResult r = ik.solve();
      EXPECT_EQ(r.status, ik::Status::Converged) << toString(r.status);
      EXPECT_LE(r.max_pair_orientation_error, 1e-6);
      EXPECT_LE(r.max_orientation_error, kWorldTolerance);
      EXPECT_LE(r.limit_violation, 1e-9);
      EXPECT_LE(r.row_violation, 1e-9);
      if (merge) {
        EXPECT_EQ(r.unenforced_row_violation, 0.0);
      }
      // Reachable targets from a feasible truth: the reported rows hold here too.
      EXPECT_LE(r.unenforced_row_violation, 1e-6);
    }
  }
}

TEST(PairwiseIk, ICubStartOutsideTheLimitsEndsInside) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, kIcubMapFrames, "root_link");
  std::mt19937_64 rng(46);
  const Configuration truth = feasibleRandom(m, rng);
  Configuration start(m);  // the zero pose breaks row 4 and the elbow limits
  ASSERT_GT(linearRowViolation(m, start) + positionLimitViolation(m, start), 0.1);
  ik.setState(start);
  targets.set(ik, truth);
  const PairwiseSolveResult r = ik.solve();
  EXPECT_LE(r.limit_violation, 1e-9);
  EXPECT_LE(r.row_violation, 1e-9);
}

// ---- tracking, threads ----------------------------------------------------------------------

TEST(PairwiseIk, TracksASmoothMotionAt100HzWithFewIterations) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    PairwiseIk ik(m, withThreads(2));
    Targets targets(ik, humanSegmentNames(), "Pelvis");
    ik.setState(smoothMotion(m, 0.0));
    int converged = 0, worst_iterations = 0;
    double worst = 0.0;
    for (int k = 1; k <= 300; ++k) {
      targets.set(ik, smoothMotion(m, 0.01 * k));
      const PairwiseSolveResult r = ik.solve();
      converged += r.status == ik::Status::Converged;
      worst_iterations = std::max(worst_iterations, r.iterations);
      worst = std::max(worst, r.max_orientation_error);
      ASSERT_LE(r.limit_violation, 1e-9);
      EXPECT_GT(r.wall_time, 0.0);
    }
    EXPECT_EQ(converged, 300) << m.name();
    EXPECT_LE(worst, kWorldTolerance) << m.name();
    EXPECT_LE(worst_iterations, 4) << m.name();
  }
}

TEST(PairwiseIk, OneAndTwoThreadsGiveIdenticalResults) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    PairwiseIk one(m, withThreads(1)), two(m, withThreads(2));
    ASSERT_EQ(one.threads(), 1);
    ASSERT_EQ(two.threads(), 2);
    Targets t1(one, humanSegmentNames(), "Pelvis"), t2(two, humanSegmentNames(), "Pelvis");
    std::mt19937_64 rng(47);
    const Configuration start = perturbed(m, smoothMotion(m, 0.0), rng, 0.1, 0.3);
    one.setState(start);
    two.setState(start);
    for (int k = 1; k <= 100; ++k) {
      const Configuration truth = smoothMotion(m, 0.01 * k);
      t1.set(one, truth);
      t2.set(two, truth);
      const PairwiseSolveResult r1 = one.solve(), r2 = two.solve();
      ASSERT_EQ(one.state().joints, two.state().joints) << m.name() << " frame " << k;  // bit for bit
      ASSERT_EQ(one.state().base_rotation, two.state().base_rotation);
      ASSERT_EQ(one.state().base_position, two.state().base_position);
      ASSERT_EQ(r1.total_iterations, r2.total_iterations);
      ASSERT_EQ(r1.mnte, r2.mnte);
      ASSERT_EQ(r1.max_orientation_error, r2.max_orientation_error);
    }
  }
}

TEST(PairwiseIk, ManyThreadsAndFewSubsystemsWork) {
  // More threads than subsystems, and zero spin (workers block between frames).
  const Model m = makeHuman66();
  PairwiseIkOptions o = withThreads(8);
  o.spin_microseconds = 0.0;
  PairwiseIk ik(m, o);
  Targets targets(ik, {"Pelvis", "RightUpperArm", "RightHand"}, "Pelvis");
  EXPECT_EQ(ik.subsystems().size(), 2u);
  for (int k = 0; k < 50; ++k) {
    targets.set(ik, smoothMotion(m, 0.01 * k));
    const PairwiseSolveResult r = ik.solve();
    EXPECT_EQ(r.status, ik::Status::Converged);
    EXPECT_LE(r.max_orientation_error, kWorldTolerance);
  }
  o.threads = 0;  // one per hardware thread
  ik.setOptions(o);
  EXPECT_GE(ik.threads(), 1);
  EXPECT_EQ(ik.solve().status, ik::Status::Converged);
}

// ---- targets, allocation, API ---------------------------------------------------------------

TEST(PairwiseIk, DisablingATargetMergesItsTwoPairs) {
  const Model m = makeHuman66();
  PairwiseIk ik(m, withThreads(1));
  Targets targets(ik, humanSegmentNames(), "Pelvis");
  ASSERT_EQ(ik.subsystems().size(), 22u);
  const TargetId forearm = targets.orientation[9];
  ASSERT_EQ(m.frameName(ik.tasks().frame(forearm)), "RightForeArm");
  ik.tasks().setEnabled(forearm, false);
  ASSERT_EQ(ik.subsystems().size(), 21u);  // upper arm → hand: elbow and wrist, 6 joints
  const auto merged = std::find_if(ik.subsystems().begin(), ik.subsystems().end(), [&](const PairwiseSubsystem& s) {
    return m.linkName(s.child_links.front()) == "RightHand";
  });
  ASSERT_NE(merged, ik.subsystems().end());
  EXPECT_EQ(m.linkName(merged->parent_link), "RightUpperArm");
  EXPECT_EQ(merged->joints.size(), 6u);
  std::mt19937_64 rng(48);
  const Configuration truth = feasibleRandom(m, rng);
  targets.set(ik, truth);
  ik.setState(perturbed(m, truth, rng, 0.1, 0.2));
  EXPECT_EQ(ik.solve().status, ik::Status::Converged);
  ik.tasks().setWeight(forearm, 0.0);  // weight 0 is inactive too
  ik.tasks().setEnabled(forearm, true);
  EXPECT_EQ(ik.subsystems().size(), 21u);
  ik.tasks().setWeight(forearm, 2.0);
  EXPECT_EQ(ik.subsystems().size(), 22u);
  ik.tasks().setWeight(forearm, 3.0);  // same partition, new weight in its subsystem
  EXPECT_EQ(ik.subsystems().size(), 22u);
  ik.tasks().remove(forearm);
  EXPECT_EQ(ik.tasks().size(), 23);
  EXPECT_EQ(ik.subsystems().size(), 21u);
  const PairwiseSolveResult r = ik.solve();
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_LE(r.max_orientation_error, kWorldTolerance);
  EXPECT_LT(ik.mnte(), 1e-12);
}

TEST(PairwiseIk, TheBaseComesFromTheRootTargets) {
  const Model m = makeHuman66();
  PairwiseIk ik(m, withThreads(1));
  const TargetId o = ik.tasks().addOrientation("Pelvis");
  const TargetId p = ik.tasks().addPosition("Pelvis");
  const Matrix3d R = so3::exp(Vector3d(0.3, -0.2, 1.0));
  ik.tasks().setOrientation(o, R);
  ik.tasks().setPosition(p, Vector3d(1.0, 2.0, 0.9));
  const PairwiseSolveResult r = ik.solve();
  EXPECT_EQ(r.subsystems, 0);
  EXPECT_EQ(ik.state().base_rotation, R);
  EXPECT_EQ(ik.state().base_position, Vector3d(1.0, 2.0, 0.9));
  EXPECT_LT(r.max_orientation_error, 1e-15);  // FK round-off only
  EXPECT_LT(r.max_position_error, 1e-15);
  EXPECT_EQ(ik.tasks().type(p), TargetType::Position);
  EXPECT_EQ(ik.tasks().frame(o), m.frameId("Pelvis"));
}

long allocationsOfOneSolve(const Model& m, int threads) {
  PairwiseIk ik(m, withThreads(threads));
  return testing::allocationsOfWarmSolve(ik, [](const PairwiseSolveResult& r) { EXPECT_GE(r.total_iterations, 1); });
}

TEST(PairwiseIk, SolveDoesNotAllocate) {
  EXPECT_EQ(allocationsOfOneSolve(makeHuman66(), 1), 0);
  EXPECT_EQ(allocationsOfOneSolve(makeHuman48(), 1), 0);
  EXPECT_EQ(allocationsOfOneSolve(makeHuman48(), 2), 0);  // the calling thread's share
}

TEST(PairwiseIk, BadArgumentsThrow) {
  const Model m = makeHuman66();
  PairwiseIk ik(m, withThreads(1));
  const TargetId o = ik.tasks().addOrientation("Head");
  const TargetId p = ik.tasks().addPosition("Pelvis");
  EXPECT_THROW(ik.tasks().addOrientation("NoSuchFrame"), InvalidArgument);
  EXPECT_THROW(ik.tasks().addPosition("Head"), InvalidArgument);  // not on the root link
  EXPECT_THROW(ik.tasks().addOrientation("Head", {.weight = -1.0}), InvalidArgument);
  EXPECT_THROW(ik.tasks().setWeight(o, std::nan("")), InvalidArgument);
  EXPECT_THROW(ik.tasks().setOrientation(o, 2.0 * Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setOrientation(o, -Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setPosition(o, Vector3d::Zero()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setOrientation(p, Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setPosition(p, Vector3d(0, std::nan(""), 0)), InvalidArgument);
  EXPECT_THROW(ik.tasks().setEnabled(TargetId(9), true), InvalidArgument);
  Configuration bad(m);
  bad.joints.resize(3);
  EXPECT_THROW(ik.setState(bad), InvalidArgument);
  Configuration nan(m);
  nan.base_rotation(0, 0) = std::nan("");
  EXPECT_THROW(ik.setState(nan), InvalidArgument);
  PairwiseIkOptions opts;
  opts.threads = -1;
  EXPECT_THROW(PairwiseIk(m, opts), InvalidArgument);
  opts = {};
  opts.spin_microseconds = -1.0;
  EXPECT_THROW(ik.setOptions(opts), InvalidArgument);
  opts = {};
  opts.solver.backend = InstantaneousIkBackend::Ipopt;
  EXPECT_THROW(PairwiseIk(m, opts), InvalidArgument);
  opts = {};
  opts.solver.max_iterations = -1;
  EXPECT_THROW(PairwiseIk(m, opts), InvalidArgument);
  EXPECT_EQ(ik.options().threads, 1);  // unchanged by the failed setOptions
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
