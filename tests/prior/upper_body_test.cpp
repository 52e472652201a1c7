// The 25-DoF DH upper-body model (GPM Eq. 1): DH forward kinematics against an independent Model
// built from the same joint axes, the Jacobian against finite differences and the Model's
// Jacobian, the zero blocks of Eq. 1, and the DH extraction on special axis layouts.
#include "kinetrack/prior/upper_body.hpp"

#include <gtest/gtest.h>

#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "prior_fixtures.hpp"

namespace kinetrack::prior {
namespace KINETRACK_UNITY_ID {

Vector25d randomTheta(std::mt19937& rng, double range) {
  std::uniform_real_distribution<double> u(-range, range);
  Vector25d t;
  for (int i = 0; i < kUpperBodyDof; ++i) t[i] = u(rng);
  return t;
}

/// θ in the reference Model's joint order (its joints are named as jointNames()).
Configuration referenceConfiguration(const Model& ref, const Vector25d& theta) {
  Configuration q(ref);
  for (int i = 0; i < kUpperBodyDof; ++i)
    q.joints[ref.jointId(UpperBodyModel::jointNames()[static_cast<std::size_t>(i)]).value] = theta[i];
  return q;
}

class UpperBodyBodies : public ::testing::TestWithParam<unsigned> {};

TEST_P(UpperBodyBodies, DhForwardKinematicsMatchesModelBuiltFromTheSameAxes) {
  const auto body = testing::syntheticBody(GetParam());
  const UpperBodyModel m = upperBodyFromAxes("s", body.axes, body.hands);
  const Model ref = upperBodyReferenceModel(body.axes, body.hands);
  ASSERT_EQ(ref.numJoints(), kUpperBodyDof);
  Data d(ref);
  UpperBodyData data;
  std::mt19937 rng(7 + GetParam());
  for (int trial = 0; trial < 20; ++trial) {
    const Vector25d theta = trial == 0 ? Vector25d::Zero() : randomTheta(rng, 1.5);
    upperBodyForwardKinematics(m, data, theta);
    framesForwardKinematics(ref, d, referenceConfiguration(ref, theta));
    for (int s = 0; s < 2; ++s) {
      const Transform& h = d.frame[ref.frameId(s == 0 ? "RightHand" : "LeftHand").value];
      EXPECT_LT((data.hand[static_cast<std::size_t>(s)].p - h.p).norm(), 1e-12) << "trial " << trial;
      EXPECT_LT((data.hand[static_cast<std::size_t>(s)].R - h.R).norm(), 1e-12) << "trial " << trial;
    }
  }
}

TEST_P(UpperBodyBodies, JacobianMatchesFiniteDifferencesAndTheModelJacobian) {
  const auto body = testing::syntheticBody(GetParam());
  const UpperBodyModel m = upperBodyFromAxes("s", body.axes, body.hands);
  const Model ref = upperBodyReferenceModel(body.axes, body.hands);
  Data d(ref);
  UpperBodyData data, plus, minus;
  std::mt19937 rng(11 + GetParam());
  const double eps = 1e-6;
  for (int trial = 0; trial < 5; ++trial) {
    const Vector25d theta = randomTheta(rng, 1.2);
    upperBodyForwardKinematics(m, data, theta);
    upperBodyJacobian(m, data);
    for (int i = 0; i < kUpperBodyDof; ++i) {
      Vector25d tp = theta, tm = theta;
      tp[i] += eps;
      tm[i] -= eps;
      upperBodyForwardKinematics(m, plus, tp);
      upperBodyForwardKinematics(m, minus, tm);
      for (int s = 0; s < 2; ++s) {
        const auto su = static_cast<std::size_t>(s);
        const Vector3d dp = (plus.hand[su].p - minus.hand[su].p) / (2 * eps);
        const Vector3d dw = so3::log(plus.hand[su].R * minus.hand[su].R.transpose()) / (2 * eps);
        EXPECT_LT(((data.J.block<3, 1>(6 * s, i) - dp).norm()), 1e-7) << "joint " << i << " side " << s;
        EXPECT_LT(((data.J.block<3, 1>(6 * s + 3, i) - dw).norm()), 1e-7) << "joint " << i << " side " << s;
      }
    }
    // The Model's analytic Jacobian (another code path) agrees too.
    framesForwardKinematics(ref, d, referenceConfiguration(ref, theta));
    for (int s = 0; s < 2; ++s) {
      Matrix6Xd Jref(6, ref.nv());
      frameJacobian(ref, d, ref.frameId(s == 0 ? "RightHand" : "LeftHand"), Jref);
      for (int i = 0; i < kUpperBodyDof; ++i) {
        const int col = ref.jointId(UpperBodyModel::jointNames()[static_cast<std::size_t>(i)]).value;
        EXPECT_LT(((data.J.block<6, 1>(6 * s, i) - Jref.col(col)).norm()), 1e-10);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HumanLikeAndGeneric, UpperBodyBodies, ::testing::Values(0u, 1u, 2u, 3u));

TEST(UpperBody, JacobianHasTheZeroBlocksOfEq1) {
  const auto body = testing::syntheticBody(5);
  const UpperBodyModel m = upperBodyFromAxes("s", body.axes, body.hands);
  UpperBodyData data;
  std::mt19937 rng(3);
  upperBodyForwardKinematics(m, data, randomTheta(rng, 1.0));
  upperBodyJacobian(m, data);
  for (int k = kTorsoDof; k < kChainLength; ++k) {
    EXPECT_EQ((data.J.block<6, 1>(0, thetaIndex(Side::Left, k)).norm()), 0.0);
    EXPECT_EQ((data.J.block<6, 1>(6, thetaIndex(Side::Right, k)).norm()), 0.0);
    EXPECT_GT((data.J.block<6, 1>(0, thetaIndex(Side::Right, k)).norm()), 0.0);
  }
  for (int k = 0; k < kTorsoDof; ++k) {  // shared torso: both hands move
    EXPECT_GT((data.J.block<3, 1>(0, k).norm()), 0.0);
    EXPECT_GT((data.J.block<3, 1>(6, k).norm()), 0.0);
  }
}

TEST(UpperBody, HandErrorIsZeroAtTheModelsOwnPoseAndSignedTowardsTheTarget) {
  const auto body = testing::syntheticBody(0);
  const UpperBodyModel m = upperBodyFromAxes("s", body.axes, body.hands);
  UpperBodyData data;
  upperBodyForwardKinematics(m, data, Vector25d::Constant(0.1));
  EXPECT_LT(handError(data, data.hand).norm(), 1e-12);
  auto target = data.hand;
  target[1].p.x() += 0.01;
  target[0].R = so3::exp(Vector3d(0, 0, 0.02)) * target[0].R;
  const Vector12d e = handError(data, target);
  EXPECT_NEAR(e[6], 0.01, 1e-12);
  EXPECT_NEAR(e[5], 0.02, 1e-12);
}

TEST(UpperBody, DhFromAxesHandlesParallelCoincidentAndIntersectingAxes) {
  // A planar chain (parallel axes), a repeated axis and a ball joint, checked by FK against the Model.
  std::vector<JointAxis> chain = {{Vector3d(0, 0, 0), Vector3d::UnitZ()},     {Vector3d(0.3, 0, 0), Vector3d::UnitZ()},
                                  {Vector3d(0.3, 0, 0.1), Vector3d::UnitZ()}, {Vector3d(0.6, 0, 0), Vector3d::UnitX()},
                                  {Vector3d(0.6, 0, 0), Vector3d::UnitY()},   {Vector3d(0.6, 0, 0), Vector3d::UnitZ()}};
  Transform ee;
  ee.p = Vector3d(0.8, 0.1, 0.0);
  Transform f0, tool;
  const std::vector<DhLink> rows = dhFromAxes(chain, ee, f0, tool);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int trial = 0; trial < 10; ++trial) {
    // DH product vs the product of exponentials about the same axes.
    Transform T = f0, P;
    Matrix3d R = Matrix3d::Identity();
    Vector3d p = Vector3d::Zero();
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const double q = u(rng);
      const Transform step = dhTransform(rows[k], q);
      T.p = T.p + T.R * step.p;
      T.R = T.R * step.R;
      // exp about axis k through its point, in the frame moved by the previous joints
      const Matrix3d Rk = so3::axisAngle(chain[k].direction, q);
      p = p + R * (chain[k].point - Rk * chain[k].point);
      R = R * Rk;
    }
    const Vector3d tip_dh = T.p + T.R * tool.p;
    const Vector3d tip_poe = p + R * ee.p;
    EXPECT_LT((tip_dh - tip_poe).norm(), 1e-12);
    EXPECT_LT((T.R * tool.R - R * ee.R).norm(), 1e-12);
  }
  EXPECT_THROW(dhFromAxes({{Vector3d::Zero(), Vector3d(0, 0, 2)}}, ee, f0, tool), InvalidArgument);
  EXPECT_THROW(dhFromAxes({}, ee, f0, tool), InvalidArgument);
}

TEST(UpperBody, DifferingTorsoAxesAreRejected) {
  auto body = testing::syntheticBody(0);
  body.axes[1][1].direction = Vector3d::UnitZ();
  EXPECT_THROW(upperBodyFromAxes("s", body.axes, body.hands), InvalidArgument);
  body.axes[1].pop_back();
  EXPECT_THROW(upperBodyFromAxes("s", body.axes, body.hands), InvalidArgument);
}

TEST(UpperBody, JointNamesAreUniqueAndFollowTheThetaOrder) {
  const auto& n = UpperBodyModel::jointNames();
  EXPECT_EQ(n[0], "torso_1");
  EXPECT_EQ(n[static_cast<std::size_t>(thetaIndex(Side::Right, 3))], "r_sc_1");
  EXPECT_EQ(n[static_cast<std::size_t>(thetaIndex(Side::Left, 13))], "l_wrist_dev");
  for (std::size_t i = 0; i < n.size(); ++i)
    for (std::size_t j = i + 1; j < n.size(); ++j) EXPECT_NE(n[i], n[j]);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::prior
