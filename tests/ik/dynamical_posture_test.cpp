// DYN's posture term ½Σμ_i(ν_i − v_i)² (a posture task with a velocity reference and no pose values,
// ik::PostureTask, in DynamicalIk::tasks()): the step equals an independent
// dense solve of the same least-squares problem, acts alone when there are no targets, leaves the
// targets' solution when μ is small, rejects bad input and does not allocate.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

/// human66 in a mid-range pose (every joint well inside its limits), a position target on the
/// right hand 2 cm away (κ = 0.5 per step) and a random posture reference.
struct PostureCase {
  Model model = makeHuman66();
  Configuration q0{model};
  VectorXd mu, v;
  Vector3d target;
  ik::PostureTaskId posture;
  static constexpr double kDt = 0.01, kKappa = 0.5, kLambda = 1e-9;
  explicit PostureCase(double weight) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int n = model.numJoints();
    for (int j = 0; j < n; ++j) {
      const double lo = model.lowerPositionLimits()[j], hi = model.upperPositionLimits()[j];
      q0.joints[j] = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * (lo + hi) + 0.1 * (hi - lo) * u(rng) : 0.2 * u(rng);
    }
    q0.base_position = Vector3d(0.3, -0.2, 0.9);
    mu = VectorXd::Constant(n, weight);
    v = VectorXd(n);
    for (int j = 0; j < n; ++j) v[j] = 0.2 * u(rng);  // rad/s: far from any velocity bound
    Data d(model);
    forwardKinematics(model, d, q0);
    target = frameOrigin(model, d, model.frameId("RightHand")) + Vector3d(0.02, -0.01, 0.015);
  }
  DynamicalIk solver(bool with_target) {
    DynamicalIkOptions o;
    o.gain_mode = GainMode::PerStep;
    o.damping = kLambda;
    DynamicalIk ik(model, o);
    if (with_target) {
      const TargetId id = ik.tasks().addPosition("RightHand", {1.0, kKappa});
      ik.tasks().setPosition(id, target);
    }
    ik.setState(q0);
    posture = ik.tasks().addPosture(mu);
    ik.tasks().setVelocities(posture, v);
    return ik;
  }
  /// The same problem solved densely: (JᵀJ + λI + diag(0, μ)) ν = Jᵀ κ/Δt r + (0; μ∘v).
  VectorXd denseSolution() const {
    Data d(model);
    forwardKinematics(model, d, q0);
    const FrameId f = model.frameId("RightHand");
    Matrix6Xd J6(6, model.nv());
    frameJacobian(model, d, f, J6);
    const MatrixXd J = J6.topRows(3);
    const Vector3d r = target - frameOrigin(model, d, f);
    const int nb = model.nvBase(), n = model.numJoints();
    MatrixXd H = J.transpose() * J;
    H.diagonal().array() += kLambda;
    H.diagonal().tail(n) += mu;
    VectorXd g = J.transpose() * (kKappa / kDt * r);
    g.tail(n) += mu.cwiseProduct(v);
    (void)nb;
    return H.ldlt().solve(g);
  }
};

TEST(DynamicalPosture, StepEqualsAnIndependentDenseSolve) {
  for (double weight : {1e-3, 0.05, 1.0}) {
    PostureCase c(weight);
    DynamicalIk ik = c.solver(true);
    const StepResult r = ik.step(PostureCase::kDt);
    ASSERT_EQ(r.status, ik::Status::Converged);
    ASSERT_EQ(r.active_bounds, 0) << "the comparison needs an unconstrained optimum";
    const VectorXd expected = c.denseSolution();
    EXPECT_LT((ik.velocity() - expected).norm(), 1e-7 * (1.0 + expected.norm()))
        << "weight " << weight << "\nDYN  " << ik.velocity().transpose() << "\ndense " << expected.transpose();
  }
}

TEST(DynamicalPosture, WithoutTargetsTheJointsFollowTheReference) {
  PostureCase c(0.1);
  DynamicalIk ik = c.solver(false);
  ik.step(PostureCase::kDt);
  const int n = c.model.numJoints();
  EXPECT_LT((ik.velocity().tail(n) - c.v).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LT(ik.velocity().head(c.model.nvBase()).norm(), 1e-9);  // the base has no posture term
}

TEST(DynamicalPosture, ASmallWeightLeavesTheTargetsSolution) {
  // The hand's velocity is the targets' (κ/Δt r) whatever the posture asks, to O(μ).
  PostureCase c(1e-4);
  DynamicalIk ik = c.solver(true);
  ik.step(PostureCase::kDt);
  Data d(c.model);
  forwardKinematics(c.model, d, c.q0);
  const FrameId f = c.model.frameId("RightHand");
  Matrix6Xd J(6, c.model.nv());
  frameJacobian(c.model, d, f, J);
  const Vector3d wanted = PostureCase::kKappa / PostureCase::kDt * (c.target - frameOrigin(c.model, d, f));
  EXPECT_LT((J.topRows(3) * ik.velocity() - wanted).norm(), 1e-3 * wanted.norm());
  // ... and the freedom the hand leaves (the legs) follows the reference.
  const int lk = c.model.jointId("jRightKnee_rotz").value;
  EXPECT_NEAR(ik.velocity()[c.model.nvBase() + lk], c.v[lk], 1e-6);
}

TEST(DynamicalPosture, BadWeightsAndVelocitiesAreRejected) {
  PostureCase c(0.1);
  DynamicalIk ik = c.solver(false);
  VectorXd w = VectorXd::Constant(c.model.numJoints(), 0.1);
  w[3] = -1.0;
  EXPECT_THROW(ik.tasks().setWeights(c.posture, w), InvalidArgument);
  w[3] = std::nan("");
  EXPECT_THROW(ik.tasks().setWeights(c.posture, w), InvalidArgument);
  w.conservativeResize(w.size() - 1);
  EXPECT_THROW(ik.tasks().setWeights(c.posture, w), InvalidArgument);
  VectorXd v = VectorXd::Zero(c.model.numJoints());
  v[0] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(ik.tasks().setVelocities(c.posture, v), InvalidArgument);
  // The rejected calls kept the previous values.
  EXPECT_EQ(ik.tasks()[c.posture].weights, c.mu);
  EXPECT_EQ(ik.tasks()[c.posture].velocities, c.v);
}

TEST(DynamicalPosture, SettingTheReferenceAndSteppingDoNotAllocate) {
  PostureCase c(0.01);
  DynamicalIk ik = c.solver(true);
  ik.step(PostureCase::kDt);
  const VectorXd v2 = -c.v;
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    ik.tasks().setVelocities(c.posture, v2);
    ik.tasks().setWeights(c.posture, c.mu);
    ik.step(PostureCase::kDt);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
