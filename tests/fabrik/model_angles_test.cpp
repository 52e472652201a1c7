// FABRIK joint positions → Model joint angles, checked by forward kinematics of a mirroring Model.
#include "kinetrack/fabrik/model_angles.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <random>
#include <string>

#include "fabrik/fabrik_fixtures.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::fabrik {
namespace KINETRACK_UNITY_ID {

std::string linkOf(int j) { return "bone" + std::to_string(j); }

// A floating-base Model whose link "bone<j>" has origin p_parent(j) and orientation F_j.
Model mirrorModel(const Skeleton& sk, std::vector<JointMapping>& mapping) {
  ModelBuilder b("fabrik_mirror", linkOf(0));
  mapping.assign(static_cast<std::size_t>(sk.size()), JointMapping{});
  int next = 0;
  for (int j = 1; j < sk.size(); ++j) {
    const JointConstraint& c = sk.constraint(j);
    const int par = sk.parent(j);
    Transform placement;
    placement.R = c.R_offset;
    placement.p = Vector3d(0.0, 0.0, par == 0 ? 0.0 : sk.length(par));
    JointMapping& m = mapping[static_cast<std::size_t>(j)];
    if (c.type == ConstraintType::Hinge) {
      JointSpec s;
      s.name = "hinge" + std::to_string(j);
      s.type = JointType::Continuous;
      s.parent = linkOf(par);
      s.child = linkOf(j);
      s.placement = placement;
      s.axis = c.hinge_axis;
      b.addJoint(s);
      m.joints[0] = JointId(next++);
      m.count = 1;
    } else {
      const char* names[3] = {"_x", "_y", "_z"};
      std::string parent = linkOf(par);
      for (int k = 0; k < 3; ++k) {
        JointSpec s;
        s.name = "ball" + std::to_string(j) + names[k];
        s.type = JointType::Continuous;
        s.parent = parent;
        s.child = k == 2 ? linkOf(j) : linkOf(j) + names[k];
        s.placement = k == 0 ? placement : Transform{};
        s.axis = Vector3d::Unit(k);
        b.addJoint(s);
        parent = s.child;
        m.joints[static_cast<std::size_t>(k)] = JointId(next++);
      }
      m.count = 3;
    }
  }
  return b.build();
}

TEST(FabrikModelAngles, SolvedPosesRoundTripThroughForwardKinematics) {
  // A hand whose fingers mix ball joints (knuckles) and hinges, with offsets and a base frame.
  test::Hand hand = test::makeHand();
  Skeleton sk = hand.skeleton;
  for (int j = 2; j < sk.size(); ++j) {
    JointConstraint c;
    const bool knuckle = sk.parent(j) == 1;
    c.type = knuckle ? ConstraintType::Ball : ConstraintType::Hinge;
    c.cone_angle = 1.0;
    c.min_twist = -0.3;
    c.max_twist = 0.3;
    c.min_angle = 0.0;
    c.max_angle = 1.6;
    c.hinge_axis = Vector3d(1.0, 0.2, 0.0);
    if (knuckle) c.R_offset = Eigen::AngleAxisd(0.2 * (j - 5), Vector3d::UnitY()).toRotationMatrix();
    sk.setConstraint(j, c);
  }
  sk.setBaseFrame(Eigen::AngleAxisd(0.4, Vector3d(0.3, 1.0, 0.2).normalized()).toRotationMatrix());
  std::vector<JointMapping> mapping;
  const Model model = mirrorModel(sk, mapping);
  Data data(model);
  Configuration q(model);
  Solver solver(sk);
  std::mt19937 rng(9);
  std::normal_distribution<double> n(0.0, 0.03);
  Matrix3Xd p = hand.rest;
  for (int trial = 0; trial < 200; ++trial) {
    for (int tip : hand.tips) solver.setTarget(tip, p.col(tip) + randomVector3(n, rng));
    solver.solve(p, {.max_iterations = 20});
    toJointAngles(solver, p, model, mapping, q);
    forwardKinematics(model, data, q);
    for (int j = 1; j < sk.size(); ++j) {
      const Transform& X = data.link[static_cast<std::size_t>(model.linkId(linkOf(j)).value)];
      ASSERT_LT((X.p - p.col(sk.parent(j))).norm(), 1e-9) << trial << " " << j;
      ASSERT_LT((X.p + sk.length(j) * X.R.col(2) - p.col(j)).norm(), 1e-9) << trial << " " << j;
      ASSERT_LT((X.R - solver.frame(j)).norm(), 1e-9);
    }
  }
}

TEST(FabrikModelAngles, XyzAnglesInvertTheProduct) {
  std::mt19937 rng(10);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (int i = 0; i < 1000; ++i) {
    const Vector3d a = randomVector3(u, rng);
    const Matrix3d R = (Eigen::AngleAxisd(a.x(), Vector3d::UnitX()) * Eigen::AngleAxisd(a.y(), Vector3d::UnitY()) *
                        Eigen::AngleAxisd(a.z(), Vector3d::UnitZ()))
                           .toRotationMatrix();
    EXPECT_LT((xyzAngles(R) - a).norm(), 1e-12);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::fabrik
