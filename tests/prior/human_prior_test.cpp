// The whole-body prior (human66): joint groups, prior files (round trip, another model, broken
// files), the sparse-target gradient-projection IK (ground truth recovered better with the prior,
// no allocation per frame), target specs.
#include "kinetrack/prior/human_prior.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "prior_targets.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::prior {
namespace KINETRACK_UNITY_ID {

const std::vector<std::string> kTargets = {"Head", "RightHand", "LeftHand"};

struct Walks {
  std::shared_ptr<const Model> model = std::make_shared<const Model>(makeHuman66());
  std::vector<Configuration> train = track::syntheticWalk(*model, 4.0, 30.0, 0.9).truth;
  std::vector<Configuration> test = track::syntheticWalk(*model, 4.0, 30.0, 1.3).truth;
};

const Walks& walks() {
  static const Walks w;
  return w;
}

std::vector<Transform> targetsOf(const Model& m, const Configuration& q) {
  return testing::frameTargets(m, q, kTargets);
}

double trackRms(SparsePriorIk& ik, const Model& m, const std::vector<Configuration>& motion, bool use_prior) {
  ik.setState(motion.front());
  double sq = 0.0;
  for (const Configuration& q : motion) {
    const SparseFrameResult r = ik.solve(targetsOf(m, q), use_prior);
    EXPECT_LT(r.position_error, 0.02);
    EXPECT_EQ(r.status, ik::Status::Converged);
    EXPECT_FALSE(r.gap);
    EXPECT_EQ(r.iterations, SparseIkOptions{}.iterations);
    EXPECT_GE(r.mnte, 0.0);
    EXPECT_LT(r.mnte, 1e-2);
    EXPECT_EQ(r.limit_violation, 0.0);  // clamped into the limits
    sq += (ik.state().joints - q.joints).squaredNorm();
  }
  return std::sqrt(sq / static_cast<double>(motion.size() * static_cast<std::size_t>(m.numJoints())));
}

TEST(HumanPrior, GroupsSplitTheArmsFromTheTrunkAndLegs) {
  const Model& m = *walks().model;
  const auto g = humanPriorGroups(m);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].size() + g[1].size() + g[2].size(), static_cast<std::size_t>(m.numJoints()));
  EXPECT_EQ(g[0].size(), g[1].size());  // symmetric arms
  EXPECT_GE(g[0].size(), 7u);           // shoulder, upper arm, elbow, wrist at least
  for (int j : g[0]) EXPECT_NE(m.jointName(JointId(j)).find("Right"), std::string::npos) << m.jointName(JointId(j));
  for (int j : g[1]) EXPECT_NE(m.jointName(JointId(j)).find("Left"), std::string::npos) << m.jointName(JointId(j));
}

TEST(HumanPrior, PriorRecoversAHeldOutWalkFromHeadAndHandsBetterThanLeastNorm) {
  const Walks& w = walks();
  const HumanPrior prior = buildHumanPrior(*w.model, {w.train}, DensityOptions{});
  SparsePriorIk ik(w.model, kTargets, &prior);
  const double ln = trackRms(ik, *w.model, w.test, false);
  const double gp = trackRms(ik, *w.model, w.test, true);
  EXPECT_LT(gp, ln) << "LN " << ln << " rad, with prior " << gp << " rad";
}

TEST(HumanPrior, SolveDoesNotAllocate) {
  const Walks& w = walks();
  const HumanPrior prior = buildHumanPrior(*w.model, {w.train}, DensityOptions{});
  SparsePriorIk ik(w.model, kTargets, &prior);
  ik.setState(w.test.front());
  const auto t1 = targetsOf(*w.model, w.test[1]), t2 = targetsOf(*w.model, w.test[2]);
  ik.solve(t1, true);
  long allocations = 0;
  {
    kinetrack::testing::AllocationCounter guard;
    ik.solve(t2, true);
    ik.solve(t1, false);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(HumanPrior, BadTargetsAndStatesAreRejectedNeverNaN) {
  const Walks& w = walks();
  SparsePriorIk ik(w.model, kTargets, nullptr);
  ik.setState(w.test.front());
  auto t = targetsOf(*w.model, w.test[1]);
  t[0].p.x() = std::nan("");
  const Configuration before = ik.state();
  const SparseFrameResult r = ik.solve(t, false);
  EXPECT_TRUE(std::isnan(r.position_error));
  EXPECT_TRUE(r.gap);  // no valid data: the state held
  EXPECT_EQ(r.iterations, 0);
  EXPECT_TRUE(ik.state().joints.isApprox(before.joints));
  t.pop_back();
  EXPECT_THROW(ik.solve(t, false), InvalidArgument);
  Configuration bad = w.test.front();
  bad.joints[0] = std::nan("");
  EXPECT_THROW(ik.setState(bad), InvalidArgument);
  EXPECT_THROW(SparsePriorIk(w.model, {}, nullptr), InvalidArgument);
  EXPECT_THROW(SparsePriorIk(w.model, {"NoSuchFrame"}, nullptr), InvalidArgument);
}

TEST(HumanPrior, TargetSpecsExpandToModelFrames) {
  const Model& m = *walks().model;
  EXPECT_EQ(parseTargetSpec(m, "head,hands"), kTargets);
  EXPECT_EQ(parseTargetSpec(m, "pelvis,head,hands,feet").size(), 6u);
  EXPECT_EQ(parseTargetSpec(m, "Head,head"), std::vector<std::string>{"Head"});
  EXPECT_THROW(parseTargetSpec(m, ""), InvalidArgument);
  EXPECT_THROW(parseTargetSpec(m, "tail"), InvalidArgument);
}

class PriorFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::path(::testing::TempDir()) /
             ("gpm_prior_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".bin"))
                .string();
    DensityOptions o;
    o.inc = 2;
    o.min_samples = 5;
    prior_ = buildHumanPrior(*walks().model, {walks().train}, o);
    writeHumanPrior(path_, prior_);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string bytes() const {
    std::ifstream f(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }
  void write(const std::string& b) const { std::ofstream(path_, std::ios::binary) << b; }
  void expectParseError(const std::string& fragment) const {
    try {
      readHumanPrior(path_);
      FAIL() << "expected ParseError containing '" << fragment << "'";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), path_);
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
  std::string path_;
  HumanPrior prior_;
};

TEST_F(PriorFile, RoundTripGivesTheSameGradients) {
  const HumanPrior back = readHumanPrior(path_);
  EXPECT_EQ(back.model_name, prior_.model_name);
  EXPECT_EQ(back.joint_names, prior_.joint_names);
  ASSERT_EQ(back.density.numGroups(), 3);
  EXPECT_NO_THROW(checkPriorMatchesModel(back, *walks().model));
  std::mt19937 rng(1);
  std::normal_distribution<double> n(0.0, 0.5);
  const int nj = walks().model->numJoints();
  std::vector<double> theta(static_cast<std::size_t>(nj)), g1(theta.size()), g2(theta.size());
  for (int trial = 0; trial < 20; ++trial) {
    for (double& t : theta) t = n(rng);
    const std::array<Vector3d, 3> keys = {randomVector3(n, rng), randomVector3(n, rng), randomVector3(n, rng)};
    EXPECT_EQ(prior_.density.gradient(theta, keys, g1), back.density.gradient(theta, keys, g2));
    EXPECT_EQ(g1, g2);
  }
}

TEST_F(PriorFile, APriorOfAnotherModelIsRejectedNamingBothModels) {
  const Model other = makeHuman48();
  try {
    checkPriorMatchesModel(readHumanPrior(path_), other, path_);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path_), std::string::npos) << what;
    EXPECT_NE(what.find(walks().model->name()), std::string::npos) << what;
    EXPECT_NE(what.find(other.name()), std::string::npos) << what;
  }
  EXPECT_THROW(SparsePriorIk(std::make_shared<const Model>(other), {"Head"}, &prior_), InvalidArgument);
}

TEST_F(PriorFile, BrokenFilesAreParseErrorsNamingTheFieldAndFile) {
  const std::string good = bytes();
  write(good.substr(0, good.size() / 2));
  expectParseError("truncated");
  write("KTPRIOX" + good.substr(7));
  expectParseError("not a kinetrack prior file");
  std::string v = good;
  v[8] = 9;  // format version
  write(v);
  expectParseError("format version 9");
  write(good + "x");
  expectParseError("trailing data");
  // A NaN in the last gradient table.
  std::string nan = good;
  const double q = std::nan("");
  std::memcpy(nan.data() + nan.size() - sizeof(double), &q, sizeof(double));
  write(nan);
  expectParseError("gradient table: not a finite number");
  std::filesystem::remove(path_);
  expectParseError("cannot open");
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::prior
