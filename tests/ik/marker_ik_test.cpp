// Marker IK (ik/marker_ik.hpp): ground truth recovered from exact markers on human48 (floating
// base) and on a fixed-base model with a function-driven knee, first-order optimality checked by
// finite differences of the objective when markers are noisy, bounds and locks never violated,
// missing markers dropped, coordinate tasks and couplers (exact and penalty), warm-started
// tracking of a smooth motion, no allocation per solve, bad arguments; the problem read from the
// solver's TaskSet and CoordinateBounds: solve() on the values set there equal to solve(markers,
// coordinates), disabled or removed markers equal to missing ones, a posture task equal to
// coordinate tasks, couplers switched between exact and penalty.
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
  for (const auto& n : names) ik.tasks().addMarker(n, 1.0);
  ik.bounds().clampAll();
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
      EXPECT_LT((ik.modelMarker(ik::MarkerTaskId(static_cast<int>(i))) - solved[i]).norm(), 1e-12) << names[i];
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
    ik.tasks().addMarker(n, weights.back());
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
  EXPECT_TRUE(std::isnan(ik.markerError(ik::MarkerTaskId(4))));
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
  for (const auto& n : names) ik.tasks().addMarker(n, 1.0);
  // Truth far outside narrowed bounds: the solution sits on them.
  VectorXd lo = model->lowerPositionLimits(), hi = model->upperPositionLimits();
  for (int j = 0; j < model->numJoints(); ++j) {
    lo[j] = std::max(lo[j], -0.1);
    hi[j] = std::min(hi[j], 0.1);
  }
  ik.bounds().set(lo, hi);
  ik.bounds().lock(model->jointName(JointId(3)), 0.05);
  std::mt19937_64 rng(9);
  const Configuration truth = randomWithin(*model, rng);
  ik.setState(Configuration(*model));
  const ik::MarkerIkResult r = ik.solve(markersAt(*model, truth, names));
  EXPECT_NE(r.status, ik::Status::Failed);
  for (int j = 0; j < model->numJoints(); ++j) {
    EXPECT_GE(ik.state().joints[j], ik.bounds().lower()[j] - 1e-12);
    EXPECT_LE(ik.state().joints[j], ik.bounds().upper()[j] + 1e-12);
  }
  EXPECT_EQ(ik.state().joints[3], 0.05);
  EXPECT_LE(r.limit_violation, 1e-12);

  // A coordinate task alone (all markers missing) moves its joint to the value.
  ik::MarkerIk task_ik(model);
  for (const auto& n : names) task_ik.tasks().addMarker(n, 1.0);
  const ik::CoordinateTaskId t = task_ik.tasks().addCoordinate(model->jointName(JointId(5)), 1000.0);
  EXPECT_EQ(t.value, 0);
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
    ik::MarkerIk ik(model);
    for (const auto& n : names) ik.tasks().addMarker(n, 1.0);
    ik.tasks().addCoupler("patella_coupler", "patella", "knee", f, weight);
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
  for (const auto& n : names) ik.tasks().addMarker(n, 1.0);
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

  // Back along the same motion through the TaskSet: measurements set one by one, a marker
  // re-weighted, dropped (weight 0) and disabled between frames, then solve() — still no allocation.
  ik::TaskSet& tasks = ik.tasks();
  const ik::MarkerTaskId some(5);
  allocations = 0;
  for (int k = N - 1; k >= 0; --k) {
    testing::AllocationCounter counter;
    const std::vector<Vector3d>& f = frames[static_cast<std::size_t>(k)];
    for (std::size_t i = 0; i < f.size(); ++i) tasks.setMeasurement(ik::MarkerTaskId(static_cast<int>(i)), f[i]);
    tasks.setWeight(some, k % 3 == 0 ? 0.0 : 1.0 + 0.1 * k);
    tasks.setEnabled(some, k % 4 != 1);
    const ik::MarkerIkResult r = ik.solve();
    allocations += counter.count();
    EXPECT_LT(r.max_error, 1e-6) << k;
    EXPECT_EQ(r.markers_used, static_cast<int>(names.size()) - (k % 3 == 0 || k % 4 == 1 ? 1 : 0)) << k;
  }
  EXPECT_EQ(allocations, 0);
}

void expectSameSolve(const ik::MarkerIk& a, const ik::MarkerIkResult& ra, const ik::MarkerIk& b,
                     const ik::MarkerIkResult& rb, const std::string& what) {
  EXPECT_EQ(a.state().joints, b.state().joints) << what;
  EXPECT_EQ(a.state().base_position, b.state().base_position) << what;
  EXPECT_EQ(a.state().base_rotation, b.state().base_rotation) << what;
  EXPECT_EQ(ra.iterations, rb.iterations) << what;
  EXPECT_EQ(ra.rejected_steps, rb.rejected_steps) << what;
  EXPECT_EQ(ra.cost, rb.cost) << what;
  EXPECT_EQ(ra.markers_used, rb.markers_used) << what;
  EXPECT_EQ(ra.rms_error, rb.rms_error) << what;
  EXPECT_EQ(ra.worst_marker, rb.worst_marker) << what;
  EXPECT_EQ(ra.coupler_violation, rb.coupler_violation) << what;
}

TEST(MarkerIk, SolvesOnTheValuesOfItsTaskSet) {
  std::vector<std::string> names;
  const auto model = markedHuman(names, 17);
  const std::string j5 = model->jointName(JointId(5));
  auto make = [&] {
    ik::MarkerIk ik(model);
    for (const auto& n : names) ik.tasks().addMarker(n, 1.0);
    ik.tasks().addCoordinate(j5, 10.0);
    ik.bounds().clampAll();
    return ik;
  };
  ik::MarkerIk a = make(), b = make();
  std::mt19937_64 rng(21);
  std::normal_distribution<double> noise(0.0, 0.005);
  const Configuration truth = randomWithin(*model, rng);
  std::vector<Vector3d> obs = markersAt(*model, truth, names);
  for (auto& p : obs) p += randomVector3(noise, rng);
  obs[3].setConstant(kNaN);
  a.setState(truth);
  b.setState(truth);

  // solve(markers, coordinates) writes the values into the TaskSet; solve() reads them there.
  const std::vector<double> values = {0.2};
  const ik::MarkerIkResult ra = a.solve(obs, values);
  for (std::size_t i = 0; i < obs.size(); ++i) b.tasks().setMeasurement(ik::MarkerTaskId(static_cast<int>(i)), obs[i]);
  b.tasks().setValue(ik::CoordinateTaskId(0), 0.2);
  const ik::MarkerIkResult rb = b.solve();
  expectSameSolve(a, ra, b, rb, "values set in the TaskSet");
  EXPECT_EQ(a.tasks()[ik::MarkerTaskId(7)].measured, obs[7]);
  EXPECT_EQ(a.tasks()[ik::CoordinateTaskId(0)].value, 0.2);
  EXPECT_TRUE(std::isnan(a.markerError(ik::MarkerTaskId(3))));

  // No coordinates: every coordinate task off for the frame (as a NaN value).
  for (auto& p : obs) p += randomVector3(noise, rng);
  const ik::MarkerIkResult ra2 = a.solve(obs);
  EXPECT_TRUE(std::isnan(a.tasks()[ik::CoordinateTaskId(0)].value));
  b.tasks().setMeasurements(obs);
  b.tasks().setValue(ik::CoordinateTaskId(0), kNaN);
  expectSameSolve(a, ra2, b, b.solve(), "coordinate task off");

  // A disabled marker, a zero-weight one and a removed one count as missing.
  std::vector<Vector3d> gaps = obs;
  gaps[7].setConstant(kNaN);
  gaps[11].setConstant(kNaN);
  gaps[20].setConstant(kNaN);
  a.setState(truth);
  b.setState(truth);
  const ik::MarkerIkResult ra3 = a.solve(gaps);
  b.tasks().setEnabled(ik::MarkerTaskId(7), false);
  b.tasks().setWeight(ik::MarkerTaskId(11), 0.0);
  b.tasks().remove(ik::MarkerTaskId(20));
  const ik::MarkerIkResult rb3 = b.solve(obs);  // one measurement per marker ever added
  expectSameSolve(a, ra3, b, rb3, "disabled, zero-weight and removed markers");
  EXPECT_EQ(rb3.markers_used, static_cast<int>(names.size()) - 4);
  EXPECT_TRUE(std::isnan(b.markerError(ik::MarkerTaskId(20))));
  EXPECT_FALSE(std::isnan(b.markerError(ik::MarkerTaskId(21))));
  EXPECT_TRUE(b.modelMarker(ik::MarkerTaskId(20)).allFinite());
  EXPECT_THROW(static_cast<void>(b.markerError(ik::MarkerTaskId(static_cast<int>(names.size())))), InvalidArgument);

  // A marker added after a solve: scratch re-sized, no error until it has been solved with.
  const ik::MarkerTaskId late = b.tasks().addMarker(names[0], 1.0);
  EXPECT_TRUE(std::isnan(b.markerError(late)));
  EXPECT_THROW(b.solve(obs), InvalidArgument);  // one measurement short now
  obs.push_back(obs[0]);
  (void)b.solve(obs);
  EXPECT_FALSE(std::isnan(b.markerError(late)));
}

TEST(MarkerIk, PostureTaskEqualsCoordinateTasks) {
  std::vector<std::string> names;
  const auto model = markedHuman(names, 19);
  const int n = model->numJoints();
  ik::MarkerIk a(model), b(model);
  for (const auto& name : names) a.tasks().addMarker(name, 1.0), b.tasks().addMarker(name, 1.0);
  a.tasks().addCoordinate(model->jointName(JointId(5)), 1000.0);
  a.tasks().addCoordinate(model->jointName(JointId(9)), 50.0);
  VectorXd w = VectorXd::Zero(n);
  w[5] = 1000.0;
  w[9] = 50.0;
  const ik::PostureTaskId posture = b.tasks().addPosture(w);
  std::mt19937_64 rng(23);
  const Configuration truth = randomWithin(*model, rng);
  const std::vector<Vector3d> obs = markersAt(*model, truth, names);
  for (const double v9 : {-0.4, kNaN}) {
    a.setState(Configuration(*model));
    b.setState(Configuration(*model));
    const std::vector<double> values = {0.3, v9};
    const ik::MarkerIkResult ra = a.solve(obs, values);
    VectorXd pose = VectorXd::Constant(n, 7.0);  // unweighted joints: ignored
    pose[5] = 0.3;
    pose[9] = v9;
    b.tasks().setValues(posture, pose);
    b.tasks().setMeasurements(obs);
    const ik::MarkerIkResult rb = b.solve();
    expectSameSolve(a, ra, b, rb, "posture value " + std::to_string(v9));
  }
  // Disabled, the posture task leaves the fit to the markers alone.
  b.tasks().setEnabled(posture, false);
  b.setState(truth);
  const ik::MarkerIkResult r = b.solve();
  EXPECT_LT(r.max_error, 1e-7);
}

// MarkerIk reads a posture task's values only: the velocity reference and the gain (DYN's) change
// nothing, bit for bit.
TEST(MarkerIk, PostureTaskVelocitiesAndGainAreNotRead) {
  std::vector<std::string> names;
  const auto model = markedHuman(names, 19);
  const int n = model->numJoints();
  ik::MarkerIk a(model), b(model);
  for (const auto& name : names) a.tasks().addMarker(name, 1.0), b.tasks().addMarker(name, 1.0);
  const ik::PostureTaskId pa = a.tasks().addPosture(20.0);
  const ik::PostureTaskId pb = b.tasks().addPosture(20.0, 0.7);
  std::mt19937_64 rng(29);
  const Configuration truth = randomWithin(*model, rng);
  const std::vector<Vector3d> obs = markersAt(*model, truth, names);
  const VectorXd pose = truth.joints.array() + 0.05;
  a.tasks().setValues(pa, pose);
  b.tasks().setValues(pb, pose);
  b.tasks().setVelocities(pb, VectorXd::Constant(n, 3.0));
  a.tasks().setMeasurements(obs);
  b.tasks().setMeasurements(obs);
  a.setState(Configuration(*model));
  b.setState(Configuration(*model));
  const ik::MarkerIkResult ra = a.solve();
  const ik::MarkerIkResult rb = b.solve();
  expectSameSolve(a, ra, b, rb, "posture velocities");
}

TEST(MarkerIk, CouplersSwitchBetweenExactAndPenalty) {
  const auto model = couplerLeg();
  const std::vector<std::string> names = {"thigh_a", "thigh_b", "thigh_c", "shank_a", "shank_b"};
  const ScalarFunction f = ScalarFunction::simmSpline({-2.0, -1.0, 0.0, 0.5}, {0.03, 0.02, 0.0, -0.01});
  Configuration truth(*model);
  truth.joints << 0.4, 0.1, -1.3, f.value(-1.3);
  const std::vector<Vector3d> obs = markersAt(*model, truth, names);
  auto make = [&](double weight, ik::CouplerTaskId* id) {
    ik::MarkerIk ik(model);
    for (const auto& n : names) ik.tasks().addMarker(n, 1.0);
    const ik::CouplerTaskId k = ik.tasks().addCoupler("patella_coupler", "patella", "knee", f, weight);
    if (id) *id = k;
    ik.setState(Configuration(*model));
    return ik;
  };
  ik::CouplerTaskId k;
  ik::MarkerIk ik = make(kInf, &k);
  const ik::MarkerIkResult exact = ik.solve(obs);
  EXPECT_LT(exact.coupler_violation, 1e-10);
  // Re-weighted to a penalty on the same solver: as a solver built with the penalty.
  ik.tasks().setWeight(k, 20.0);
  ik.setState(Configuration(*model));
  const ik::MarkerIkResult penalty = ik.solve(obs);
  ik::MarkerIk fresh = make(20.0, nullptr);
  expectSameSolve(ik, penalty, fresh, fresh.solve(obs), "penalty");
  EXPECT_LT(penalty.coupler_violation, 1e-6);
  // Disabled: no coupler term and no violation reported; the patella is not observed, so stays.
  ik.tasks().setEnabled(k, false);
  ik.setState(Configuration(*model));
  const ik::MarkerIkResult off = ik.solve(obs);
  EXPECT_EQ(off.coupler_violation, 0.0);
  EXPECT_EQ(ik.state().joints[3], 0.0);
  EXPECT_LT(off.max_error, 1e-7);
  // And back to exact.
  ik.tasks().setEnabled(k, true);
  ik.tasks().setWeight(k, kInf);
  ik.setState(Configuration(*model));
  ik::MarkerIk again = make(kInf, nullptr);
  expectSameSolve(ik, ik.solve(obs), again, again.solve(obs), "exact again");
}

TEST(MarkerIk, RejectsBadArguments) {
  std::vector<std::string> names;
  const auto model = markedHuman(names);
  ik::MarkerIk ik(model);
  EXPECT_THROW(ik.tasks().addMarker("no_such_frame"), InvalidArgument);
  EXPECT_THROW(ik.tasks().addMarker(names[0], -1.0), InvalidArgument);
  EXPECT_THROW(ik.tasks().addMarker(names[0], kNaN), InvalidArgument);
  EXPECT_THROW(ik.tasks().addCoordinate("no_such_joint"), InvalidArgument);
  EXPECT_THROW(ik.tasks().addCoupler("k", names[0], "no_such_joint", {}), InvalidArgument);
  EXPECT_EQ(ik.tasks().markers().size(), 0u);
  ik.tasks().addMarker(names[0]);
  EXPECT_THROW(ik.solve(std::vector<Vector3d>(2)), InvalidArgument);
  EXPECT_THROW(ik.solve(std::vector<Vector3d>(1), std::vector<double>(3)), InvalidArgument);
  VectorXd lo = VectorXd::Zero(model->numJoints()), hi = lo;
  lo[0] = 1.0;
  EXPECT_THROW(ik.bounds().set(lo, hi), InvalidArgument);
  EXPECT_THROW(ik.bounds().set(VectorXd::Zero(2), VectorXd::Zero(2)), InvalidArgument);
  EXPECT_THROW(ik.bounds().lock("no_such_joint", 0.0), InvalidArgument);
  EXPECT_THROW(ik.tasks().addPosition(names[0]), InvalidArgument);  // frame targets: not read by MarkerIk
  EXPECT_THROW(ik.setOptions({.accuracy = 0.0}), InvalidArgument);
  EXPECT_THROW(ik.setOptions({.max_iterations = 0}), InvalidArgument);
  Configuration bad(*model);
  bad.joints[0] = kNaN;
  EXPECT_THROW(ik.setState(bad), InvalidArgument);
  EXPECT_THROW(ik::MarkerIk(nullptr), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
