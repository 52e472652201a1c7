// Posture pairs of the human figure and gait2354 from one real clip (track/posture_pairs.hpp), the
// pairing behind the Eq. 14–15 mapping: the posture joints of both models, the two knees agreeing
// (gait2354's hinge against human48's knee flexion), the Y-up world of an OpenSim model (without
// RetargetOptions::model_up the fit is wrong), and the mapping fitted on one walk predicting
// another subject's walk.
#include "kinetrack/track/posture_pairs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "kinetrack/biomech/posture_mapping.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::track {
namespace KINETRACK_UNITY_ID {

constexpr const char* kGait = "data/opensim/gait2354_walk/subject01_simbody.osim";
constexpr double kDeg = 180.0 / std::numbers::pi;

const std::vector<std::string> kHumanFrames = {"T8",           "RightUpperLeg", "RightLowerLeg",
                                               "RightFoot",    "RightToe",      "LeftUpperLeg",
                                               "LeftLowerLeg", "LeftFoot",      "LeftToe"};
const std::vector<std::string> kGaitFrames = {"torso",   "femur_r", "tibia_r", "calcn_r", "toes_r",
                                              "femur_l", "tibia_l", "calcn_l", "toes_l"};

std::vector<std::string> jointNames(const Model& m, const std::vector<int>& idx) {
  std::vector<std::string> out;
  for (int j : idx) out.push_back(m.jointName(JointId(j)));
  return out;
}

int row(const Model& m, const std::vector<int>& idx, const std::string& name) {
  const int j = m.jointId(name).value;
  return static_cast<int>(std::find(idx.begin(), idx.end(), j) - idx.begin());
}

double correlation(const Eigen::RowVectorXd& a, const Eigen::RowVectorXd& b) {
  const Eigen::RowVectorXd x = a.array() - a.mean(), y = b.array() - b.mean();
  return x.dot(y) / std::sqrt(x.squaredNorm() * y.squaredNorm());
}

TEST(PosturePairs, PostureJointsAreThoseBelowThePelvis) {
  KINETRACK_REQUIRE_SHARED(path, kGait);
  const io::OpenSimModel gait = io::readOpenSimModel(path);
  EXPECT_EQ(
      jointNames(*gait.model, postureJoints(*gait.model, "pelvis", kGaitFrames)),
      (std::vector<std::string>{"hip_flexion_r", "hip_adduction_r", "hip_rotation_r", "knee_angle_r", "ankle_angle_r",
                                "subtalar_angle_r", "mtp_angle_r", "hip_flexion_l", "hip_adduction_l", "hip_rotation_l",
                                "knee_angle_l", "ankle_angle_l", "subtalar_angle_l", "mtp_angle_l", "lumbar_extension",
                                "lumbar_bending", "lumbar_rotation"}));
  const Model h48 = makeHuman48();
  const std::vector<std::string> h = jointNames(h48, postureJoints(h48, "Pelvis", kHumanFrames));
  EXPECT_EQ(h.size(), 27u);
  EXPECT_NE(std::find(h.begin(), h.end(), "jRightKnee_roty"), h.end());
  EXPECT_NE(std::find(h.begin(), h.end(), "jT9T8_rotz"), h.end());
  for (const std::string& n : h) EXPECT_EQ(n.find("Shoulder"), std::string::npos) << n;
  EXPECT_THROW((void)postureJoints(h48, "Pelvis", {"NoSuchFrame"}), InvalidArgument);
}

TEST(PosturePairs, TheKneesOfBothModelsFollowTheSameWalk) {
  KINETRACK_REQUIRE_SHARED(path, kGait);
  KINETRACK_REQUIRE_SHARED(clip, "data/bvh/cmu_iclone/cmu_ic_007_12.bvh");
  const io::OpenSimModel gait = io::readOpenSimModel(path);
  const Model human = makeHuman48();
  const Capture capture = loadCapture(clip);
  PosturePairOptions o;
  o.plan.root_position = false;
  o.second_up = -gait.gravity.normalized();
  o.transient = 0.5;
  const PosturePairs p = pairPostures(human, *gait.model, capture, o);
  EXPECT_EQ(p.gaps, 0);
  EXPECT_GT(p.times.size(), 95u);  // 132 frames at 60 Hz, minus 0.5 s
  EXPECT_LT(p.first_mnte, 0.02);
  EXPECT_LT(p.second_mnte, 0.02);
  ASSERT_TRUE(p.first.allFinite() && p.second.allFinite());
  const Model& g = *gait.model;
  const Eigen::RowVectorXd knee_g = p.second.row(g.jointId("knee_angle_r").value);
  const Eigen::RowVectorXd knee_h = p.first.row(human.jointId("jRightKnee_roty").value);
  // gait2354 flexes its knee negatively, human48 positively; same motion, same range.
  EXPECT_LT(correlation(knee_g, knee_h), -0.95);
  EXPECT_GT(-knee_g.minCoeff() * kDeg, 50.0);
  EXPECT_LT(std::abs(knee_g.minCoeff() + knee_h.maxCoeff()) * kDeg, 15.0);
  const Eigen::RowVectorXd hip = p.second.row(g.jointId("hip_flexion_r").value) * kDeg;
  EXPECT_GT(hip.minCoeff(), -45.0);
  EXPECT_LT(hip.maxCoeff(), 60.0);

  const int add = g.jointId("hip_adduction_r").value;
  EXPECT_LT(p.second.row(add).cwiseAbs().maxCoeff() * kDeg, 20.0);
  // The same pairing treating the OpenSim world as Z up: the clip is turned a quarter turn, the
  // pelvis cannot follow (±90°) and the hips take it up, abducted to their limits.
  o.second_up = Vector3d::UnitZ();
  const PosturePairs wrong = pairPostures(human, *gait.model, capture, o);
  EXPECT_GT(wrong.second.row(add).cwiseAbs().maxCoeff() * kDeg, 45.0);
}

TEST(PosturePairs, AMapFittedOnOneWalkPredictsAnotherSubjectsWalk) {
  KINETRACK_REQUIRE_SHARED(path, kGait);
  KINETRACK_REQUIRE_SHARED(a, "data/bvh/cmu_iclone/cmu_ic_005_01.bvh");
  KINETRACK_REQUIRE_SHARED(b, "data/bvh/cmu_iclone/cmu_ic_007_12.bvh");
  const io::OpenSimModel gait = io::readOpenSimModel(path);
  const Model human = makeHuman48();
  PosturePairOptions o;
  o.plan.root_position = false;
  o.second_up = -gait.gravity.normalized();
  o.transient = 0.5;
  o.stride = 2;
  const PosturePairs train = pairPostures(human, *gait.model, loadCapture(a), o);
  const PosturePairs test = pairPostures(human, *gait.model, loadCapture(b), o);
  const std::vector<int> ti = postureJoints(human, "Pelvis", kHumanFrames);
  const std::vector<int> pi = postureJoints(*gait.model, "pelvis", kGaitFrames);
  auto rows = [](const MatrixXd& m, const std::vector<int>& idx) {
    MatrixXd out(static_cast<Eigen::Index>(idx.size()), m.cols());
    for (std::size_t i = 0; i < idx.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = m.row(idx[i]);
    return out;
  };
  const MatrixXd th = rows(train.first, ti), ph = rows(train.second, pi);
  const MatrixXd th2 = rows(test.first, ti), ph2 = rows(test.second, pi);
  const biomech::PolynomialMapFit fit(th, ph, 1);  // linear: 28 features, ~120 samples
  const MatrixXd in = fit.rmsErrorByRank(th, ph) * kDeg, out = fit.rmsErrorByRank(th2, ph2) * kDeg;
  const Eigen::Index last = in.rows() - 1;
  Eigen::Index best = 0;
  const double best_out = out.row(last).minCoeff(&best);
  // In sample the error only falls with k; out of sample it is smallest before full rank.
  EXPECT_LT(in(last, fit.rank() - 1), in(last, 0));
  EXPECT_LT(best_out, 10.0);
  EXPECT_LT(best_out, out(last, 0));
  // The knee, the clearest structural correspondence, maps within a few degrees.
  const int knee = row(*gait.model, pi, "knee_angle_r");
  EXPECT_LT(out(knee, best), 6.0);
}

TEST(PosturePairs, RejectsBadOptions) {
  KINETRACK_REQUIRE_SHARED(path, kGait);
  KINETRACK_REQUIRE_SHARED(clip, "data/bvh/cmu_iclone/cmu_ic_007_12.bvh");
  const io::OpenSimModel gait = io::readOpenSimModel(path);
  const Model human = makeHuman48();
  const Capture capture = loadCapture(clip);
  PosturePairOptions o;
  o.stride = 0;
  EXPECT_THROW((void)pairPostures(human, *gait.model, capture, o), InvalidArgument);
  o.stride = 1;
  o.transient = -1.0;
  EXPECT_THROW((void)pairPostures(human, *gait.model, capture, o), InvalidArgument);
  o.transient = 0.0;
  o.model_map = "no_such_map";
  EXPECT_THROW((void)pairPostures(human, *gait.model, capture, o), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::track
