// Marker IK (ik/marker_ik.hpp): ground truth recovered from exact markers on human48 (floating
// base) and on a fixed-base model with a function-driven knee, first-order optimality checked by
// finite differences of the objective when markers are noisy, bounds and locks never violated,
// missing markers dropped, coordinate tasks and couplers (exact and penalty), warm-started
// tracking of a smooth motion, no allocation per solve, bad arguments.
#include "kinetrack/ik/marker_ik.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// human48 with three markers on every link that has a child or is a chain end (offsets 5–12 cm).
std::shared_ptr<const Model> markedHuman(std::vector<std::string>& names, std::uint64_t seed = 3) {
  const Model base = makeHuman48();
  ModelBuilder b(base);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.12, 0.12);
  for (int l = 0; l < base.numLinks(); ++l) {
    for (int k = 0; k < 3; ++k) {
      const std::string name = base.linkName(LinkId(l)) + "_m" + std::to_string(k);
      b.addFrame(name, base.linkName(LinkId(l)), Transform{Matrix3d::Identity(), randomVector3(u, rng)});
      names.push_back(name);
    }
  }
  return std::make_shared<const Model>(b.build());
}

std::vector<Vector3d> markersAt(const Model& m, const Configuration& q, const std::vector<std::string>& names) {
  Data d(m);
  forwardKinematics(m, d, q);
  std::vector<Vector3d> out;
  for (const auto& n : names) out.push_back(frameOrigin(m, d, m.frameId(n)));
  return out;
}

Configuration randomWithin(const Model& m, std::mt19937_64& rng) {
  RandomConfigurationOptions o;
  o.unbounded_range = 1.0;
  return randomConfiguration(m, rng, o);
}

TEST(MarkerIk, RecoversExactMarkersOnHuman48) {
  std::vector<std::string> names;
  const auto model = markedHuman(names);
  ik::MarkerIk ik(model);
  for (const auto& n : names) ik.addMarker(n, 1.0);
  ik.setBounds(model->lowerPositionLimits(), model->upperPositionLimits());
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 10; ++trial) {
    const Configuration truth = randomWithin(*model, rng);
    const std::vector<Vector3d> obs = markersAt(*model, truth, names);
    // Start near the truth (a warm start, as frame to frame): 0.2 rad and 5 cm away.
    Configuration start = truth;
    std::uniform_real_distribution<double> u(-0.2, 0.2);
    for (int j = 0; j < model->numJoints(); ++j)
      start.joints[j] =
          std::clamp(truth.joints[j] + u(rng), model->lowerPositionLimits()[j], model->upperPositionLimits()[j]);
    start.base_position += Vector3d(0.05, -0.03, 0.02);
    start.base_rotation = so3::exp(Vector3d(0.1, -0.05, 0.08)) * start.base_rotation;
    ik.setState(start);
    const ik::MarkerIkResult r = ik.solve(obs);
    EXPECT_EQ(r.status, ik::Status::Converged) << trial;
    EXPECT_LT(r.max_error, 1e-7) << trial << " iterations " << r.iterations;
    EXPECT_EQ(r.markers_used, static_cast<int>(names.size()));
    EXPECT_LE(r.limit_violation, 1e-12);
    EXPECT_NEAR(r.rms_error, std::sqrt(r.total_squared_error / r.markers_used), 1e-15);
    // data().frame holds every marker frame at the solution (an independent forward pass).
    const std::vector<Vector3d> solved = markersAt(*model, ik.state(), names);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const FrameId f = model->frameId(names[i]);
      EXPECT_LT((ik.data().frame[static_cast<std::size_t>(f.value)].p - solved[i]).norm(), 1e-12) << names[i];
      EXPECT_LT((ik.modelMarker(static_cast<int>(i)) - solved[i]).norm(), 1e-12) << names[i];
    }
  }
  // … and after setState, before any solve.
  const Configuration q = randomWithin(*model, rng);
  ik.setState(q);
  const std::vector<Vector3d> at_q = markersAt(*model, q, names);
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_LT((ik.data().frame[static_cast<std::size_t>(model->frameId(names[i]).value)].p - at_q[i]).norm(), 1e-12);
}

// Noisy markers: the solution is a stationary point of the objective — every one-sided finite
// difference along a coordinate that is not at a bound is ≥ −tolerance, and the central
// difference is ≈ 0.
TEST(MarkerIk, NoisyMarkersGiveAStationaryPoint) {
  std::vector<std::string> names;
  const auto model = markedHuman(names, 5);
  ik::MarkerIk ik(model, {.accuracy = 1e-9});
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> w(0.1, 10.0);
  std::vector<double> weights;
  for (const auto& n : names) {
    weights.push_back(w(rng));
    ik.addMarker(n, weights.back());
  }
  const Configuration truth = randomWithin(*model, rng);
  std::vector<Vector3d> obs = markersAt(*model, truth, names);
  std::normal_distribution<double> noise(0.0, 0.01);
  for (auto& p : obs) p += randomVector3(noise, rng);
  obs[4].setConstant(kNaN);  // missing
  ik.setState(truth);
  const ik::MarkerIkResult r = ik.solve(obs);
  EXPECT_EQ(r.status, ik::Status::Converged);
  EXPECT_EQ(r.markers_used, static_cast<int>(names.size()) - 1);
  EXPECT_TRUE(std::isnan(ik.markerError(4)));
  auto cost = [&](const Configuration& q) {
    const std::vector<Vector3d> m = markersAt(*model, q, names);
    double F = 0.0;
    for (std::size_t i = 0; i < m.size(); ++i)
      if (obs[i].allFinite()) F += weights[i] * (m[i] - obs[i]).squaredNorm();
    return F;
  };
  const Configuration q = ik.state();
  EXPECT_NEAR(cost(q), r.cost, 1e-12 * r.cost);
  const double h = 1e-5;
  VectorXd nu = VectorXd::Zero(model->nv());
  for (int c = 0; c < model->nv(); ++c) {
    Configuration qp, qm;
    nu.setZero();
    nu[c] = h;
    integrate(*model, q, nu, 1.0, qp);
    integrate(*model, q, nu, -1.0, qm);
    const double grad = (cost(qp) - cost(qm)) / (2 * h);
    EXPECT_LT(std::abs(grad), 1e-5 * (1.0 + r.cost)) << "velocity coordinate " << c;
  }
}

TEST(MarkerIk, BoundsAndLocksHoldAndCoordinateTasksPull) {
  std::vector<std::string> names;
  const auto model = markedHuman(names, 7);
  ik::MarkerIk ik(model);
  for (const auto& n : names) ik.addMarker(n, 1.0);
  // Truth far outside narrowed bounds: the solution sits on them.
  VectorXd lo = model->lowerPositionLimits(), hi = model->upperPositionLimits();
  for (int j = 0; j < model->numJoints(); ++j) {
    lo[j] = std::max(lo[j], -0.1);
    hi[j] = std::min(hi[j], 0.1);
  }
  ik.setBounds(lo, hi);
  ik.lock(model->jointName(JointId(3)), 0.05);
  std::mt19937_64 rng(9);
  const Configuration truth = randomWithin(*model, rng);
  ik.setState(Configuration(*model));
  const ik::MarkerIkResult r = ik.solve(markersAt(*model, truth, names));
  EXPECT_NE(r.status, ik::Status::Failed);
  for (int j = 0; j < model->numJoints(); ++j) {
    EXPECT_GE(ik.state().joints[j], ik.lowerBounds()[j] - 1e-12);
    EXPECT_LE(ik.state().joints[j], ik.upperBounds()[j] + 1e-12);
  }
  EXPECT_EQ(ik.state().joints[3], 0.05);
  EXPECT_LE(r.limit_violation, 1e-12);

  // A coordinate task alone (all markers missing) moves its joint to the value.
  ik::MarkerIk task_ik(model);
  for (const auto& n : names) task_ik.addMarker(n, 1.0);
  const int t = task_ik.addCoordinateTask(model->jointName(JointId(5)), 1000.0);
  EXPECT_EQ(t, 0);
  std::vector<Vector3d> none(names.size(), Vector3d::Constant(kNaN));
  const std::vector<double> value = {0.3};
  task_ik.setState(Configuration(*model));
  const ik::MarkerIkResult rt = task_ik.solve(none, value);
  EXPECT_EQ(rt.markers_used, 0);
  EXPECT_NEAR(task_ik.state().joints[5], 0.3, 1e-9);
  // A NaN task value switches the task off for that frame: nothing to fit, nothing moves.
  const std::vector<double> off = {kNaN};
  const Configuration before = task_ik.state();
  const ik::MarkerIkResult ro = task_ik.solve(none, off);
  EXPECT_EQ(ro.status, ik::Status::Converged);
  EXPECT_EQ(task_ik.state().joints, before.joints);
}

// A fixed-base leg whose knee is an OpenSim-style function-driven joint and a patella-like
// coordinate coupled to the knee angle by a spline.
std::shared_ptr<const Model> couplerLeg() {
  ModelBuilder b("leg", "ground", BaseType::Fixed);
  JointSpec hip;
  hip.name = "hip";
  hip.parent = "ground";
  hip.child = "femur";
  hip.axis = Vector3d::UnitZ();
  hip.placement.p = Vector3d(0.0, 1.0, 0.0);
  b.addJoint(hip);
  JointSpec add = hip;
  add.name = "hip_add";
  add.parent = "femur";
  add.child = "femur2";
  add.axis = Vector3d::UnitX();
  add.placement = Transform{};
  b.addJoint(add);
  JointSpec knee;
  knee.name = "knee";
  knee.type = JointType::Custom;
  knee.parent = "femur2";
  knee.child = "tibia";
  knee.placement.p = Vector3d(0.0, -0.4, 0.0);
  knee.motion.translations.push_back(
      {Vector3d::UnitX(), ScalarFunction::simmSpline({-2.0, -1.0, 0.0, 0.5}, {-0.01, 0.005, 0.0, -0.004})});
  knee.motion.rotations.push_back({Vector3d::UnitZ(), ScalarFunction::linear(1.0, 0.0)});
  b.addJoint(knee);
  JointSpec pat;
  pat.name = "patella";
  pat.type = JointType::Prismatic;
  pat.parent = "femur2";
  pat.child = "patella_body";
  pat.axis = Vector3d::UnitY();
  pat.placement.p = Vector3d(0.05, -0.38, 0.0);
  b.addJoint(pat);
  const Transform id;
  b.addFrame("thigh_a", "femur", Transform{Matrix3d::Identity(), Vector3d(0.05, -0.1, 0.02)});
  b.addFrame("thigh_b", "femur2", Transform{Matrix3d::Identity(), Vector3d(-0.03, -0.25, 0.05)});
  b.addFrame("thigh_c", "femur2", Transform{Matrix3d::Identity(), Vector3d(0.02, -0.2, -0.06)});
  b.addFrame("shank_a", "tibia", Transform{Matrix3d::Identity(), Vector3d(0.04, -0.1, 0.0)});
  b.addFrame("shank_b", "tibia", Transform{Matrix3d::Identity(), Vector3d(0.0, -0.4, 0.03)});
  b.addFrame("pat_m", "patella_body", Transform{Matrix3d::Identity(), Vector3d(0.02, 0.0, 0.0)});
  return std::make_shared<const Model>(b.build());
}

TEST(MarkerIk, CouplersHoldExactlyOrAsPenalty) {
  const auto model = couplerLeg();
  const std::vector<std::string> names = {"thigh_a", "thigh_b", "thigh_c", "shank_a", "shank_b"};
  const ScalarFunction f = ScalarFunction::simmSpline({-2.0, -1.0, 0.0, 0.5}, {0.03, 0.02, 0.0, -0.01});
  for (double weight : {kInf, 20.0}) {
    ik::MarkerIk ik(model, {.constraint_weight = weight});
    for (const auto& n : names) ik.addMarker(n, 1.0);
    ik.addCoupler("patella_coupler", "patella", "knee", f);
    Configuration truth(*model);
    truth.joints << 0.4, 0.1, -1.3, f.value(-1.3);
    const std::vector<Vector3d> obs = markersAt(*model, truth, names);
    ik.setState(Configuration(*model));
    const ik::MarkerIkResult r = ik.solve(obs);
    EXPECT_EQ(r.status, ik::Status::Converged) << weight;
    EXPECT_LT(r.max_error, 1e-7) << weight;
    EXPECT_LT(r.coupler_violation, std::isinf(weight) ? 1e-10 : 1e-6) << weight;
    EXPECT_NEAR(ik.state().joints[3], f.value(-1.3), 1e-6);
  }
}

TEST(MarkerIk, TracksASmoothMotionWarmStartedWithoutAllocating) {
  std::vector<std::string> names;
  const auto model = markedHuman(names, 13);
  ik::MarkerIk ik(model);
  for (const auto& n : names) ik.addMarker(n, 1.0);
  std::mt19937_64 rng(4);
  const Configuration a = randomWithin(*model, rng), b = randomWithin(*model, rng);
  ik.setState(a);
  std::vector<std::vector<Vector3d>> frames;
  const int N = 60;
  for (int k = 0; k <= N; ++k) {
    Configuration q = a;
    const double t = 0.5 - 0.5 * std::cos(M_PI * k / N);
    q.joints = (1 - t) * a.joints + t * b.joints;
    q.base_position = (1 - t) * a.base_position + t * b.base_position;
    frames.push_back(markersAt(*model, q, names));
  }
  (void)ik.solve(frames[0]);  // first solve sizes the scratch
  int worst_iterations = 0;
  long allocations = 0;
  for (int k = 1; k <= N; ++k) {
    testing::AllocationCounter counter;
    const ik::MarkerIkResult r = ik.solve(frames[static_cast<std::size_t>(k)]);
    allocations += counter.count();
    EXPECT_LT(r.max_error, 1e-6) << k;
    worst_iterations = std::max(worst_iterations, r.iterations);
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_LE(worst_iterations, 6);
}

TEST(MarkerIk, RejectsBadArguments) {
  std::vector<std::string> names;
  const auto model = markedHuman(names);
  ik::MarkerIk ik(model);
  EXPECT_THROW(ik.addMarker("no_such_frame"), InvalidArgument);
  EXPECT_THROW(ik.addMarker(names[0], -1.0), InvalidArgument);
  EXPECT_THROW(ik.addMarker(names[0], kNaN), InvalidArgument);
  EXPECT_THROW(ik.addCoordinateTask("no_such_joint"), InvalidArgument);
  ik.addMarker(names[0]);
  EXPECT_THROW(ik.solve(std::vector<Vector3d>(2)), InvalidArgument);
  EXPECT_THROW(ik.solve(std::vector<Vector3d>(1), std::vector<double>(3)), InvalidArgument);
  VectorXd lo = VectorXd::Zero(model->numJoints()), hi = lo;
  lo[0] = 1.0;
  EXPECT_THROW(ik.setBounds(lo, hi), InvalidArgument);
  EXPECT_THROW(ik.setBounds(VectorXd::Zero(2), VectorXd::Zero(2)), InvalidArgument);
  EXPECT_THROW(ik.lock("no_such_joint", 0.0), InvalidArgument);
  EXPECT_THROW(ik.setOptions({.accuracy = 0.0}), InvalidArgument);
  EXPECT_THROW(ik.setOptions({.max_iterations = 0}), InvalidArgument);
  Configuration bad(*model);
  bad.joints[0] = kNaN;
  EXPECT_THROW(ik.setState(bad), InvalidArgument);
  EXPECT_THROW(ik::MarkerIk(nullptr), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
