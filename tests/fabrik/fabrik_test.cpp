// FABRIK: reaching, stretching, iteration cap, trees with sub-bases, no allocation per solve.
#include "kinetrack/fabrik/fabrik.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "fabrik/fabrik_fixtures.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::fabrik {
namespace KINETRACK_UNITY_ID {

using test::boneLengthsHold;
using test::straightChain;

TEST(Fabrik, ReachableTargetsConvergeWithExactBoneLengths) {
  const Matrix3Xd rest = straightChain(10, 0.1);
  Solver solver(Skeleton(test::chainParents(11), rest));
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Matrix3Xd p = rest;
  int converged = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Vector3d t = randomVector3(u, rng);
    if (t.norm() > 0.95 || t.norm() < 0.05) continue;
    solver.setTarget(10, t);
    const Result r = solver.solve(p, {.tolerance = 1e-6, .max_iterations = 200});
    ASSERT_TRUE(boneLengthsHold(solver.skeleton(), p, 1e-12));
    EXPECT_EQ(p.col(0), rest.col(0));
    if (r.status == ik::Status::Converged) {
      ++converged;
      EXPECT_LE((p.col(10) - t).norm(), 1e-6);
      EXPECT_DOUBLE_EQ(r.error, (p.col(10) - t).norm());
    }
  }
  EXPECT_GT(converged, 0);
}

TEST(Fabrik, EveryReachableTargetOfAnUnconstrainedChainConverges) {
  const Matrix3Xd rest = straightChain(6, 0.2);
  Solver solver(Skeleton(test::chainParents(7), rest));
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  Matrix3Xd p = rest;
  for (int trial = 0; trial < 1000; ++trial) {
    Vector3d t = randomVector3(u, rng);
    if (t.norm() > 1.15) continue;
    solver.setTarget(6, t);
    const Result r = solver.solve(p, {.tolerance = 1e-6, .max_iterations = 500});
    EXPECT_EQ(r.status, ik::Status::Converged) << trial << " " << t.transpose();
  }
}

TEST(Fabrik, UnreachableTargetStretchesTheChainTowardsIt) {
  const Matrix3Xd rest = straightChain(5, 0.1);
  Solver solver(Skeleton(test::chainParents(6), rest));
  Matrix3Xd p = rest;
  p.col(3) += Vector3d(0.03, 0.0, 0.0);  // lengths are restored by the solve
  const Vector3d t(1.0, 2.0, -0.5);
  solver.setTarget(5, t);
  const Result r = solver.solve(p);
  EXPECT_EQ(r.status, ik::Status::Stationary);  // out of reach: stretched towards it
  EXPECT_TRUE(r.unreachable);
  EXPECT_FALSE(r.stalled);
  EXPECT_EQ(r.iterations, 1);
  const Vector3d dir = (t - rest.col(0)).normalized();
  for (int j = 0; j <= 5; ++j) EXPECT_LT((p.col(j) - (rest.col(0) + 0.1 * j * dir)).norm(), 1e-12) << j;
  EXPECT_NEAR(r.error, t.norm() - 0.5, 1e-12);
}

TEST(Fabrik, IterationCapIsReported) {
  const Matrix3Xd rest = straightChain(8, 0.1);
  Solver solver(Skeleton(test::chainParents(9), rest));
  Matrix3Xd p = rest;
  solver.setTarget(8, Vector3d(0.3, 0.2, 0.1));
  const Result r = solver.solve(p, {.tolerance = 1e-14, .max_iterations = 3});
  EXPECT_EQ(r.status, ik::Status::IterationLimit);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_GT(r.error, 1e-14);
  EXPECT_FALSE(r.unreachable || r.stalled || r.gap);
  EXPECT_STREQ(ik::toString(r.status), "iteration-limit");
}

TEST(Fabrik, HandTreeWithSubBaseConverges) {
  const test::Hand hand = test::makeHand();
  Solver solver(hand.skeleton);
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0.0, 0.4);
  for (int trial = 0; trial < 200; ++trial) {
    // Targets from a random pose of the same tree: always reachable together.
    Matrix3Xd pose = hand.rest;
    test::randomPose(hand.skeleton, pose, rng, 0.6);
    for (int tip : hand.tips) solver.setTarget(tip, pose.col(tip));
    Matrix3Xd p = hand.rest;
    solver.resetFrames(p);
    const Result r = solver.solve(p, {.tolerance = 1e-5, .max_iterations = 2000});
    EXPECT_EQ(r.status, ik::Status::Converged) << trial << " error " << r.error;
    EXPECT_TRUE(boneLengthsHold(hand.skeleton, p, 1e-12));
    EXPECT_EQ(p.col(0), hand.rest.col(0));
  }
}

TEST(Fabrik, IntermediateJointTargetAndMovingRoot) {
  const Matrix3Xd rest = straightChain(6, 0.1);
  Solver solver(Skeleton(test::chainParents(7), rest));
  Matrix3Xd p = rest;
  // An intermediate joint pulled to a target, the leaf free.
  solver.setTarget(3, Vector3d(0.2, 0.0, 0.1));
  Result r = solver.solve(p);
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_LT((p.col(3) - Vector3d(0.2, 0.0, 0.1)).norm(), 1e-6);
  EXPECT_TRUE(boneLengthsHold(solver.skeleton(), p, 1e-12));
  // A root target moves the base.
  solver.clearTargets();
  solver.setTarget(0, Vector3d(1.0, 1.0, 1.0));
  solver.setTarget(6, Vector3d(1.3, 1.0, 1.2));
  r = solver.solve(p);
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_EQ(p.col(0), Vector3d(1.0, 1.0, 1.0));
  // A free root: the whole chain follows a far target.
  solver.clearTargets();
  solver.setTarget(6, Vector3d(5.0, 0.0, 0.0));
  r = solver.solve(p, {.root = RootMode::Free});
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_TRUE(boneLengthsHold(solver.skeleton(), p, 1e-12));
}

TEST(Fabrik, SolveDoesNotAllocate) {
  const test::Hand hand = test::makeHand();
  Solver solver(hand.skeleton);
  Matrix3Xd p = hand.rest;
  Matrix3Xd pose = hand.rest;
  std::mt19937 rng(4);
  test::randomPose(hand.skeleton, pose, rng, 0.5);
  for (int tip : hand.tips) solver.setTarget(tip, pose.col(tip));
  solver.solve(p);  // first solve derives the frames
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    solver.solve(p);
    solver.setTarget(hand.tips[0], Vector3d(9.0, 9.0, 9.0));
    solver.solve(p);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(Fabrik, BadInputThrows) {
  const Matrix3Xd rest = straightChain(3, 0.1);
  EXPECT_THROW(Skeleton({-1, 0, 2, 1}, rest), InvalidArgument);
  EXPECT_THROW(Skeleton({-1, 0, 1}, rest), InvalidArgument);
  Skeleton sk(test::chainParents(4), rest);
  JointConstraint c;
  c.type = ConstraintType::Hinge;
  c.hinge_axis = Vector3d::UnitZ();
  EXPECT_THROW(sk.setConstraint(1, c), InvalidArgument);
  EXPECT_THROW(sk.setCoupling(2, 0.5), InvalidArgument);
  Solver solver(sk);
  Matrix3Xd wrong(3, 2);
  EXPECT_THROW(solver.solve(wrong), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::fabrik
