// Frame Jacobians (mixed representation) against central finite differences on the configuration
// manifold, on every model: generated human66/human48, the human-gazebo subjects and iCub.
// Also: columns of joints that do not support a frame are exactly 0.0 (frameJacobian), and
// frameJacobianSupport leaves those columns untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/finite_diff.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// ≥ 1000 random configurations per model in optimised builds; far fewer in Debug/ASan builds,
// where the same code paths are exercised but every FK pass is ~50× slower.
#ifdef NDEBUG
constexpr int kManyConfigs = 1000;
constexpr int kFewConfigs = 200;
constexpr int kPerSubjectConfigs = 200;  // × 24 human-gazebo files
#else
constexpr int kManyConfigs = 10;
constexpr int kFewConfigs = 3;
constexpr int kPerSubjectConfigs = 1;
#endif

constexpr double kRelTol = 1e-6;  // ≈ sqrt(eps) scale; central differences with ε = 1e-6 reach ~1e-9

struct FdStats {
  int configs = 0;
  long frames_checked = 0;
  double worst_rel_error = 0.0;  // over all columns
  // The same, per block of columns, so one wrong block does not hide the others.
  double worst_base_linear = 0.0, worst_base_angular = 0.0, worst_joint = 0.0;
  long zero_columns_checked = 0;
};

// Runs every check on `configs` random configurations of `model` and returns statistics.
// Failures are reported (at most a few per test) with model name, config index and frame.
FdStats checkJacobians(const Model& model, int configs, std::uint64_t seed, const std::string& label,
                       bool randomize_fixed_base = false) {
  FdStats stats;
  std::mt19937_64 rng(seed);
  Data data(model);
  const int nv = model.nv();
  const int nb = model.nvBase();
  const std::vector<FrameId> frames = testing::allFrames(model);
  std::vector<Matrix6Xd> fd;
  Matrix6Xd J(6, nv), Js(6, nv);
  int failures = 0;
  constexpr double kSentinel = 12345.678;
  std::vector<char> in_support(static_cast<std::size_t>(model.numJoints()));

  for (int c = 0; c < configs; ++c) {
    Configuration q = randomConfiguration(model, rng);
    if (randomize_fixed_base) {  // a fixed base may sit anywhere: its constant placement
      std::normal_distribution<double> n(0.0, 1.0);
      q.base_rotation = so3::fromQuaternionWxyz(randomVector<4>(n, rng));
      q.base_position = randomVector3(n, rng);
    }
    framesForwardKinematics(model, data, q);
    testing::finiteDifferenceFrameJacobians(model, q, frames, fd);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const FrameId f = frames[i];
      frameJacobian(model, data, f, J);
      const double scale = std::max(1.0, J.cwiseAbs().maxCoeff());
      const double err = (J - fd[i]).cwiseAbs().maxCoeff() / scale;
      stats.worst_rel_error = std::max(stats.worst_rel_error, err);
      const Matrix6Xd diff = (J - fd[i]).cwiseAbs() / scale;
      if (nb == 6) {
        stats.worst_base_linear = std::max(stats.worst_base_linear, diff.leftCols(3).maxCoeff());
        stats.worst_base_angular = std::max(stats.worst_base_angular, diff.middleCols(3, 3).maxCoeff());
      }
      stats.worst_joint = std::max(stats.worst_joint, diff.rightCols(model.numJoints()).maxCoeff());
      if (!(err <= kRelTol) && failures++ < 5) {
        Eigen::Index row = 0, col = 0;
        (J - fd[i]).cwiseAbs().maxCoeff(&row, &col);
        ADD_FAILURE() << label << " config " << c << " frame '" << model.frameName(f) << "': |J − J_fd|/scale = " << err
                      << ", worst in column " << col << " ("
                      << (col < nb ? (col < 3 ? "base linear" : "base angular")
                                   : "joint '" + model.jointName(JointId(static_cast<int>(col) - nb)) + "'")
                      << ")\n  J   col = " << J.col(col).transpose() << "\n  J_fd col = " << fd[i].col(col).transpose();
      }
      // Exact zeros outside the support of the frame's link.
      std::fill(in_support.begin(), in_support.end(), 0);
      for (std::int32_t j : model.support(model.frameLink(f))) in_support[static_cast<std::size_t>(j)] = 1;
      for (int j = 0; j < model.numJoints(); ++j) {
        if (in_support[static_cast<std::size_t>(j)]) continue;
        ++stats.zero_columns_checked;
        for (int r = 0; r < 6; ++r) {
          if (J(r, nb + j) != 0.0 && failures++ < 5)
            ADD_FAILURE() << label << " frame '" << model.frameName(f) << "': column of joint '"
                          << model.jointName(JointId(j)) << "' (not in the support) has J(" << r
                          << ") = " << J(r, nb + j) << ", expected exactly 0";
        }
      }
      // frameJacobianSupport: same base and support columns, everything else untouched.
      Js.setConstant(kSentinel);
      frameJacobianSupport(model, data, f, Js);
      for (int k = 0; k < nv; ++k) {
        const bool written = k < nb || in_support[static_cast<std::size_t>(k - nb)];
        for (int r = 0; r < 6; ++r) {
          const double expected = written ? J(r, k) : kSentinel;
          if (Js(r, k) != expected && failures++ < 5)
            ADD_FAILURE() << label << " frame '" << model.frameName(f) << "': frameJacobianSupport column " << k
                          << " row " << r << " = " << Js(r, k) << ", expected " << expected
                          << (written ? " (frameJacobian's value)" : " (left untouched)");
        }
      }
      // frameOrigin agrees with the frame placement.
      if ((frameOrigin(model, data, f) - data.frame[static_cast<std::size_t>(f.value)].p).norm() > 1e-12 &&
          failures++ < 5)
        ADD_FAILURE() << label << " frame '" << model.frameName(f) << "': frameOrigin disagrees with data.frame";
      ++stats.frames_checked;
    }
    ++stats.configs;
  }
  return stats;
}

void expectGood(const FdStats& s, int configs, const Model& model) {
  EXPECT_EQ(s.configs, configs);
  EXPECT_EQ(s.frames_checked, static_cast<long>(configs) * model.numFrames());
  EXPECT_LE(s.worst_rel_error, kRelTol);
  EXPECT_LE(s.worst_base_linear, kRelTol) << "base linear columns (ṗ_B)";
  EXPECT_LE(s.worst_base_angular, kRelTol) << "base angular columns (ω_B, world frame)";
  EXPECT_LE(s.worst_joint, kRelTol) << "joint columns";
  // The check is not vacuous: errors are computed and are not suspiciously exactly zero.
  EXPECT_GT(s.worst_rel_error, 0.0);
  ::testing::Test::RecordProperty("worst_rel_error", std::to_string(s.worst_rel_error));
}

TEST(JacobianFd, Human66) {
  const Model m = makeHuman66();
  ASSERT_EQ(m.numJoints(), 66);
  const FdStats s = checkJacobians(m, kManyConfigs, 101, "human66");
  expectGood(s, kManyConfigs, m);
  EXPECT_GT(s.zero_columns_checked, 0);
}

TEST(JacobianFd, Human48) {
  const Model m = makeHuman48();
  ASSERT_EQ(m.numJoints(), 48);
  const FdStats s = checkJacobians(m, kManyConfigs, 102, "human48");
  expectGood(s, kManyConfigs, m);
  EXPECT_GT(s.zero_columns_checked, 0);
}

TEST(JacobianFd, Human48FixedBaseAtAnArbitraryPlacement) {
  HumanModelOptions o;
  o.base = BaseType::Fixed;
  const Model m = makeHuman48(o);
  ASSERT_EQ(m.nv(), 48);
  const FdStats s = checkJacobians(m, kFewConfigs, 103, "human48 fixed base", /*randomize_fixed_base=*/true);
  expectGood(s, kFewConfigs, m);
}

TEST(JacobianFd, HumanSubject01Both66And48Dof) {
  for (const char* file : {"models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf",
                           "models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf"}) {
    KINETRACK_REQUIRE_SHARED(path, file);
    const Model m = io::loadUrdf(path);
    const FdStats s = checkJacobians(m, kManyConfigs, 104, file);
    expectGood(s, kManyConfigs, m);
  }
}

TEST(JacobianFd, AllHumanSubjects) {
  int files = 0;
  for (int subject = 1; subject <= 8; ++subject) {
    for (const char* dof : {"66dof", "48dof", "48dof_noJointLimit"}) {
      const std::string rel = "models/human-gazebo/humanSubject0" + std::to_string(subject) + "/humanSubject0" +
                              std::to_string(subject) + "_" + dof + ".urdf";
      KINETRACK_REQUIRE_SHARED(path, rel);
      const Model m = io::loadUrdf(path);
      const FdStats s = checkJacobians(m, kPerSubjectConfigs, 200 + static_cast<std::uint64_t>(subject), rel);
      expectGood(s, kPerSubjectConfigs, m);
      ++files;
    }
  }
  EXPECT_EQ(files, 24);
}

TEST(JacobianFd, ICubFloatingBaseAllFrames) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = io::loadUrdf(path);
  ASSERT_EQ(m.nv(), 38);
  ASSERT_EQ(m.numFrames(), 213);
  const FdStats s = checkJacobians(m, kManyConfigs, 105, "iCub");
  expectGood(s, kManyConfigs, m);
  EXPECT_GT(s.zero_columns_checked, 0);
}

// A synthetic model covering every forward-kinematics branch: prismatic joints, a general axis,
// negative principal axes, rotated joint placements, user frames with rotated placements.
Model branchyModel(BaseType base) {
  ModelBuilder b("branchy", "base", base);
  auto joint = [&](const std::string& name, JointType type, const std::string& parent, const std::string& child,
                   const Vector3d& p, const Vector3d& rpy, const Vector3d& axis) {
    JointSpec s;
    s.name = name;
    s.type = type;
    s.parent = parent;
    s.child = child;
    s.placement.p = p;
    s.placement.R = so3::fromRpy(rpy);
    s.axis = axis;
    s.lower = -2.0;
    s.upper = 2.0;
    b.addJoint(s);
  };
  joint("j0", JointType::Revolute, "base", "l0", {0.1, 0.2, 0.3}, {0.3, -0.2, 0.5}, {0, 0, 1});
  joint("j1", JointType::Prismatic, "l0", "l1", {0.0, 0.0, 0.4}, {0, 0, 0}, {1, 2, 3});
  joint("j2", JointType::Continuous, "l1", "l2", {0.2, 0.0, 0.0}, {1.0, 0.4, -0.7}, {0.3, -0.5, 0.8});
  joint("j3", JointType::Revolute, "l2", "l3", {0.0, -0.3, 0.1}, {0, 0, 0}, {-1, 0, 0});
  joint("j4", JointType::Revolute, "l3", "l4", {0.0, 0.0, 0.0}, {0, 0, 0}, {0, -1, 0});
  joint("j5", JointType::Prismatic, "l4", "l5", {0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0, 0, -1});
  joint("j6", JointType::Revolute, "l0", "side", {-0.3, 0.0, 0.0}, {0, 0, 0}, {0, 1, 0});
  Transform X;
  X.p = {0.05, -0.02, 0.3};
  X.R = so3::fromRpy({0.4, 0.1, -1.2});
  b.addFixedLink("tool", "l5", X);
  b.addFrame("tool_tip", "tool", X);
  b.addFrame("side_marker", "side", X);
  return b.build();
}

TEST(JacobianFd, PrismaticGeneralAndNegativeAxesFloatingBase) {
  const Model m = branchyModel(BaseType::Floating);
  const FdStats s = checkJacobians(m, kManyConfigs, 106, "branchy floating");
  expectGood(s, kManyConfigs, m);
  EXPECT_GT(s.zero_columns_checked, 0);
}

TEST(JacobianFd, PrismaticGeneralAndNegativeAxesFixedBase) {
  const Model m = branchyModel(BaseType::Fixed);
  const FdStats s = checkJacobians(m, kFewConfigs, 107, "branchy fixed", /*randomize_fixed_base=*/true);
  expectGood(s, kFewConfigs, m);
}

// The finite-difference helper itself must be able to see an error: a Jacobian with one wrong
// column is rejected.
TEST(JacobianFd, HelperDetectsAWrongColumn) {
  HumanModelOptions o;
  o.base = BaseType::Fixed;
  const Model m = makeHuman48(o);
  std::mt19937_64 rng(5);
  const Configuration q = randomConfiguration(m, rng);
  Data data(m);
  framesForwardKinematics(m, data, q);
  const FrameId f = m.frameId("RightHandCOM");
  Matrix6Xd J(6, m.nv());
  frameJacobian(m, data, f, J);
  const Matrix6Xd fd = testing::finiteDifferenceFrameJacobian(m, q, f);
  EXPECT_LT((J - fd).cwiseAbs().maxCoeff(), 1e-6);
  const int col = m.nvBase() + m.jointId("jRightElbow_roty").value;
  ASSERT_GT(J.col(col).norm(), 0.01);
  J.col(col) *= 1.0001;
  EXPECT_GT((J - fd).cwiseAbs().maxCoeff(), 1e-6);
}

// The base block in closed form: ṗ = ṗ_B + ω_B × (p − p_B), so the linear rows of the base
// angular columns are −sk(p − p_B) (SPEC §0, mixed representation), and the angular rows are I.
TEST(JacobianFd, BaseColumnsInClosedForm) {
  const Model m = makeHuman48();
  std::mt19937_64 rng(8);
  const Configuration q = randomConfiguration(m, rng);
  Data data(m);
  framesForwardKinematics(m, data, q);
  const FrameId f = m.frameId("LeftHandCOM");
  Matrix6Xd J(6, m.nv());
  frameJacobian(m, data, f, J);
  const Vector3d d = data.frame[f.value].p - q.base_position;
  ASSERT_GT(d.norm(), 0.05);
  EXPECT_LT((J.block<3, 3>(0, 0) - Matrix3d::Identity()).norm(), 1e-15);
  EXPECT_LT((J.block<3, 3>(3, 0)).norm(), 1e-15);
  EXPECT_LT((J.block<3, 3>(3, 3) - Matrix3d::Identity()).norm(), 1e-15);
  EXPECT_LT((J.block<3, 3>(0, 3) - (-so3::skew(d))).norm(), 1e-12)
      << "linear rows of the base angular columns:\n"
      << J.block<3, 3>(0, 3) << "\nexpected −sk(p − p_B):\n"
      << -so3::skew(d);
}

TEST(JacobianFd, WrongSizeAndInvalidFrameThrow) {
  const Model m = makeHuman48();
  Data data(m);
  framesForwardKinematics(m, data, Configuration(m));
  Matrix6Xd small(6, m.nv() - 1), J(6, m.nv());
  EXPECT_THROW(frameJacobian(m, data, FrameId(0), small), std::invalid_argument);
  EXPECT_THROW(frameJacobianSupport(m, data, FrameId(0), small), std::invalid_argument);
  EXPECT_THROW(frameJacobian(m, data, FrameId(), J), std::invalid_argument);
  EXPECT_THROW(frameJacobian(m, data, FrameId(m.numFrames()), J), std::invalid_argument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
