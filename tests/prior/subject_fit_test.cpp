// Subject models and recorded joint angles from real captures (../shared/data), the missing-hand
// fallback, clear errors for missing segments, and a reduced GPM study (the full one is
// `kinetrack experiment gpm`, docs/gpm.md).
#include "kinetrack/prior/subject_fit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/prior/gpm_study.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::prior {
namespace KINETRACK_UNITY_ID {

constexpr double kDeg = M_PI / 180.0;

void expectConsistent(const SubjectFit& fit) {
  ASSERT_FALSE(fit.theta.empty());
  ASSERT_EQ(fit.theta.size(), fit.hands.size());
  UpperBodyData d;
  for (std::size_t f = 0; f < fit.theta.size(); ++f) {
    ASSERT_TRUE(fit.theta[f].allFinite());
    EXPECT_TRUE(((fit.theta[f] - fit.model.lower).array() >= 0.0).all());
    EXPECT_TRUE(((fit.model.upper - fit.theta[f]).array() >= 0.0).all());
    upperBodyForwardKinematics(fit.model, d, fit.theta[f]);
    EXPECT_LT((d.hand[0].p - fit.hands[f][0].p).norm(), 1e-12);
  }
}

TEST(SubjectFit, XsensUpperBodyIsReproducedByItsDhModel) {
  KINETRACK_REQUIRE_SHARED(path, "data/bvh/xsens/xsens_test_mocap.bvh");
  const SubjectFit fit = fitSubject("xsens", {path});
  expectConsistent(fit);
  EXPECT_EQ(fit.quality.frames, 111);  // frame 0 is the calibration T-pose, dropped
  // Hand orientation is reproduced exactly by construction; the position error comes from
  // lumping Xsens' four spine segments into one 3-DoF torso joint.
  EXPECT_LT(fit.quality.hand_orientation_rms, 1e-6);
  EXPECT_LT(fit.quality.hand_position_rms, 0.03);
  EXPECT_GT(fit.quality.hand_position_rms, 0.0);
}

TEST(SubjectFit, BandaiClipsShareOneModelAndUseTheFunctionalElbowAxis) {
  KINETRACK_REQUIRE_SHARED(a, "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh");
  KINETRACK_REQUIRE_SHARED(b, "data/bvh/bandai/dataset-2_wave-right-hand_normal_001.bvh");
  const SubjectFit fit = fitSubject("bandai", {a, b});
  expectConsistent(fit);
  ASSERT_EQ(fit.clips.size(), 2u);
  EXPECT_EQ(fit.clips[1].first, fit.clips[0].frames);
  EXPECT_LT(fit.quality.hand_position_rms, 0.03);
  // Waving flexes the right elbow a lot: the recorded flexion spans tens of degrees, mostly positive.
  double lo = 1e9, hi = -1e9;
  const int flex = thetaIndex(Side::Right, kTorsoDof + 6);
  for (int f = fit.clips[1].first; f < fit.clips[1].first + fit.clips[1].frames; ++f)
    lo = std::min(lo, fit.theta[static_cast<std::size_t>(f)][flex]),
    hi = std::max(hi, fit.theta[static_cast<std::size_t>(f)][flex]);
  EXPECT_GT(hi - lo, 30.0 * kDeg);
  EXPECT_GT(hi, 30.0 * kDeg);
}

TEST(SubjectFit, CentredTwistsMoveIntoTheDhOffsetsWithoutChangingTheKinematics) {
  KINETRACK_REQUIRE_SHARED(path, "data/bvh/bandai/dataset-2_wave-right-hand_normal_001.bvh");
  SubjectFitOptions o;
  const SubjectFit raw = fitSubject("bandai", {path}, o);
  o.center_twists = true;
  const SubjectFit centred = fitSubject("bandai", {path}, o);
  expectConsistent(centred);
  ASSERT_EQ(raw.theta.size(), centred.theta.size());
  for (std::size_t f = 0; f < raw.theta.size(); ++f)
    for (int s = 0; s < 2; ++s) {
      EXPECT_LT((raw.hands[f][static_cast<std::size_t>(s)].p - centred.hands[f][static_cast<std::size_t>(s)].p).norm(),
                1e-12);
      EXPECT_LT((raw.hands[f][static_cast<std::size_t>(s)].R - centred.hands[f][static_cast<std::size_t>(s)].R).norm(),
                1e-12);
    }
  // Bandai's clavicle twist sits near −90° in the skeleton's own frames; centred, its median is 0.
  const int sc3 = thetaIndex(Side::Right, kTorsoDof + 2);
  std::vector<double> v;
  for (const Vector25d& th : centred.theta) v.push_back(th[sc3]);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  EXPECT_NEAR(v[v.size() / 2], 0.0, 1e-12);
  EXPECT_LT(raw.theta.front()[sc3], -60.0 * kDeg);
  EXPECT_EQ(centred.theta.front()[0], raw.theta.front()[0]);  // other joints untouched
}

TEST(SubjectFit, SkeletonWithoutHandsPutsTheWristAtTheForearmEndSite) {
  KINETRACK_REQUIRE_SHARED(path, "data/bvh/reactidle/003_genuine.bvh");
  SubjectFitOptions o;
  o.rate = 2.0;  // a reduced version of the 38 s clip
  const SubjectFit fit = fitSubject("reactidle-3", {path}, o);
  expectConsistent(fit);
  for (const Vector25d& th : fit.theta) {  // no hand segment: the wrist angles stay 0
    EXPECT_NEAR(th[thetaIndex(Side::Right, 12)], 0.0, 1e-12);
    EXPECT_NEAR(th[thetaIndex(Side::Left, 13)], 0.0, 1e-12);
  }
  // In the zero pose (a T-pose) the wrists are a full arm span apart, not at the elbows.
  UpperBodyData d;
  upperBodyForwardKinematics(fit.model, d, Vector25d::Zero());
  EXPECT_GT((d.hand[0].p - d.hand[1].p).norm(), 1.0);
}

TEST(SubjectFit, MissingSegmentsAreNamedWithTheFile) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/gpm_no_arms.bvh";
  {
    std::ofstream f(path);
    f << "HIERARCHY\nROOT Hips\n{\n OFFSET 0 100 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
         "Yrotation\n JOINT Spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  JOINT Head\n  "
         "{\n   OFFSET 0 40 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n   End Site\n   {\n    OFFSET 0 10 0\n   "
         "}\n  }\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.033333\n0 100 0 0 0 0 0 0 0 0 0 0\n";
  }
  try {
    fitSubject("no-arms", {path});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gpm_no_arms.bvh"), std::string::npos) << what;
    EXPECT_NE(what.find("RightShoulder"), std::string::npos) << what;
    EXPECT_NE(what.find("LeftForeArm"), std::string::npos) << what;
  }
  std::remove(path.c_str());
  EXPECT_THROW(fitSubject("none", {}), InvalidArgument);
  EXPECT_THROW(fitSubject("missing", {dir + "/no_such_clip.bvh"}), ParseError);
}

TEST(GpmStudy, ReducedStudyOnRealSubjects) {
  KINETRACK_REQUIRE_SHARED(xsens, "data/bvh/xsens/xsens_test_mocap.bvh");
  KINETRACK_REQUIRE_SHARED(raise, "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh");
  KINETRACK_REQUIRE_SHARED(wave, "data/bvh/bandai/dataset-2_wave-right-hand_normal_001.bvh");
  KINETRACK_REQUIRE_SHARED(cmu7, "data/bvh/cmu_iclone/cmu_ic_007_12.bvh");
  SubjectFitOptions o;
  o.rate = 30.0;
  std::vector<SubjectFit> fits = {fitSubject("xsens", {xsens}, o), fitSubject("bandai", {raise, wave}, o),
                                  fitSubject("cmu-7", {cmu7}, o)};
  StudyOptions so;
  so.incs = {1, 4};
  so.robustness_inc = 2;
  int calls = 0;
  so.progress = [&calls](int, int, const std::string&) { ++calls; };
  const StudyResult r = runGpmStudy(fits, so);
  EXPECT_GT(calls, 0);
  ASSERT_EQ(r.rows.size(), 2u * (3u * 2u + 3u));  // per inc: LN + GP included per subject, GP left out
  ASSERT_EQ(r.robustness.size(), 9u);
  double ln = 0.0, gp_in = 0.0;
  for (const StudyRow& row : r.rows) {
    EXPECT_TRUE(std::isfinite(row.rms_deg));
    EXPECT_GT(row.rms_deg, 0.0);
    if (row.inc != 1 || !row.included) continue;
    (row.method == IkMethod::LeastNorm ? ln : gp_in) += row.rms_deg;
  }
  // The density of the subjects' own angles beats least norm at inc = 1 (GPM Fig. 4).
  EXPECT_LT(gp_in, ln);
  const std::string csv = studyCsv(r.rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "subject,inc,method,included,rms_deg");
  EXPECT_NE(csv.find("xsens,4,GP,0,"), std::string::npos);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::prior
