// Forward kinematics and joint Jacobian columns against KDL (orocos-kdl), an independent
// implementation whose tree is built straight from urdfdom's parse of the same URDF text.
// Every URDF under ../shared/models, plus the generated human66/human48 exported with toUrdf.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/kdl_oracle.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

#ifdef NDEBUG
constexpr int kConfigs = 100;
#else
constexpr int kConfigs = 3;
#endif
constexpr double kTol = 1e-10;

struct KdlStats {
  long poses = 0;
  long jacobians = 0;
  double worst_pose = 0.0;
  double worst_jacobian = 0.0;
};

// Compares every Link and Fixed frame (each is a URDF link, hence a KDL segment): world pose and
// the model's joint columns of the Jacobian. The configuration includes a random base pose.
KdlStats crossCheck(const Model& model, testing::KdlOracle& kdl, int configs, std::uint64_t seed,
                    const std::string& label) {
  KdlStats st;
  std::mt19937_64 rng(seed);
  Data data(model);
  Matrix6Xd J(6, model.nv());
  int failures = 0;
  for (int c = 0; c < configs; ++c) {
    const Configuration q = randomConfiguration(model, rng);
    framesForwardKinematics(model, data, q);
    for (int fi = 0; fi < model.numFrames(); ++fi) {
      const FrameId f(fi);
      if (model.frameKind(f) == FrameKind::User) continue;
      const std::string& name = model.frameName(f);
      const Transform ref = kdl.pose(model, q, name);
      const Transform& T = data.frame[static_cast<std::size_t>(fi)];
      const double e_pose = std::max((T.R - ref.R).cwiseAbs().maxCoeff(), (T.p - ref.p).cwiseAbs().maxCoeff());
      st.worst_pose = std::max(st.worst_pose, e_pose);
      if (!(e_pose <= kTol) && failures++ < 5)
        ADD_FAILURE() << label << " config " << c << " frame '" << name << "': pose differs from KDL by " << e_pose
                      << "\nR =\n"
                      << T.R << "\nR_kdl =\n"
                      << ref.R << "\np = " << T.p.transpose() << "\np_kdl = " << ref.p.transpose();
      ++st.poses;

      frameJacobian(model, data, f, J);
      const Eigen::Matrix<double, 6, Eigen::Dynamic> Jk = kdl.jointJacobian(model, q, name);
      const double e_jac = (J.rightCols(model.numJoints()) - Jk).cwiseAbs().maxCoeff();
      st.worst_jacobian = std::max(st.worst_jacobian, e_jac);
      if (!(e_jac <= kTol) && failures++ < 5)
        ADD_FAILURE() << label << " config " << c << " frame '" << name << "': joint Jacobian differs from KDL by "
                      << e_jac << "\nJ =\n"
                      << J.rightCols(model.numJoints()) << "\nJ_kdl =\n"
                      << Jk;
      ++st.jacobians;
    }
  }
  return st;
}

std::vector<std::string> sharedUrdfs() {
  std::vector<std::string> out;
  const std::string dir = testing::sharedDir();
  if (dir.empty()) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(dir) / "models"))
    if (e.is_regular_file() && e.path().extension() == ".urdf") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(KdlCrossCheck, EverySharedUrdf) {
  KINETRACK_REQUIRE_SHARED(models_dir, "models");
  const std::vector<std::string> files = sharedUrdfs();
  // 8 subjects × (66dof, 48dof, 48dof_noJointLimit) + subject 01's 66dof_colored + iCub.
  ASSERT_GE(files.size(), 26u);
  std::uint64_t seed = 1;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const Model model = io::loadUrdf(path);
    testing::KdlOracle kdl = testing::KdlOracle::fromUrdfFile(path);
    ASSERT_EQ(static_cast<int>(kdl.numJoints()), model.numJoints());
    const KdlStats st = crossCheck(model, kdl, kConfigs, seed++, path);
    int non_user = 0;
    for (int f = 0; f < model.numFrames(); ++f) non_user += model.frameKind(FrameId(f)) != FrameKind::User;
    EXPECT_EQ(st.poses, static_cast<long>(kConfigs) * non_user);
    EXPECT_LE(st.worst_pose, kTol);
    EXPECT_LE(st.worst_jacobian, kTol);
  }
}

TEST(KdlCrossCheck, ICubHasEveryFrameChecked) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model model = io::loadUrdf(path);
  testing::KdlOracle kdl = testing::KdlOracle::fromUrdfFile(path);
  const KdlStats st = crossCheck(model, kdl, kConfigs, 77, "iCub");
  EXPECT_EQ(st.poses, static_cast<long>(kConfigs) * 213);
  EXPECT_LE(st.worst_pose, kTol);
  EXPECT_LE(st.worst_jacobian, kTol);
  // Not vacuous: the poses vary and the Jacobians are far from zero.
  EXPECT_GT(st.worst_pose, 0.0);
}

TEST(KdlCrossCheck, GeneratedHumanModelsExportedToUrdf) {
  for (const Model& model :
       {makeHuman66(), makeHuman48(), makeBuiltinModel("human48", 1.52), makeBuiltinModel("human66", 2.01)}) {
    SCOPED_TRACE(model.name());
    testing::KdlOracle kdl = testing::KdlOracle::fromUrdfText(io::toUrdf(model));
    ASSERT_EQ(static_cast<int>(kdl.numJoints()), model.numJoints());
    const KdlStats st = crossCheck(model, kdl, 2 * kConfigs, 500 + model.numJoints(), model.name());
    EXPECT_EQ(st.poses, 2L * kConfigs * model.numFrames());
    EXPECT_LE(st.worst_pose, kTol);
    EXPECT_LE(st.worst_jacobian, kTol);
  }
}

// The oracle comparison can fail: a perturbed joint value shows up as a pose difference.
TEST(KdlCrossCheck, OracleSeesADifferentConfiguration) {
  const Model model = makeHuman48();
  testing::KdlOracle kdl = testing::KdlOracle::fromUrdfText(io::toUrdf(model));
  std::mt19937_64 rng(3);
  Configuration q = randomConfiguration(model, rng);
  Data data(model);
  framesForwardKinematics(model, data, q);
  const FrameId hand = model.frameId("RightHandCOM");
  EXPECT_LT((kdl.pose(model, q, "RightHandCOM").p - data.frame[hand.value].p).norm(), kTol);
  q.joints[model.jointId("jRightElbow_rotz").value] += 1e-6;
  EXPECT_GT((kdl.pose(model, q, "RightHandCOM").p - data.frame[hand.value].p).norm(), 1e-8);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
