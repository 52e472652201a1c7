// Configuration-space helpers: integrate / difference on R³ × SO(3) × Rⁿ, random configurations
// and position-limit violations.
#include "kinetrack/kinematics/configuration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// A random velocity with |ω_B| < π (uniform direction, magnitude uniform in [0, 0.999π)).
VectorXd randomVelocity(const Model& m, std::mt19937_64& rng, double max_angle = 0.999 * M_PI) {
  std::normal_distribution<double> n(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  VectorXd v(m.nv());
  for (int i = 0; i < m.nv(); ++i) v[i] = 2.0 * n(rng);
  if (m.nvBase() == 6) {
    const Vector3d axis = randomVector3(n, rng).normalized();
    v.segment<3>(3) = max_angle * u(rng) * axis;
  }
  return v;
}

double rotationError(const Matrix3d& A, const Matrix3d& B) { return (A - B).cwiseAbs().maxCoeff(); }

TEST(Configuration, DifferenceInvertsIntegrate) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    std::mt19937_64 rng(11);
    VectorXd back(m.nv());
    double worst = 0.0;
    for (int i = 0; i < 1000; ++i) {
      const Configuration q = randomConfiguration(m, rng);
      const VectorXd v = randomVelocity(m, rng);
      Configuration q1;
      integrate(m, q, v, 1.0, q1);
      difference(m, q, q1, back);
      worst = std::max(worst, (back - v).cwiseAbs().maxCoeff());
    }
    EXPECT_LT(worst, 1e-9) << m.name();
  }
}

TEST(Configuration, DifferenceNearPiAndNearZeroRotation) {
  const Model m = makeHuman48();
  std::mt19937_64 rng(12);
  VectorXd back(m.nv());
  for (double angle : {0.0, 1e-12, 1e-7, 1e-3, 1.0, 3.0, M_PI - 1e-3, M_PI - 1e-6}) {
    for (int i = 0; i < 20; ++i) {
      const Configuration q = randomConfiguration(m, rng);
      VectorXd v = randomVelocity(m, rng);
      std::normal_distribution<double> n(0.0, 1.0);
      v.segment<3>(3) = angle * randomVector3(n, rng).normalized();
      Configuration q1;
      integrate(m, q, v, 1.0, q1);
      difference(m, q, q1, back);
      // Near π the rotation vector is ill-conditioned (∂ log / ∂ R ~ 1/sin): scale the tolerance.
      const double tol = angle > 3.1 ? 1e-9 / std::max(1e-12, M_PI - angle) : 1e-9;
      EXPECT_LT((back - v).cwiseAbs().maxCoeff(), tol) << "angle " << angle;
    }
  }
}

TEST(Configuration, IntegrateInvertsDifference) {
  const Model m = makeHuman66();
  std::mt19937_64 rng(13);
  VectorXd v(m.nv());
  for (int i = 0; i < 500; ++i) {
    const Configuration q0 = randomConfiguration(m, rng);
    const Configuration q1 = randomConfiguration(m, rng);
    difference(m, q0, q1, v);
    EXPECT_LE(v.segment<3>(3).norm(), M_PI + 1e-12);
    Configuration q2;
    integrate(m, q0, v, 1.0, q2);
    EXPECT_LT((q2.base_position - q1.base_position).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT(rotationError(q2.base_rotation, q1.base_rotation), 1e-10);
    EXPECT_LT((q2.joints - q1.joints).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(Configuration, IntegrateWithDtFollowsTheDefinition) {
  const Model m = makeHuman48();
  std::mt19937_64 rng(14);
  for (double dt : {0.0, 1e-3, 0.01, 0.5, 2.0, -0.3}) {
    const Configuration q = randomConfiguration(m, rng);
    const VectorXd v = randomVelocity(m, rng, 1.0);
    Configuration out;
    integrate(m, q, v, dt, out);
    // p_B += ṗ_B dt, R_B ← exp(ω_B dt) R_B (world frame), s += ṡ dt.
    EXPECT_LT((out.base_position - (q.base_position + dt * v.head<3>())).norm(), 1e-14);
    EXPECT_LT(rotationError(out.base_rotation, so3::exp(dt * Vector3d(v.segment<3>(3))) * q.base_rotation), 1e-14);
    EXPECT_LT((out.joints - (q.joints + dt * v.tail(m.numJoints()))).norm(), 1e-13);
    // Same as integrating dt·ν over unit time.
    Configuration out2;
    integrate(m, q, VectorXd(dt * v), 1.0, out2);
    EXPECT_LT(rotationError(out.base_rotation, out2.base_rotation), 1e-14);
    EXPECT_LT((out.joints - out2.joints).norm(), 1e-13);
    // The world-frame convention is not the body-frame one (they differ for a generic pose).
    if (dt != 0.0) {
      const Matrix3d body = q.base_rotation * so3::exp(dt * Vector3d(v.segment<3>(3)));
      EXPECT_GT(rotationError(out.base_rotation, body), 1e-6);
    }
  }
}

TEST(Configuration, IntegrateAllowsAliasingAndComposesOverSteps) {
  const Model m = makeHuman48();
  std::mt19937_64 rng(15);
  Configuration q = randomConfiguration(m, rng);
  const Configuration q0 = q;
  VectorXd v = randomVelocity(m, rng, 0.5);
  v.tail(m.numJoints()).setConstant(0.1);
  for (int k = 0; k < 100; ++k) integrate(m, q, v, 0.01, q);  // in place
  Configuration once;
  integrate(m, q0, v, 1.0, once);
  // Constant world-frame ω: exp(ω·0.01)¹⁰⁰ = exp(ω), so 100 small steps equal one unit step.
  EXPECT_LT(rotationError(q.base_rotation, once.base_rotation), 1e-12);
  EXPECT_LT((q.base_position - once.base_position).norm(), 1e-12);
  EXPECT_LT((q.joints - once.joints).norm(), 1e-12);
  EXPECT_LT((q.base_rotation.transpose() * q.base_rotation - Matrix3d::Identity()).norm(), 1e-13);
}

TEST(Configuration, FixedBaseHasNoBaseVelocity) {
  HumanModelOptions o;
  o.base = BaseType::Fixed;
  const Model m = makeHuman48(o);
  ASSERT_EQ(m.nv(), m.numJoints());
  Configuration q(m);
  q.base_position = {1, 2, 3};
  q.base_rotation = so3::exp(Vector3d(0.1, 0.2, 0.3));
  VectorXd v = VectorXd::LinSpaced(m.nv(), -1.0, 1.0);
  Configuration out;
  integrate(m, q, v, 0.5, out);
  EXPECT_EQ(out.base_position, q.base_position);
  EXPECT_EQ(out.base_rotation, q.base_rotation);
  EXPECT_LT((out.joints - 0.5 * v).norm(), 1e-15);
  VectorXd back(m.nv());
  difference(m, q, out, back);
  EXPECT_LT((back - 0.5 * v).norm(), 1e-15);
}

TEST(Configuration, SizeMismatchesThrow) {
  const Model m = makeHuman48();
  Configuration q(m), out;
  EXPECT_THROW(integrate(m, q, VectorXd::Zero(m.nv() - 1), 1.0, out), InvalidArgument);
  VectorXd small(m.nv() + 1);
  EXPECT_THROW(difference(m, q, q, small), InvalidArgument);
  Configuration bad(m);
  bad.joints.resize(3);
  VectorXd v(m.nv());
  EXPECT_THROW(difference(m, q, bad, v), InvalidArgument);
  EXPECT_THROW(integrate(m, bad, VectorXd::Zero(m.nv()), 1.0, out), InvalidArgument);
  EXPECT_THROW((void)positionLimitViolation(m, bad), InvalidArgument);
}

TEST(Configuration, RandomConfigurationsAreWithinLimitsAndDeterministic) {
  std::vector<Model> models{makeHuman48(), makeHuman66()};
  if (const std::string icub = testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf"); !icub.empty())
    models.push_back(io::loadUrdf(icub));
  for (const Model& m : models) {
    SCOPED_TRACE(m.name());
    std::mt19937_64 rng(16), rng2(16);
    VectorXd lo = VectorXd::Constant(m.numJoints(), 1e300), hi = VectorXd::Constant(m.numJoints(), -1e300);
    for (int i = 0; i < 2000; ++i) {
      const Configuration q = randomConfiguration(m, rng);
      const Configuration q2 = randomConfiguration(m, rng2);
      ASSERT_EQ(q.joints, q2.joints);  // same seed, same draw
      ASSERT_EQ(q.base_rotation, q2.base_rotation);
      ASSERT_TRUE(q.joints.allFinite());
      EXPECT_EQ(positionLimitViolation(m, q), 0.0);
      EXPECT_LE(q.joints.cwiseAbs().maxCoeff(), M_PI);  // unbounded joints are drawn within ±π
      EXPECT_LT((q.base_rotation.transpose() * q.base_rotation - Matrix3d::Identity()).norm(), 1e-14);
      EXPECT_GT(q.base_rotation.determinant(), 0.0);
      EXPECT_LE(q.base_position.cwiseAbs().maxCoeff(), 1.0);
      lo = lo.cwiseMin(q.joints);
      hi = hi.cwiseMax(q.joints);
    }
    // The draws cover the allowed range (uniform; 2000 samples reach within 2 % of each end).
    for (int j = 0; j < m.numJoints(); ++j) {
      const double l = std::max(m.lowerPositionLimits()[j], -M_PI), u = std::min(m.upperPositionLimits()[j], M_PI);
      EXPECT_LT(lo[j] - l, 0.02 * (u - l)) << m.jointName(JointId(j));
      EXPECT_LT(u - hi[j], 0.02 * (u - l)) << m.jointName(JointId(j));
    }
  }
}

TEST(Configuration, RandomConfigurationOptions) {
  const Model m = makeHuman66();
  std::mt19937_64 rng(17);
  RandomConfigurationOptions o;
  o.unbounded_range = 0.25;
  o.base_box = 0.1;
  double max_joint = 0.0;
  for (int i = 0; i < 200; ++i) {
    const Configuration q = randomConfiguration(m, rng, o);
    max_joint = std::max(max_joint, q.joints.cwiseAbs().maxCoeff());
    EXPECT_LE(q.base_position.cwiseAbs().maxCoeff(), 0.1);
  }
  EXPECT_LE(max_joint, 0.25);
  EXPECT_GT(max_joint, 0.2);
  // A fixed base stays at the identity placement.
  HumanModelOptions fixed;
  fixed.base = BaseType::Fixed;
  const Configuration qf = randomConfiguration(makeHuman48(fixed), rng);
  EXPECT_EQ(qf.base_position, Vector3d::Zero());
  EXPECT_EQ(qf.base_rotation, Matrix3d::Identity());
}

// Joints whose limits lie outside ±unbounded_range, or are one-sided, must still get a finite
// value inside their limits.
TEST(Configuration, RandomConfigurationWithUnusualLimitsIsFiniteAndInside) {
  ModelBuilder b("odd", "root", BaseType::Fixed);
  const double inf = std::numeric_limits<double>::infinity();
  struct L {
    const char* name;
    double lo, hi;
  };
  std::string parent = "root";
  for (const L& l : {L{"far_window", 5.0, 6.0}, L{"negative_window", -10.0, -5.0}, L{"lower_only", -inf, 1.0},
                     L{"upper_only", 0.5, inf}, L{"upper_only_far", 4.0, inf}, L{"lower_only_far", -inf, -4.0},
                     L{"point", 0.3, 0.3}}) {
    JointSpec s;
    s.name = l.name;
    s.parent = parent;
    s.child = std::string(l.name) + "_link";
    s.lower = l.lo;
    s.upper = l.hi;
    b.addJoint(s);
    parent = s.child;
  }
  const Model m = b.build();
  std::mt19937_64 rng(18);
  std::vector<int> non_finite(static_cast<std::size_t>(m.numJoints()), 0);
  for (int i = 0; i < 100; ++i) {
    const Configuration q = randomConfiguration(m, rng);
    for (int j = 0; j < m.numJoints(); ++j) non_finite[static_cast<std::size_t>(j)] += !std::isfinite(q.joints[j]);
    EXPECT_EQ(positionLimitViolation(m, q), 0.0);
  }
  for (int j = 0; j < m.numJoints(); ++j)
    EXPECT_EQ(non_finite[static_cast<std::size_t>(j)], 0)
        << "joint '" << m.jointName(JointId(j)) << "' with limits [" << m.lowerPositionLimits()[j] << ", "
        << m.upperPositionLimits()[j] << "] got a non-finite value in that many of 100 draws";
}

TEST(Configuration, PositionLimitViolation) {
  const Model m = makeHuman48();
  Configuration q(m);
  // Zero is inside every human48 limit except where 0 is itself a limit (still inside).
  JointId worst;
  EXPECT_EQ(positionLimitViolation(m, q, &worst), 0.0);
  EXPECT_FALSE(worst.valid());
  // Exactly at a limit is not a violation.
  q.joints = m.upperPositionLimits();
  EXPECT_EQ(positionLimitViolation(m, q), 0.0);
  q.joints = m.lowerPositionLimits();
  EXPECT_EQ(positionLimitViolation(m, q), 0.0);
  // Two violations: the larger one is reported, with its joint.
  q.joints.setZero();
  const JointId knee = m.jointId("jRightKnee_roty"), elbow = m.jointId("jLeftElbow_rotz");
  q.joints[knee.value] = m.lowerPositionLimits()[knee.value] - 0.2;
  q.joints[elbow.value] = m.upperPositionLimits()[elbow.value] + 0.5;
  EXPECT_NEAR(positionLimitViolation(m, q, &worst), 0.5, 1e-15);
  EXPECT_EQ(worst, elbow);
  q.joints[knee.value] = m.lowerPositionLimits()[knee.value] - 0.7;
  EXPECT_NEAR(positionLimitViolation(m, q, &worst), 0.7, 1e-15);
  EXPECT_EQ(worst, knee);
  // Continuous joints (human66) never violate.
  const Model m66 = makeHuman66();
  Configuration q66(m66);
  q66.joints.setConstant(1e6);
  EXPECT_EQ(positionLimitViolation(m66, q66), 0.0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack

namespace kinetrack {
namespace KINETRACK_UNITY_ID {
TEST(Configuration, NanCoordinateIsAnInfiniteLimitViolation) {
  const Model m = makeHuman48();
  Configuration q(m);
  EXPECT_EQ(positionLimitViolation(m, q), 0.0);
  q.joints[5] = std::nan("");
  JointId worst;
  EXPECT_EQ(positionLimitViolation(m, q, &worst), std::numeric_limits<double>::infinity());
  EXPECT_EQ(worst.value, 5);
}
}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
