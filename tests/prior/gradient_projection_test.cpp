// LN (Eq. 3) and GP (Eq. 4–5) on the synthetic 25-DoF body: LN reaches reachable hand poses, GP
// with a density learned from a ground-truth motion recovers that motion better than LN, limits
// hold at every frame, bad input, and the per-frame solve does not allocate.
#include "kinetrack/prior/gradient_projection.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "prior_fixtures.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::prior {
namespace KINETRACK_UNITY_ID {

/// A smooth ground-truth motion: every joint a sine of its own amplitude, frequency and phase.
struct Motion {
  std::vector<Vector25d> theta;
  std::vector<std::array<Transform, 2>> hands;
};

Motion syntheticMotion(const UpperBodyModel& m, int frames, unsigned seed, double amplitude = 0.4) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> amp(0.0, amplitude), freq(0.2, 1.0), phase(0.0, 2 * M_PI);
  Vector25d a, w, ph;
  for (int i = 0; i < kUpperBodyDof; ++i) a[i] = amp(rng), w[i] = freq(rng), ph[i] = phase(rng);
  Motion out;
  UpperBodyData d;
  for (int f = 0; f < frames; ++f) {
    const double t = f / 30.0;
    Vector25d th;
    for (int i = 0; i < kUpperBodyDof; ++i) th[i] = a[i] * std::sin(w[i] * t + ph[i]);
    upperBodyForwardKinematics(m, d, th);
    out.theta.push_back(th);
    out.hands.push_back(d.hand);
  }
  return out;
}

DensityPrior priorOf(const Motion& motion, int inc) {
  PriorSamples s;
  s.num_joints = kUpperBodyDof;
  for (std::size_t f = 0; f < motion.theta.size(); ++f) {
    s.joints.insert(s.joints.end(), motion.theta[f].data(), motion.theta[f].data() + kUpperBodyDof);
    for (const Vector3d& k : upperBodyKeyPoints(motion.hands[f])) s.key_points.push_back(k);
  }
  DensityOptions o;
  o.inc = inc;
  return {s, upperBodyGroups(), o};
}

double trackRms(GradientProjectionIk& ik, const Motion& motion, IkMethod method, double* worst_position = nullptr) {
  Vector25d theta = motion.theta.front();
  double sq = 0.0;
  for (std::size_t f = 0; f < motion.theta.size(); ++f) {
    const GpmFrameResult r = ik.solve(motion.hands[f], theta, method);
    EXPECT_EQ(r.status, ik::Status::Converged);
    EXPECT_FALSE(r.gap);
    EXPECT_EQ(r.iterations, ik.options().iterations);
    EXPECT_TRUE(r.mnte >= 0.0 && r.mnte <= 2.0);
    if (worst_position) *worst_position = std::max(*worst_position, r.position_error);
    sq += (theta - motion.theta[f]).squaredNorm();
  }
  return std::sqrt(sq / (static_cast<double>(motion.theta.size()) * kUpperBodyDof));
}

UpperBodyModel humanLike() {
  const auto body = testing::syntheticBody(0);
  return upperBodyFromAxes("synthetic", body.axes, body.hands);
}

TEST(GradientProjection, LeastNormReachesAReachableHandPoseFromNearby) {
  const UpperBodyModel m = humanLike();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  Vector25d truth, theta;
  for (int i = 0; i < kUpperBodyDof; ++i) truth[i] = u(rng), theta[i] = truth[i] + 0.2 * u(rng);
  UpperBodyData d;
  upperBodyForwardKinematics(m, d, truth);
  GpmOptions o;
  o.iterations = 20;
  GradientProjectionIk ik(m, nullptr, o);
  const GpmFrameResult r = ik.solve(d.hand, theta, IkMethod::LeastNorm);
  EXPECT_LT(r.position_error, 1e-6);
  EXPECT_LT(r.orientation_error, 1e-6);
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(GradientProjection, DensityPriorRecoversAGroundTruthMotionBetterThanLeastNorm) {
  const UpperBodyModel m = humanLike();
  const Motion motion = syntheticMotion(m, 600, 2);
  const DensityPrior prior = priorOf(motion, 3);
  GradientProjectionIk ik(m, &prior);
  double ln_worst = 0.0, gp_worst = 0.0;
  const double ln = trackRms(ik, motion, IkMethod::LeastNorm, &ln_worst);
  const double gp = trackRms(ik, motion, IkMethod::GradientProjection, &gp_worst);
  // Both follow the hands (the prior acts in the null space only) …
  EXPECT_LT(ln_worst, 5e-3);
  EXPECT_LT(gp_worst, 5e-3);
  // … and the prior keeps the redundant joints nearer the motion that produced the density.
  EXPECT_LT(gp, 0.75 * ln) << "LN " << ln << " rad, GP " << gp << " rad";
  // Zero gain is LN exactly.
  GpmOptions zero;
  zero.gain = 0.0;
  GradientProjectionIk ik0(m, &prior, zero);
  EXPECT_NEAR(trackRms(ik0, motion, IkMethod::GradientProjection), ln, 1e-12);
}

TEST(GradientProjection, JointLimitsHoldAtEveryFrame) {
  UpperBodyModel m = humanLike();
  m.lower = Vector25d::Constant(-0.15);
  m.upper = Vector25d::Constant(0.2);
  const Motion motion = syntheticMotion(humanLike(), 200, 3, 0.6);  // leaves the limits
  const DensityPrior prior = priorOf(motion, 2);
  GradientProjectionIk ik(m, &prior);
  for (IkMethod method : {IkMethod::LeastNorm, IkMethod::GradientProjection}) {
    Vector25d theta = Vector25d::Zero();
    int limited = 0;
    for (const auto& target : motion.hands) {
      const GpmFrameResult r = ik.solve(target, theta, method);
      limited += r.limited;
      ASSERT_TRUE(theta.allFinite());
      ASSERT_TRUE(((theta - m.lower).array() >= -1e-15).all()) << toString(method);
      ASSERT_TRUE(((m.upper - theta).array() >= -1e-15).all()) << toString(method);
    }
    EXPECT_GT(limited, 0) << toString(method);
  }
}

TEST(GradientProjection, BadInputGivesErrorsOrAnUnchangedPoseNeverNaN) {
  const UpperBodyModel m = humanLike();
  GradientProjectionIk ln_only(m, nullptr);
  Vector25d theta = Vector25d::Zero();
  std::array<Transform, 2> target;
  EXPECT_THROW(ln_only.solve(target, theta, IkMethod::GradientProjection), InvalidArgument);
  target[0].p.x() = std::nan("");
  const GpmFrameResult r = ln_only.solve(target, theta, IkMethod::LeastNorm);
  EXPECT_TRUE(std::isnan(r.position_error));
  EXPECT_TRUE(r.gap);
  EXPECT_TRUE(theta.isZero());
  theta[3] = std::nan("");
  target[0].p.x() = 0.0;
  EXPECT_THROW(ln_only.solve(target, theta, IkMethod::LeastNorm), InvalidArgument);
  // A prior over other joints (another model) is rejected.
  PriorSamples s;
  s.num_joints = 3;
  s.joints = {0, 0, 0};
  s.key_points = {Vector3d::Zero()};
  const DensityPrior other(s, {{0, 1, 2}}, DensityOptions{.min_samples = 1});
  EXPECT_THROW(GradientProjectionIk(m, &other), InvalidArgument);
  GpmOptions bad;
  bad.iterations = 0;
  EXPECT_THROW(GradientProjectionIk(m, nullptr, bad), InvalidArgument);
  UpperBodyModel inverted = m;
  inverted.lower[4] = 1.0;
  inverted.upper[4] = -1.0;
  EXPECT_THROW(GradientProjectionIk(inverted, nullptr), InvalidArgument);
}

TEST(GradientProjection, SolveDoesNotAllocate) {
  const UpperBodyModel m = humanLike();
  const Motion motion = syntheticMotion(m, 60, 5);
  const DensityPrior prior = priorOf(motion, 4);
  GradientProjectionIk ik(m, &prior);
  Vector25d theta = motion.theta.front();
  ik.solve(motion.hands[1], theta, IkMethod::GradientProjection);  // warm up
  long allocations = 0;
  {
    kinetrack::testing::AllocationCounter guard;
    for (int f = 2; f < 10; ++f) {
      ik.solve(motion.hands[static_cast<std::size_t>(f)], theta, IkMethod::GradientProjection);
      ik.solve(motion.hands[static_cast<std::size_t>(f)], theta, IkMethod::LeastNorm);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::prior
