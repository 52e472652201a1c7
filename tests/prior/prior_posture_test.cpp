// The learned prior as DYN's posture term (prior::PriorPosture): a held-out synthetic walk is
// recovered from head and hands better than by DYN alone while the targets are still met, the
// reference points down the prior's gradient, a prior of another model is refused and nothing
// allocates per frame.
#include "kinetrack/prior/prior_posture.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/frame_solver.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "prior_targets.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::prior {
namespace KINETRACK_UNITY_ID {

const std::vector<std::string> kTargets = {"Head", "RightHand", "LeftHand"};
constexpr double kDt = 1.0 / 30.0;

struct Walks {
  std::shared_ptr<const Model> model = std::make_shared<const Model>(makeHuman66());
  std::vector<Configuration> train = track::syntheticWalk(*model, 4.0, 30.0, 0.9).truth;
  std::vector<Configuration> test = track::syntheticWalk(*model, 4.0, 30.0, 1.3).truth;
  HumanPrior prior = buildHumanPrior(*model, {train}, DensityOptions{});
};

const Walks& walks() {
  static const Walks w;
  return w;
}

DynamicalIk makeDyn(const Walks& w, std::vector<TargetId>& ids) {
  DynamicalIkOptions o;
  o.gain_mode = GainMode::PerStep;
  DynamicalIk ik(w.model, o);
  for (const auto& n : kTargets) ids.push_back(ik.tasks().addPose(n, {1.0, 1.0}, {1.0, 1.0}));
  ik.setState(w.test.front());
  return ik;
}

void setTargets(DynamicalIk& ik, const std::vector<TargetId>& ids, const Model& m, const Configuration& q) {
  Data d(m);
  framesForwardKinematics(m, d, q);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const Transform& t = d.frame[static_cast<std::size_t>(m.frameId(kTargets[k]).value)];
    ik.tasks().setPosition(ids[k], t.p);
    ik.tasks().setOrientation(ids[k], t.R);
  }
}

/// Joint RMS (rad) of DYN over the held-out walk, with or without the prior; the worst target
/// position error after each frame goes to `worst_target`.
double trackRms(bool with_prior, double& worst_target) {
  const Walks& w = walks();
  std::vector<TargetId> ids;
  DynamicalIk ik = makeDyn(w, ids);
  std::unique_ptr<PriorPosture> posture;
  if (with_prior) posture = std::make_unique<PriorPosture>(ik, w.prior);
  double sq = 0.0;
  worst_target = 0.0;
  for (const Configuration& q : w.test) {
    setTargets(ik, ids, *w.model, q);
    if (posture) posture->update(kDt);
    ik.step(kDt);
    sq += (ik.state().joints - q.joints).squaredNorm();
    Data d(*w.model);
    framesForwardKinematics(*w.model, d, q);
    for (const auto& n : kTargets) {
      const FrameId f = w.model->frameId(n);
      worst_target = std::max(
          worst_target, (d.frame[static_cast<std::size_t>(f.value)].p - frameOrigin(*w.model, ik.data(), f)).norm());
    }
  }
  return std::sqrt(sq / static_cast<double>(w.test.size() * static_cast<std::size_t>(w.model->numJoints())));
}

TEST(PriorPosture, DynWithThePriorRecoversAHeldOutWalkBetterAndStillMeetsTheTargets) {
  double target_dyn = 0.0, target_prior = 0.0;
  const double dyn = trackRms(false, target_dyn);
  const double with_prior = trackRms(true, target_prior);
  EXPECT_LT(with_prior, 0.9 * dyn) << "DYN " << dyn << " rad, with prior " << with_prior << " rad";
  EXPECT_LT(target_prior, 0.02) << "DYN alone: " << target_dyn << " m";
}

TEST(PriorPosture, TheReferencePointsDownTheGradientWithinItsCap) {
  const Walks& w = walks();
  std::vector<TargetId> ids;
  DynamicalIk ik = makeDyn(w, ids);
  PriorPostureOptions o;
  PriorPosture posture(ik, w.prior, o);
  Configuration q = w.test.front();
  q.joints.array() += 0.3;  // off the learned poses: a non-zero gradient on most joints
  ik.setState(q);
  EXPECT_EQ(posture.update(kDt), 0);
  Data d(*w.model);
  forwardKinematics(*w.model, d, q);
  VectorXd grad(w.model->numJoints());
  std::array<Vector3d, 3> keys = humanKeyPoints(*w.model, d, w.model->frameId("Head"), w.model->frameId("RightHand"),
                                                w.model->frameId("LeftHand"));
  w.prior.density.gradient(std::span<const double>(q.joints.data(), q.joints.size()), keys,
                           std::span<double>(grad.data(), grad.size()));
  const VectorXd& v = ik.tasks()[posture.task()].velocities;
  int moving = 0;
  for (int j = 0; j < w.model->numJoints(); ++j) {
    EXPECT_LE(v[j] * grad[j], 0.0) << "joint " << j;
    EXPECT_LE(std::abs(v[j]), o.max_step / kDt + 1e-12);
    moving += v[j] != 0.0;
  }
  EXPECT_GT(moving, w.model->numJoints() / 2);
  EXPECT_TRUE((ik.tasks()[posture.task()].weights.array() == o.weight).all());
  posture.enable(false);
  EXPECT_FALSE(ik.tasks()[posture.task()].active());
}

TEST(PriorPosture, APriorOfAnotherModelAndBadOptionsAreRefused) {
  const Walks& w = walks();
  DynamicalIk other(makeHuman48());
  EXPECT_THROW(PriorPosture(other, w.prior), InvalidArgument);
  std::vector<TargetId> ids;
  DynamicalIk ik = makeDyn(w, ids);
  PriorPostureOptions bad;
  bad.weight = -1.0;
  EXPECT_THROW(PriorPosture(ik, w.prior, bad), InvalidArgument);
  bad = {};
  bad.max_step = std::nan("");
  EXPECT_THROW(PriorPosture(ik, w.prior, bad), InvalidArgument);
  PriorPosture posture(ik, w.prior);
  EXPECT_THROW(posture.update(0.0), InvalidArgument);
}

TEST(PriorPosture, UpdateAndStepDoNotAllocate) {
  const Walks& w = walks();
  std::vector<TargetId> ids;
  DynamicalIk ik = makeDyn(w, ids);
  PriorPosture posture(ik, w.prior);
  setTargets(ik, ids, *w.model, w.test[1]);
  posture.update(kDt);
  ik.step(kDt);
  setTargets(ik, ids, *w.model, w.test[2]);
  long allocations = 0;
  {
    kinetrack::testing::AllocationCounter guard;
    posture.update(kDt);
    ik.step(kDt);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(PriorPosture, UpdateAloneNeverAllocates) {
  const Walks& w = walks();
  std::vector<TargetId> ids;
  DynamicalIk ik = makeDyn(w, ids);
  PriorPosture posture(ik, w.prior);
  Configuration q = w.test[3];
  q.joints.array() += 0.2;  // a non-zero gradient
  ik.setState(q);
  posture.update(kDt);
  long allocations = 0;
  int fallbacks = 0;
  {
    kinetrack::testing::AllocationCounter guard;
    for (int k = 0; k < 5; ++k) fallbacks += posture.update(kDt * (1 + k));
    posture.enable(false);
    posture.enable(true);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(fallbacks, 0);
  EXPECT_GT(ik.tasks()[posture.task()].velocities.cwiseAbs().maxCoeff(), 0.0);
}

// The posture term is a task of the solver's TaskSet: weights μ, no pose values, the velocity
// reference update() computes; it leaves the TaskSet with its PriorPosture.
TEST(PriorPosture, DrivesItsOwnPostureTaskOfTheTaskSet) {
  const Walks& w = walks();
  std::vector<TargetId> ids;
  DynamicalIk ik = makeDyn(w, ids);
  const int n = w.model->numJoints();
  PriorPostureOptions o;
  o.weight = 0.02;
  ik::PostureTaskId id;
  {
    PriorPosture posture(ik, w.prior, o);
    id = posture.task();
    const ik::PostureTask& t = ik.tasks()[id];
    EXPECT_EQ(t.weights, VectorXd::Constant(n, 0.02));
    EXPECT_FALSE(t.values.array().isFinite().any());  // a pure velocity reference: v* = v
    EXPECT_TRUE(t.velocity_given);
    EXPECT_EQ(t.velocities, VectorXd::Zero(n));  // until the first update
    Configuration q = w.test.front();
    q.joints.array() += 0.3;
    ik.setState(q);
    posture.update(kDt);
    EXPECT_GT(t.velocities.cwiseAbs().maxCoeff(), 0.0);
    // The same reference set by hand on a second solver gives the same step, bit for bit.
    std::vector<TargetId> ids2;
    DynamicalIk by_hand = makeDyn(w, ids2);
    by_hand.setState(q);
    const ik::PostureTaskId p = by_hand.tasks().addPosture(0.02);
    by_hand.tasks().setVelocities(p, t.velocities);
    setTargets(ik, ids, *w.model, w.test[1]);
    setTargets(by_hand, ids2, *w.model, w.test[1]);
    ik.step(kDt);
    by_hand.step(kDt);
    EXPECT_TRUE(ik.state().joints == by_hand.state().joints);
  }
  EXPECT_FALSE(ik.tasks().postures()[static_cast<std::size_t>(id.value)].alive);
  PriorPosture again(ik, w.prior, o);
  EXPECT_NE(again.task(), id);  // ids are never reused
}

std::vector<Transform> targetsOf(const Model& m, const Configuration& q) {
  return testing::frameTargets(m, q, kTargets);
}

// The packaged tracker (track --targets, the study, the benchmark) is the same computation as the
// hand-assembled DYN + PriorPosture above, step for step, and reports its targets' errors.
TEST(SparseDynamicalIk, MatchesDynWithThePriorStepForStepAndReportsTheTargetErrors) {
  const Walks& w = walks();
  DynamicalIkOptions o = track::TrackerOptions::dynamicalTrackingOptions();
  o.gain_mode = GainMode::PerStep;
  DynamicalIk reference(w.model, o);
  std::vector<TargetId> ids;
  for (const auto& n : kTargets) ids.push_back(reference.tasks().addPose(n, {1.0, 1.0}, {1.0, 1.0}));
  reference.setState(w.test.front());
  PriorPosture posture(reference, w.prior);
  SparseDynamicalIk ik(w.model, kTargets, &w.prior);
  ik.setState(w.test.front());
  for (std::size_t f = 0; f < 40; ++f) {
    setTargets(reference, ids, *w.model, w.test[f]);
    posture.update(kDt);
    const StepResult step = reference.step(kDt);
    const std::vector<Transform> t = targetsOf(*w.model, w.test[f]);
    const SparseFrameResult r = ik.solve(t, kDt);
    ASSERT_LT((ik.state().joints - reference.state().joints).cwiseAbs().maxCoeff(), 1e-12) << "frame " << f;
    double worst = 0.0, worst_angle = 0.0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      const FrameId id = w.model->frameId(kTargets[k]);
      worst = std::max(worst, (t[k].p - frameOrigin(*w.model, reference.data(), id)).norm());
      Data d(*w.model);
      framesForwardKinematics(*w.model, d, ik.state());
      worst_angle = std::max(
          worst_angle, Eigen::AngleAxisd(t[k].R.transpose() * d.frame[static_cast<std::size_t>(id.value)].R).angle());
    }
    EXPECT_NEAR(r.position_error, worst, 1e-12);
    EXPECT_NEAR(r.orientation_error, worst_angle, 1e-9);
    EXPECT_EQ(r.status, ik::Status::Converged);  // the DYN step's outcome
    EXPECT_EQ(r.iterations, step.iterations);
    EXPECT_EQ(r.mnte, step.mnte);
    EXPECT_EQ(r.limit_violation, step.limit_violation);
  }
  EXPECT_THROW(ik.solve(std::vector<Transform>(2), kDt), InvalidArgument);
  EXPECT_THROW(ik.solve(targetsOf(*w.model, w.test[40]), 0.0), InvalidArgument);
  std::vector<Transform> bad = targetsOf(*w.model, w.test[40]);
  bad[1].p.x() = std::numeric_limits<double>::quiet_NaN();
  const Configuration before = ik.state();
  const SparseFrameResult r = ik.solve(bad, kDt);
  EXPECT_TRUE(std::isnan(r.position_error));
  EXPECT_TRUE(r.gap);
  EXPECT_EQ(ik.state().joints, before.joints);
  EXPECT_TRUE(ik.state().joints.allFinite());
}

TEST(SparseDynamicalIk, SolveDoesNotAllocate) {
  const Walks& w = walks();
  SparseDynamicalIk ik(w.model, kTargets, &w.prior);
  ik.setState(w.test.front());
  const std::vector<Transform> a = targetsOf(*w.model, w.test[1]), b = targetsOf(*w.model, w.test[2]);
  ik.solve(a, kDt);
  long allocations = 0;
  {
    kinetrack::testing::AllocationCounter guard;
    ik.solve(b, kDt);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::prior
