// Whole-body instantaneous IK (SPEC §3): the NLP's derivatives against finite differences on the
// manifold, ground-truth recovery on human66, human48 and iCub with its coupled rows (Native and
// Ipopt), limits and rows never violated, Native and Ipopt agreeing on out-of-reach optima,
// warm-started tracking, iteration cap, no allocation per solve, bad arguments.
#include "kinetrack/ik/instantaneous_ik.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/ik_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kInf = std::numeric_limits<double>::infinity();

double wrap(double a) { return std::remainder(a, 2.0 * M_PI); }

using Targets = testing::FkTargets<InstantaneousIk>;
using testing::feasibleRandom;
using testing::icubWithCoupling;
using testing::perturbed;
using testing::smoothMotion;

double jointError(const Configuration& a, const Configuration& b) {
  double e = 0.0;
  for (int j = 0; j < a.joints.size(); ++j) e = std::max(e, std::abs(wrap(a.joints[j] - b.joints[j])));
  return e;
}

InstantaneousIkOptions withBackend(InstantaneousIkBackend backend) {
  InstantaneousIkOptions o;
  o.backend = backend;
  return o;
}

struct RecoveryStats {
  int cases = 0, converged = 0, max_iterations = 0;
  double worst_orientation = 0.0, worst_position = 0.0, worst_joint = 0.0, worst_limit = 0.0, worst_row = 0.0;
};

/// Ground truth: FK of random feasible configurations; start 0.1–0.3 rad away.
RecoveryStats recover(const Model& m, const InstantaneousIkOptions& options, const std::vector<std::string>& frames,
                      const std::string& position_frame, int cases, std::uint64_t seed, double range = 1.0) {
  InstantaneousIk ik = makeInstantaneousIk(m, options);
  Targets targets(ik, frames, position_frame);
  RecoveryStats s;
  testing::forRandomRecoveries(ik, targets, cases, seed, range, [&](const Configuration& truth, const SolveResult& r) {
    ++s.cases;
    s.converged += r.status == ik::Status::Converged;
    s.max_iterations = std::max(s.max_iterations, r.iterations);
    s.worst_orientation = std::max(s.worst_orientation, r.max_orientation_error);
    s.worst_position = std::max(s.worst_position, r.max_position_error);
    s.worst_joint = std::max(s.worst_joint, jointError(ik.state(), truth));
    s.worst_limit = std::max(s.worst_limit, positionLimitViolation(m, ik.state()));
    s.worst_row = std::max(s.worst_row, linearRowViolation(m, ik.state()));
    EXPECT_NEAR(r.limit_violation, positionLimitViolation(m, ik.state()), 1e-15);
  });
  return s;
}

void expectRecovered(const RecoveryStats& s, double joint_tolerance) {
  EXPECT_EQ(s.converged, s.cases);
  EXPECT_LE(s.worst_orientation, 1e-6);
  EXPECT_LE(s.worst_position, 1e-6);
  EXPECT_LE(s.worst_joint, joint_tolerance);
  EXPECT_LE(s.worst_limit, 1e-9);
  EXPECT_LE(s.worst_row, 1e-9);
}

// ---- the NLP's derivatives ------------------------------------------------------------------

/// F(q(x)) for chart coordinates x around the problem's centre.
double costAt(InstantaneousIkProblem& p, const VectorXd& x) { return p.evaluate(x).cost; }

TEST(InstantaneousIkProblem, GradientMatchesFiniteDifferencesInTheChart) {
  // At a point with large residuals and a rotated chart (x_ω ≠ 0: the left Jacobian of SO(3)
  // enters the base columns), on a model with limits and one with a fixed frame offset.
  for (const Model& m : {makeHuman48(), makeHuman66()}) {
    InstantaneousIk ik(m);
    std::mt19937_64 rng(3);
    ik.setState(randomConfiguration(m, rng));
    const std::vector<std::string> frames = {"Head", "RightHand", "LeftFoot", "RightHandCOM", "T8"};
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const TargetId t = ik.tasks().addPose(frames[i], {.weight = 0.5 + i}, {.weight = 2.0 - 0.3 * i});
      ik.tasks().setPosition(t, Vector3d(0.3 * i, -0.2, 1.0));
      ik.tasks().setOrientation(t, so3::exp(Vector3d(0.4, -1.0 + 0.5 * i, 2.0)));
    }
    InstantaneousIkProblem& p = ik.problem();
    p.refreshCentre();
    const int nv = p.numVariables();
    std::uniform_real_distribution<double> u(-0.4, 0.4);
    VectorXd x(nv);
    for (int i = 0; i < nv; ++i) x[i] = u(rng);
    VectorXd g(nv), fd(nv);
    p.evaluate(x);
    p.gradient(g);
    const double h = 1e-6;
    for (int i = 0; i < nv; ++i) {
      VectorXd xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      fd[i] = (costAt(p, xp) - costAt(p, xm)) / (2.0 * h);
    }
    EXPECT_LT((g - fd).cwiseAbs().maxCoeff(), 1e-7 * std::max(1.0, g.cwiseAbs().maxCoeff())) << m.name();
    // derivatives() gives the same gradient.
    p.evaluate(x);
    MatrixXd H = MatrixXd::Zero(nv, nv);
    VectorXd g2(nv);
    p.derivatives(H, g2);
    EXPECT_LT((g2 - g).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, g.cwiseAbs().maxCoeff()));
  }
}

TEST(InstantaneousIkProblem, GaussNewtonHessianIsTheHessianAtAZeroResidualPoint) {
  // Where every residual vanishes, ∇²F = JᵀWJ exactly: compare with finite differences of the
  // gradient, in a chart whose centre is rotated away from the solution (x* has x_ω ≠ 0).
  const Model m = makeHuman48();
  std::mt19937_64 rng(4);
  const Configuration truth = randomConfiguration(m, rng);
  InstantaneousIk ik(m);
  Targets targets(ik, {"Head", "RightHand", "LeftFoot", "LeftHand", "RightToe", "T8"}, "RightHandCOM");
  targets.set(ik, truth);
  const Vector3d phi(0.3, -0.5, 0.2);
  Configuration centre = truth;
  centre.base_rotation = so3::exp(-phi) * truth.base_rotation;
  centre.base_position -= Vector3d(0.1, 0.2, -0.1);
  ik.setState(centre);
  InstantaneousIkProblem& p = ik.problem();
  const int nv = p.numVariables();
  VectorXd xs = VectorXd::Zero(nv);
  xs.head<3>() = Vector3d(0.1, 0.2, -0.1);
  xs.segment<3>(3) = phi;
  EXPECT_LT(p.evaluate(xs).cost, 1e-24);
  MatrixXd H = MatrixXd::Zero(nv, nv);
  VectorXd g(nv);
  p.derivatives(H, g);
  MatrixXd Hfull = H.selfadjointView<Eigen::Lower>();
  MatrixXd fd(nv, nv);
  const double h = 1e-6;
  VectorXd gp(nv), gm(nv);
  for (int i = 0; i < nv; ++i) {
    VectorXd xp = xs, xm = xs;
    xp[i] += h;
    xm[i] -= h;
    p.evaluate(xp);
    p.gradient(gp);
    p.evaluate(xm);
    p.gradient(gm);
    fd.col(i) = (gp - gm) / (2.0 * h);
  }
  EXPECT_LT((Hfull - fd).cwiseAbs().maxCoeff(), 1e-6 * std::max(1.0, Hfull.cwiseAbs().maxCoeff()));
  // Entries outside pattern() are structurally zero.
  MatrixXd mask = MatrixXd::Zero(nv, nv);
  for (const auto& [r, c] : p.pattern()) mask(r, c) = mask(c, r) = 1.0;
  EXPECT_LT((fd.array() * (1.0 - mask.array())).abs().maxCoeff(), 1e-7);
}

// ---- ground truth ---------------------------------------------------------------------------

TEST(InstantaneousIk, Human66RecoversGroundTruthNative) {
  const Model m = makeHuman66();
  const RecoveryStats s =
      recover(m, withBackend(InstantaneousIkBackend::Native), humanSegmentNames(), "Pelvis", 20, 11);
  expectRecovered(s, 1e-5);
  EXPECT_LE(s.max_iterations, 10);
}

TEST(InstantaneousIk, Human48RecoversGroundTruthWithinItsLimitsNative) {
  const Model m = makeHuman48();
  const RecoveryStats s =
      recover(m, withBackend(InstantaneousIkBackend::Native), humanSegmentNames(), "Pelvis", 20, 12);
  expectRecovered(s, 1e-5);
}

TEST(InstantaneousIk, ICubWithCoupledRowsRecoversGroundTruthNative) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  ASSERT_EQ(m.linearConstraints().size(), 14u);
  const RecoveryStats s = recover(m, withBackend(InstantaneousIkBackend::Native), m.linkNames(), "root_link", 20, 13);
  expectRecovered(s, 1e-5);
}

TEST(InstantaneousIk, Human66RecoversGroundTruthIpopt) {
  const Model m = makeHuman66();
  const RecoveryStats s = recover(m, withBackend(InstantaneousIkBackend::Ipopt), humanSegmentNames(), "Pelvis", 5, 11);
  expectRecovered(s, 1e-5);
}

TEST(InstantaneousIk, Human48RecoversGroundTruthWithinItsLimitsIpopt) {
  const Model m = makeHuman48();
  const RecoveryStats s = recover(m, withBackend(InstantaneousIkBackend::Ipopt), humanSegmentNames(), "Pelvis", 5, 12);
  expectRecovered(s, 1e-5);
}

TEST(InstantaneousIk, ICubWithCoupledRowsRecoversGroundTruthIpopt) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  const RecoveryStats s = recover(m, withBackend(InstantaneousIkBackend::Ipopt), m.linkNames(), "root_link", 5, 13);
  expectRecovered(s, 1e-5);
}

TEST(InstantaneousIk, IpoptWithLimitedMemoryHessianGetsCloseButSlowly) {
  // L-BFGS instead of the Gauss–Newton Hessian: ~100 iterations where Gauss–Newton needs ~5,
  // and on ill-conditioned cases not to the 1e-6 rad tolerance within 1000 iterations, with a
  // path that depends on round-off (case 2 here stops at F = 3e-7 in the -O3 build and at
  // F = 5e-3 in the sanitizer build, from F = 8.5). Only a clear decrease is asserted.
  const Model m = makeHuman48();
  InstantaneousIkOptions o = withBackend(InstantaneousIkBackend::Ipopt);
  o.ipopt_hessian = IpoptHessian::LimitedMemory;
  o.max_iterations = 1000;
  InstantaneousIk ik = makeInstantaneousIk(m, o);
  Targets targets(ik, humanSegmentNames(), "Pelvis");
  std::mt19937_64 rng(14);
  for (int c = 0; c < 2; ++c) {
    const Configuration truth = feasibleRandom(m, rng);
    ik.setState(perturbed(m, truth, rng, 0.1, 0.3));
    targets.set(ik, truth);
    const SolveResult r = ik.solve();
    EXPECT_LT(r.cost, 1e-2 * r.initial_cost);
    EXPECT_GT(r.iterations, 20);
    EXPECT_LE(r.limit_violation, 1e-9);
  }
}

TEST(InstantaneousIk, SineResidualHasASpuriousMinimumAtPiTheChordalOneDoesNot) {
  // SPEC §3 read literally (½ sin²θ) descends towards θ = π from any θ > π/2: the default
  // chordal term (1 − cos θ) has its only minimum at θ = 0.
  const Model m = makeHuman66();
  for (OrientationResidual residual : {OrientationResidual::Chordal, OrientationResidual::Sine}) {
    InstantaneousIkOptions o;
    o.orientation_residual = residual;
    o.max_iterations = 200;
    InstantaneousIk ik(m, o);
    const TargetId t = ik.tasks().addOrientation("Head");
    ik.tasks().setOrientation(t, so3::exp(2.6 * Vector3d(1.0, 2.0, -0.5).normalized()));
    const SolveResult r = ik.solve();
    if (residual == OrientationResidual::Chordal) {
      EXPECT_EQ(r.status, ik::Status::Converged);
      EXPECT_LT(ik.mnte(), 1e-12);
    } else {
      EXPECT_EQ(r.status, ik::Status::Stationary) << toString(r.status);
      EXPECT_NEAR(r.max_orientation_error, M_PI, 1e-3);
      EXPECT_LT(r.cost, 1e-12);  // sin²θ vanishes there
    }
  }
}

// ---- limits, rows, unreachable targets ------------------------------------------------------

/// Targets from a configuration pushed `beyond` rad past the limits of every limited joint.
Configuration outOfReach(const Model& m, std::mt19937_64& rng, double beyond) {
  Configuration q = feasibleRandom(m, rng);
  std::bernoulli_distribution upper(0.5);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    if (std::isfinite(lo) && std::isfinite(hi)) q.joints[j] = upper(rng) ? hi + beyond : lo - beyond;
  }
  return q;
}

struct OutOfReachOutcome {
  SolveResult result;
  Configuration q;
};

/// Solves for the targets of configuration `far` from `start`.
OutOfReachOutcome solveFrom(const Model& m, InstantaneousIkBackend backend, const std::vector<std::string>& frames,
                            const std::string& root, const Configuration& far, const Configuration& start) {
  InstantaneousIkOptions o = withBackend(backend);
  o.max_iterations = 500;
  InstantaneousIk ik = makeInstantaneousIk(m, o);
  Targets targets(ik, frames, root);
  ik.setState(start);
  targets.set(ik, far);
  OutOfReachOutcome out{ik.solve(), ik.state()};
  return out;
}

/// Targets 0.1 rad past the limits of every limited joint, solved by both backends from the
/// same start (the target configuration clamped into the limits, or a feasible one when the
/// clamped one breaks a row). Both must end at a constrained minimum of the same cost, and
/// neither may improve on the other's (each solution is a minimum for the other solver).
/// compare_states: also require the same configuration (when the minimum is isolated).
void expectSameOptimum(const Model& m, const std::vector<std::string>& frames, const std::string& root,
                       std::uint64_t seed, bool compare_states) {
  std::mt19937_64 rng(seed);
  const Configuration far = outOfReach(m, rng, 0.1);
  Configuration q0 = far;
  for (int j = 0; j < m.numJoints(); ++j)
    q0.joints[j] = std::clamp(far.joints[j], m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  if (linearRowViolation(m, q0) > 0.0) q0.joints = feasibleRandom(m, rng).joints;
  const OutOfReachOutcome native = solveFrom(m, InstantaneousIkBackend::Native, frames, root, far, q0);
  const OutOfReachOutcome ipopt = solveFrom(m, InstantaneousIkBackend::Ipopt, frames, root, far, q0);
  EXPECT_EQ(native.result.status, ik::Status::Stationary) << toString(native.result.status);
  EXPECT_EQ(ipopt.result.status, ik::Status::Stationary) << toString(ipopt.result.status);
  EXPECT_GT(native.result.cost, 1e-3);  // really out of reach
  EXPECT_NEAR(native.result.cost, ipopt.result.cost, 1e-9 * native.result.cost);
  const OutOfReachOutcome native_from_ipopt = solveFrom(m, InstantaneousIkBackend::Native, frames, root, far, ipopt.q);
  const OutOfReachOutcome ipopt_from_native = solveFrom(m, InstantaneousIkBackend::Ipopt, frames, root, far, native.q);
  EXPECT_GT(native_from_ipopt.result.cost, ipopt.result.cost * (1.0 - 1e-9));
  EXPECT_GT(ipopt_from_native.result.cost, native.result.cost * (1.0 - 1e-9));
  if (compare_states) {
    EXPECT_LT(jointError(native.q, ipopt.q), 1e-5);
    EXPECT_LT((native.q.base_position - ipopt.q.base_position).norm(), 1e-5);
    EXPECT_LT(so3::log(native.q.base_rotation * ipopt.q.base_rotation.transpose()).norm(), 1e-5);
  }
  for (const OutOfReachOutcome* o : {&native, &ipopt, &native_from_ipopt, &ipopt_from_native}) {
    EXPECT_LE(o->result.limit_violation, 1e-9);
    EXPECT_LE(o->result.row_violation, 1e-9);
    EXPECT_LE(positionLimitViolation(m, o->q), 1e-9);
    EXPECT_LE(linearRowViolation(m, o->q), 1e-9);
  }
}

TEST(InstantaneousIk, NativeAndIpoptAgreeOnAnOutOfReachOptimumHuman48) {
  // The two neck joints (2 DoF for a 3-DoF target) have a valley of equal cost here: compare
  // costs and cross-stationarity, not configurations.
  expectSameOptimum(makeHuman48(), humanSegmentNames(), "Pelvis", 21, /*compare_states=*/false);
}

TEST(InstantaneousIk, NativeAndIpoptAgreeOnAnOutOfReachOptimumICub) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  expectSameOptimum(m, m.linkNames(), "root_link", 22, /*compare_states=*/true);
}

TEST(InstantaneousIk, AStartOutsideTheLimitsAndRowsEndsInside) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  for (InstantaneousIkBackend backend : {InstantaneousIkBackend::Native, InstantaneousIkBackend::Ipopt}) {
    InstantaneousIk ik = makeInstantaneousIk(m, withBackend(backend));
    Targets targets(ik, m.linkNames(), "root_link");
    std::mt19937_64 rng(23);
    const Configuration truth = feasibleRandom(m, rng);
    Configuration start(m);  // the zero pose violates row 4 (roll ≥ 0.4611) and the elbow limits
    ASSERT_GT(linearRowViolation(m, start) + positionLimitViolation(m, start), 0.1);
    ik.setState(start);
    targets.set(ik, truth);
    const SolveResult r = ik.solve();
    EXPECT_LE(r.limit_violation, 1e-9);
    EXPECT_LE(r.row_violation, 1e-9);
    EXPECT_LT(r.cost, r.initial_cost);
  }
}

TEST(InstantaneousIk, AStateOutsideALimitReturnsInsideEvenWhenTheTargetWantsItThere) {
  const Model m = makeHuman48();
  for (InstantaneousIkBackend backend : {InstantaneousIkBackend::Native, InstantaneousIkBackend::Ipopt}) {
    InstantaneousIk ik = makeInstantaneousIk(m, withBackend(backend));
    Configuration q(m);
    const JointId knee = m.jointId("jRightKnee_roty");  // limits [0°, 135°]
    q.joints[knee.value] = -0.3;
    ik.setState(q);
    Data d(m);
    forwardKinematics(m, d, q);
    for (const char* segment : {"RightUpperLeg", "RightLowerLeg"}) {  // satisfied at −0.3 only
      const TargetId id = ik.tasks().addOrientation(segment);
      ik.tasks().setOrientation(id, updateFramePlacement(m, d, m.frameId(segment)).R);
    }
    const SolveResult r = ik.solve();
    EXPECT_EQ(r.status, ik::Status::Stationary) << toString(r.status);
    EXPECT_LE(r.limit_violation, 1e-9);
    EXPECT_NEAR(ik.state().joints[knee.value], 0.0, 1e-7);  // at the limit (Ipopt: just inside)
    EXPECT_GT(r.cost, 1e-3);
  }
}

// ---- tracking, iteration cap ----------------------------------------------------------------

TEST(InstantaneousIk, TracksASmoothMotionAt100HzWithFewIterations) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    for (InstantaneousIkBackend backend : {InstantaneousIkBackend::Native, InstantaneousIkBackend::Ipopt}) {
      InstantaneousIk ik = makeInstantaneousIk(m, withBackend(backend));
      Targets targets(ik, humanSegmentNames(), "Pelvis");
      ik.setState(smoothMotion(m, 0.0));
      const int frames = backend == InstantaneousIkBackend::Native ? 300 : 50;
      int worst_iterations = 0, converged = 0;
      double worst_joint = 0.0;
      for (int k = 1; k <= frames; ++k) {
        const Configuration truth = smoothMotion(m, 0.01 * k);
        targets.set(ik, truth);
        const SolveResult r = ik.solve();
        converged += r.status == ik::Status::Converged;
        worst_iterations = std::max(worst_iterations, r.iterations);
        worst_joint = std::max(worst_joint, jointError(ik.state(), truth));
        ASSERT_LE(r.limit_violation, 1e-9);
      }
      EXPECT_EQ(converged, frames) << m.name();
      EXPECT_LT(worst_joint, 1e-5) << m.name();
      if (backend == InstantaneousIkBackend::Native) {
        EXPECT_LE(worst_iterations, 4) << m.name();
      }
    }
  }
}

TEST(InstantaneousIk, IterationCapIsReported) {
  const Model m = makeHuman66();
  for (InstantaneousIkBackend backend : {InstantaneousIkBackend::Native, InstantaneousIkBackend::Ipopt}) {
    InstantaneousIkOptions o = withBackend(backend);
    o.max_iterations = 1;
    InstantaneousIk ik = makeInstantaneousIk(m, o);
    Targets targets(ik, humanSegmentNames(), "Pelvis");
    std::mt19937_64 rng(31);
    const Configuration truth = feasibleRandom(m, rng);
    ik.setState(perturbed(m, truth, rng, 0.2, 0.3));
    targets.set(ik, truth);
    const SolveResult r = ik.solve();
    EXPECT_EQ(r.status, ik::Status::IterationLimit);
    EXPECT_EQ(r.iterations, 1);
    EXPECT_LT(r.cost, r.initial_cost);
    o.max_iterations = 50;
    ik.setOptions(o);
    EXPECT_EQ(ik.solve().status, ik::Status::Converged);
  }
}

TEST(InstantaneousIk, SatisfiedTargetsNeedNoIteration) {
  const Model m = makeHuman48();
  InstantaneousIk ik(m);
  Targets targets(ik, humanSegmentNames(), "Pelvis");
  std::mt19937_64 rng(32);
  const Configuration q = feasibleRandom(m, rng);
  ik.setState(q);
  targets.set(ik, q);
  const SolveResult r = ik.solve();
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(ik.state().joints, q.joints);
  EXPECT_LT(ik.mnte(), 1e-20);
}

// ---- allocation, API ------------------------------------------------------------------------

long allocationsOfOneSolve(const Model& m) {
  InstantaneousIk ik(m);
  return testing::allocationsOfWarmSolve(ik, [](const SolveResult& r) { EXPECT_GE(r.iterations, 1); });
}

TEST(InstantaneousIk, NativeSolveDoesNotAllocate) {
  EXPECT_EQ(allocationsOfOneSolve(makeHuman48()), 0);  // TreeBoxSolver
  // With a linear row: the dense Goldfarb–Idnani solver.
  ModelBuilder b(makeHuman48());
  b.addLinearConstraint("knees", {{"jRightKnee_roty", 1.0}, {"jLeftKnee_roty", 1.0}}, -kInf, 2.0);
  EXPECT_EQ(allocationsOfOneSolve(b.build()), 0);
}

TEST(InstantaneousIk, TargetsCanBeDisabledRemovedAndReweighted) {
  const Model m = makeHuman66();
  InstantaneousIk ik(m);
  const TargetId head = ik.tasks().addOrientation("Head");
  const TargetId hand = ik.tasks().addOrientation("RightHand");
  ik.tasks().setOrientation(head, so3::exp(Vector3d(0, 0, 1)));
  ik.tasks().setOrientation(hand, so3::exp(Vector3d(0.5, 0, 0)));
  ik.tasks().setEnabled(hand, false);
  EXPECT_EQ(ik.solve().status, ik::Status::Converged);
  EXPECT_EQ(ik.state().joints[m.jointId("jRightWrist_rotx").value], 0.0);  // disabled: untouched
  ik.tasks().setEnabled(hand, true);
  ik.tasks().setWeights(hand, 0.0, 2.0);
  ik.tasks().remove(head);
  EXPECT_EQ(ik.tasks().size(), 1);
  EXPECT_EQ(ik.tasks().type(hand), TargetType::Orientation);
  EXPECT_EQ(ik.tasks().frame(hand), m.frameId("RightHand"));
  EXPECT_THROW(ik.tasks().setOrientation(head, Matrix3d::Identity()), InvalidArgument);
  EXPECT_EQ(ik.solve().status, ik::Status::Converged);
  EXPECT_LT(ik.mnte(), 1e-12);
}

TEST(InstantaneousIk, BadArgumentsThrow) {
  const Model m = makeHuman66();
  InstantaneousIk ik(m);
  const TargetId o = ik.tasks().addOrientation("Head");
  const TargetId p = ik.tasks().addPosition("Pelvis");
  EXPECT_THROW(ik.tasks().addOrientation("NoSuchFrame"), InvalidArgument);
  EXPECT_THROW(ik.tasks().addPosition("Head", {.weight = -1.0}), InvalidArgument);
  EXPECT_THROW(ik.tasks().addPose("Head", {.weight = 1.0}, {.weight = std::nan("")}), InvalidArgument);
  EXPECT_THROW(ik.tasks().setWeights(o, 1.0, kInf), InvalidArgument);
  EXPECT_THROW(ik.tasks().setOrientation(o, 2.0 * Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setOrientation(o, -Matrix3d::Identity()), InvalidArgument);  // det < 0
  EXPECT_THROW(ik.tasks().setPosition(o, Vector3d::Zero()), InvalidArgument);          // orientation-only
  EXPECT_THROW(ik.tasks().setOrientation(p, Matrix3d::Identity()), InvalidArgument);   // position-only
  EXPECT_THROW(ik.tasks().setPosition(p, Vector3d(0, std::nan(""), 0)), InvalidArgument);
  EXPECT_THROW(ik.tasks().setPosition(TargetId(7), Vector3d::Zero()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setEnabled(TargetId(), true), InvalidArgument);
  Configuration bad(m);
  bad.joints.resize(3);
  EXPECT_THROW(ik.setState(bad), InvalidArgument);
  Configuration nan(m);
  nan.base_position.x() = std::nan("");
  EXPECT_THROW(ik.setState(nan), InvalidArgument);
  InstantaneousIkOptions opts;
  opts.max_iterations = -1;
  EXPECT_THROW(ik.setOptions(opts), InvalidArgument);
  opts = {};
  opts.orientation_tolerance = -1e-6;
  EXPECT_THROW(InstantaneousIk(m, opts), InvalidArgument);
  opts = {};
  opts.min_damping = 0.0;
  EXPECT_THROW(InstantaneousIk(m, opts), InvalidArgument);
  opts = {};
  opts.initial_damping = 1e20;  // above max_damping
  EXPECT_THROW(InstantaneousIk(m, opts), InvalidArgument);
  // The Ipopt backend needs kinetrack::ik_ipopt's solver.
  EXPECT_THROW(InstantaneousIk(m, withBackend(InstantaneousIkBackend::Ipopt)), InvalidArgument);
  EXPECT_THROW(ik.setOptions(withBackend(InstantaneousIkBackend::Ipopt)), InvalidArgument);
  EXPECT_NO_THROW(makeInstantaneousIk(m, withBackend(InstantaneousIkBackend::Ipopt)));
  MatrixXd H(3, 3);
  VectorXd g(3);
  EXPECT_THROW(ik.problem().derivatives(H, g), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
