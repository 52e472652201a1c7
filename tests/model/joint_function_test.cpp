// ScalarFunction (the OpenSim function types) and JointType::Custom joints: splines interpolate
// their knots and reproduce what their end conditions promise, derivatives match central finite
// differences, and a function-driven joint's forward kinematics and Jacobian columns follow the
// chain rule (finite differences, and an equivalent chain of plain joints).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/joint_function.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/finite_diff.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// Central differences of f and f′ at x.
void expectDerivatives(const ScalarFunction& f, double x, double tol) {
  const double h = 1e-6;
  double v, d1, d2;
  f.evaluate(x, v, d1, d2);
  EXPECT_NEAR(d1, (f.value(x + h) - f.value(x - h)) / (2 * h), tol) << f.describe() << " at " << x;
  double vp, dp, ddp, vm, dm, ddm;
  f.evaluate(x + h, vp, dp, ddp);
  f.evaluate(x - h, vm, dm, ddm);
  EXPECT_NEAR(d2, (dp - dm) / (2 * h), tol * 10) << f.describe() << " at " << x;
}

TEST(ScalarFunction, ConstantLinearPolynomialAndScale) {
  EXPECT_EQ(ScalarFunction().value(3.0), 0.0);
  EXPECT_EQ(ScalarFunction::constant(2.5).value(-7.0), 2.5);
  EXPECT_TRUE(ScalarFunction::constant(2.5).isConstant());
  const ScalarFunction lin = ScalarFunction::linear(-2.0, 0.5);
  EXPECT_DOUBLE_EQ(lin.value(1.5), -2.5);
  EXPECT_TRUE(ScalarFunction::linear(1.0, 0.0).isIdentity());
  EXPECT_FALSE(ScalarFunction::linear(1.0, 0.0).scaled(2.0).isIdentity());
  // 2x³ − x + 4, highest power first.
  const ScalarFunction p = ScalarFunction::polynomial({2.0, 0.0, -1.0, 4.0});
  EXPECT_DOUBLE_EQ(p.value(2.0), 18.0);
  double f, d1, d2;
  p.evaluate(2.0, f, d1, d2);
  EXPECT_DOUBLE_EQ(d1, 23.0);
  EXPECT_DOUBLE_EQ(d2, 24.0);
  const ScalarFunction s = p.scaled(-0.5);
  EXPECT_DOUBLE_EQ(s.value(2.0), -9.0);
  EXPECT_DOUBLE_EQ(s.scaled(0.0).value(2.0), 0.0);
  EXPECT_TRUE(s.scaled(0.0).isConstant());
  EXPECT_DOUBLE_EQ(lin.scaled(3.0).slope(), -6.0);
  EXPECT_DOUBLE_EQ(lin.scaled(3.0).intercept(), 1.5);
  EXPECT_THROW((void)p.slope(), InvalidArgument);
}

TEST(ScalarFunction, RejectsBadKnotsAndCoefficients) {
  EXPECT_THROW(ScalarFunction::simmSpline({0.0}, {1.0}), InvalidArgument);
  EXPECT_THROW(ScalarFunction::simmSpline({0.0, 1.0}, {1.0}), InvalidArgument);
  EXPECT_THROW(ScalarFunction::simmSpline({0.0, 0.0, 1.0}, {1.0, 2.0, 3.0}), InvalidArgument);
  EXPECT_THROW(ScalarFunction::naturalCubicSpline({0.0, NAN}, {1.0, 2.0}), InvalidArgument);
  EXPECT_THROW(ScalarFunction::polynomial({}), InvalidArgument);
  EXPECT_THROW(ScalarFunction::linear(INFINITY, 0.0), InvalidArgument);
  EXPECT_THROW((void)ScalarFunction::constant(1.0).scaled(NAN), InvalidArgument);
}

// The knee translation spline of OpenSim's gait2354 (x in rad, y in m).
const std::vector<double> kKneeX = {-2.0944,   -1.74533, -1.39626, -1.0472,  -0.698132, -0.349066,
                                    -0.174533, 0.197344, 0.337395, 0.490178, 1.52146,   2.0944};
const std::vector<double> kKneeY = {-0.0032, 0.00179,   0.00411,   0.0041,    0.00212,   -0.001,
                                    -0.0031, -0.005227, -0.005435, -0.005574, -0.005435, -0.00525};

TEST(ScalarFunction, SplinesInterpolateKnotsWithSmoothDerivatives) {
  for (const ScalarFunction& f :
       {ScalarFunction::simmSpline(kKneeX, kKneeY), ScalarFunction::naturalCubicSpline(kKneeX, kKneeY)}) {
    for (std::size_t i = 0; i < kKneeX.size(); ++i) EXPECT_NEAR(f.value(kKneeX[i]), kKneeY[i], 1e-15) << f.describe();
    // C² at interior knots: value, slope and curvature agree from both sides.
    for (std::size_t i = 1; i + 1 < kKneeX.size(); ++i) {
      const double e = 1e-9, x = kKneeX[i];
      double fl, dl, ddl, fr, dr, ddr;
      f.evaluate(x - e, fl, dl, ddl);
      f.evaluate(x + e, fr, dr, ddr);
      EXPECT_NEAR(fl, fr, 1e-10);
      EXPECT_NEAR(dl, dr, 1e-7);
      EXPECT_NEAR(ddl, ddr, 1e-5);
    }
    for (double x = -2.05; x < 2.05; x += 0.0173) expectDerivatives(f, x, 1e-6);
    // Linear beyond the end knots, with the end slopes.
    double f0, d0, dd0;
    f.evaluate(kKneeX.front(), f0, d0, dd0);
    EXPECT_NEAR(f.value(kKneeX.front() - 0.5), f0 - 0.5 * d0, 1e-15);
    double fn, dn, ddn;
    f.evaluate(kKneeX.back(), fn, dn, ddn);
    EXPECT_NEAR(f.value(kKneeX.back() + 0.25), fn + 0.25 * dn, 1e-15);
  }
}

TEST(ScalarFunction, SimmSplineReproducesCubicsAndNaturalSplineHasZeroEndCurvature) {
  // The FMM end conditions match the third derivative of the cubic through the four end knots,
  // so a cubic is reproduced exactly, also between unevenly spaced knots.
  auto cubic = [](double x) { return 0.3 * x * x * x - x * x + 2.0 * x - 1.0; };
  const std::vector<double> x = {-1.0, -0.3, 0.2, 0.9, 1.4, 2.6};
  std::vector<double> y;
  for (double v : x) y.push_back(cubic(v));
  const ScalarFunction fmm = ScalarFunction::simmSpline(x, y);
  for (double t = -1.0; t <= 2.6; t += 0.01) EXPECT_NEAR(fmm.value(t), cubic(t), 1e-12) << t;
  // Three knots: equal curvature at both ends, so a parabola is reproduced.
  const ScalarFunction three = ScalarFunction::simmSpline({0.0, 1.0, 3.0}, {0.0, 1.0, 9.0});
  for (double t = 0.0; t <= 3.0; t += 0.1) EXPECT_NEAR(three.value(t), t * t, 1e-12) << t;
  // Two knots: the line.
  EXPECT_DOUBLE_EQ(ScalarFunction::simmSpline({0.0, 2.0}, {1.0, 5.0}).value(0.5), 2.0);
  const ScalarFunction nat = ScalarFunction::naturalCubicSpline(x, y);
  double f, d1, d2;
  nat.evaluate(x.front(), f, d1, d2);
  EXPECT_NEAR(d2, 0.0, 1e-12);
  nat.evaluate(x.back(), f, d1, d2);
  EXPECT_NEAR(d2, 0.0, 1e-12);
}

// A two-link model whose second joint is a knee-like custom joint: a rotation about z by s, a
// translation along x and y by splines of s, and a small coupled rotation about x.
Model kneeModel(bool with_extra_rotation) {
  ModelBuilder b("knee", "ground", BaseType::Fixed);
  JointSpec hip;
  hip.name = "hip";
  hip.parent = "ground";
  hip.child = "thigh";
  hip.axis = Vector3d(0.2, 0.1, 1.0);
  hip.placement.p = Vector3d(0.0, 1.0, 0.0);
  b.addJoint(hip);
  JointSpec knee;
  knee.name = "knee";
  knee.type = JointType::Custom;
  knee.parent = "thigh";
  knee.child = "shank";
  knee.placement.p = Vector3d(0.01, -0.05, 0.02);
  knee.placement.R = so3::exp(Vector3d(0.1, -0.2, 0.05));
  knee.motion.translations.push_back({Vector3d::UnitX(), ScalarFunction::simmSpline(kKneeX, kKneeY).scaled(1.14724)});
  std::vector<double> ty = {-0.4226, -0.4082, -0.399, -0.3976, -0.3966, -0.395264, -0.396};
  knee.motion.translations.push_back(
      {Vector3d::UnitY(),
       ScalarFunction::simmSpline({-2.0944, -1.22173, -0.523599, -0.349066, -0.174533, 0.159149, 2.0944}, ty)});
  knee.motion.rotations.push_back({Vector3d::UnitZ(), ScalarFunction::linear(1.0, 0.0)});
  if (with_extra_rotation) {
    knee.motion.rotations.push_back({Vector3d::UnitY(), ScalarFunction::constant(0.0)});
    knee.motion.rotations.push_back({Vector3d(1.0, 0.0, 0.3), ScalarFunction::polynomial({0.1, -0.2, 0.05})});
  }
  knee.lower = -2.0;
  knee.upper = 0.17;
  b.addJoint(knee);
  b.addFrame("ankle_marker", "shank", Transform{Matrix3d::Identity(), Vector3d(0.02, -0.4, 0.05)});
  return b.build();
}

TEST(CustomJoint, BuilderRecordsTheMotion) {
  const Model m = kneeModel(true);
  EXPECT_TRUE(m.hasCustomJoints());
  const JointId knee = m.jointId("knee");
  EXPECT_EQ(m.jointType(knee), JointType::Custom);
  EXPECT_EQ(m.jointMotion(knee).translations.size(), 2u);
  EXPECT_EQ(m.jointMotion(knee).rotations.size(), 3u);
  EXPECT_NEAR(m.jointMotion(knee).rotations[2].axis.norm(), 1.0, 1e-15);  // normalised
  EXPECT_TRUE(m.jointMotion(m.jointId("hip")).rotations.empty());
  EXPECT_STREQ(toString(JointType::Custom), "custom");
  // Only a custom joint may carry a motion; at most three of each.
  ModelBuilder b("bad", "ground", BaseType::Fixed);
  JointSpec s;
  s.name = "j";
  s.parent = "ground";
  s.child = "c";
  s.motion.rotations.push_back({Vector3d::UnitZ(), ScalarFunction::linear(1.0, 0.0)});
  EXPECT_THROW(b.addJoint(s), InvalidArgument);
  s.type = JointType::Custom;
  s.motion.rotations.resize(4);
  EXPECT_THROW(b.addJoint(s), InvalidArgument);
}

TEST(CustomJoint, ForwardKinematicsIsTheComposedMotion) {
  const Model m = kneeModel(true);
  Data d(m);
  Configuration q(m);
  q.joints << 0.3, -1.1;
  forwardKinematics(m, d, q);
  // By hand: thigh = Trans(0,1,0)·Rot(hip axis, 0.3); shank = thigh ∘ placement ∘ Trans(t) ∘ R1 R2 R3.
  const Vector3d hip_axis = Vector3d(0.2, 0.1, 1.0).normalized();
  const Transform thigh{so3::axisAngle(hip_axis, 0.3), Vector3d(0.0, 1.0, 0.0)};
  const JointMotion& mo = m.jointMotion(m.jointId("knee"));
  const double s = -1.1;
  Transform M;
  M.p = mo.translations[0].function.value(s) * Vector3d::UnitX() +
        mo.translations[1].function.value(s) * Vector3d::UnitY();
  M.R = so3::axisAngle(Vector3d::UnitZ(), s) * so3::axisAngle(mo.rotations[2].axis, mo.rotations[2].function.value(s));
  const Transform shank = compose(compose(thigh, m.jointPlacement(m.jointId("knee"))), M);
  EXPECT_LT((d.link[2].R - shank.R).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((d.link[2].p - shank.p).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(CustomJoint, JacobianMatchesFiniteDifferences) {
  for (bool extra : {false, true}) {
    const Model m = kneeModel(extra);
    Data d(m);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-2.3, 2.3);  // beyond the spline ends too
    const std::vector<FrameId> frames = testing::allFrames(m);
    for (int k = 0; k < 200; ++k) {
      Configuration q(m);
      q.joints << u(rng), u(rng);
      forwardKinematics(m, d, q);
      for (FrameId f : frames) {
        Matrix6Xd J(6, m.nv());
        frameJacobian(m, d, f, J);
        const Matrix6Xd fd = testing::finiteDifferenceFrameJacobian(m, q, f);
        EXPECT_LT((J - fd).cwiseAbs().maxCoeff(), 1e-7) << "frame " << m.frameName(f) << " q " << q.joints.transpose();
      }
    }
  }
}

TEST(CustomJoint, PureRotationEqualsARevoluteJoint) {
  // A custom joint rotating by s about an axis is the revolute joint about it.
  auto build = [](bool custom) {
    ModelBuilder b("r", "base", BaseType::Floating);
    JointSpec s;
    s.name = "j";
    s.parent = "base";
    s.child = "c";
    s.placement.p = Vector3d(0.1, 0.2, 0.3);
    s.axis = Vector3d(1.0, -2.0, 0.5);
    if (custom) {
      s.type = JointType::Custom;
      s.motion.rotations.push_back({s.axis, ScalarFunction::linear(1.0, 0.0)});
    }
    b.addJoint(s);
    b.addFrame("tip", "c", Transform{Matrix3d::Identity(), Vector3d(0.0, 0.5, 0.0)});
    return b.build();
  };
  const Model a = build(false), c = build(true);
  Data da(a), dc(c);
  Configuration q(a);
  q.base_position = Vector3d(0.5, -0.2, 1.0);
  q.base_rotation = so3::exp(Vector3d(0.3, 0.2, -0.1));
  q.joints << 0.7;
  forwardKinematics(a, da, q);
  forwardKinematics(c, dc, q);
  Matrix6Xd Ja(6, a.nv()), Jc(6, c.nv());
  frameJacobian(a, da, a.frameId("tip"), Ja);
  frameJacobian(c, dc, c.frameId("tip"), Jc);
  EXPECT_LT((Ja - Jc).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((da.link[1].p - dc.link[1].p).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((da.link[1].R - dc.link[1].R).cwiseAbs().maxCoeff(), 1e-14);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
