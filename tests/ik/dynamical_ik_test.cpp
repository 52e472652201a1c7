// DYN solver (SPEC §2): ground-truth recovery, convergence from far away, limits, discrete
// stability, base orthonormality, allocation-free steps.
#include "kinetrack/ik/dynamical_ik.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kDeg = M_PI / 180.0;

const std::vector<std::string>& kSegments = humanSegmentNames();

double wrap(double a) { return std::remainder(a, 2.0 * M_PI); }

/// A smooth joint-space trajectory with exact velocities: s_j(t) = c_j + a_j sin(2π f_j t + φ_j),
/// base translating on an ellipse and rotating about a fixed world axis.
struct Trajectory {
  const Model* model;
  VectorXd c, a, f, phi;
  Vector3d base_axis;
  Configuration q0;

  Trajectory(const Model& m, std::uint64_t seed, double amplitude_fraction, double amplitude_cap = 0.5,
             double beyond_limits = 0.0)
      : model(&m), q0(m) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const int n = m.numJoints();
    c.resize(n), a.resize(n), f.resize(n), phi.resize(n);
    for (int j = 0; j < n; ++j) {
      const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
      if (std::isfinite(lo) && std::isfinite(hi)) {
        c[j] = 0.5 * (lo + hi);
        a[j] = std::min(amplitude_fraction * 0.5 * (hi - lo), amplitude_cap) + beyond_limits * 0.5 * (hi - lo);
      } else {
        c[j] = 0.3 * (2.0 * u(rng) - 1.0);
        a[j] = amplitude_cap;
      }
      f[j] = 0.2 + 0.3 * u(rng);
      phi[j] = 2.0 * M_PI * u(rng);
    }
    const double y = u(rng), x = u(rng);  // g++'s order of the former Vector3d(u(rng), u(rng), 1)
    base_axis = Vector3d(x - 0.5, y - 0.5, 1.0).normalized();
    q0.base_rotation = so3::exp(Vector3d(0.0, 0.0, 2.0 * M_PI * u(rng)));
  }
  Configuration at(double t) const {
    Configuration q(*model);
    for (int j = 0; j < q.joints.size(); ++j) q.joints[j] = c[j] + a[j] * std::sin(2.0 * M_PI * f[j] * t + phi[j]);
    q.base_position = Vector3d(0.2 * std::sin(0.5 * t), 0.1 * std::cos(0.7 * t), 1.0 + 0.05 * std::sin(t));
    q.base_rotation = so3::exp(0.4 * std::sin(0.6 * t) * base_axis) * q0.base_rotation;
    return q;
  }
  VectorXd velocity(double t) const {
    VectorXd nu = VectorXd::Zero(model->nv());
    const int nb = model->nvBase();
    for (int j = 0; j < model->numJoints(); ++j)
      nu[nb + j] = a[j] * 2.0 * M_PI * f[j] * std::cos(2.0 * M_PI * f[j] * t + phi[j]);
    if (nb == 6) {
      nu.head<3>() = Vector3d(0.1 * std::cos(0.5 * t), -0.07 * std::sin(0.7 * t), 0.05 * std::cos(t));
      nu.segment<3>(3) = 0.4 * 0.6 * std::cos(0.6 * t) * base_axis;  // world-frame ω
    }
    return nu;
  }
};

/// Feeds the solver's targets with poses and exact velocities of `frames` along a trajectory.
struct TargetFeeder {
  const Model& model;
  Data data;
  std::vector<FrameId> frames;
  std::vector<TargetId> orientation, position;
  Matrix6Xd J;

  TargetFeeder(DynamicalIk& ik, const std::vector<std::string>& orientation_frames, const std::string& position_frame,
               double gain)
      : model(ik.model()), data(ik.model()), J(6, ik.model().nv()) {
    for (const auto& name : orientation_frames) {
      frames.push_back(model.frameId(name));
      orientation.push_back(ik.tasks().addOrientation(name, {.gain = gain}));
    }
    position.push_back(ik.tasks().addPosition(position_frame, {.gain = gain}));
    frames.push_back(model.frameId(position_frame));
  }
  void feed(DynamicalIk& ik, const Configuration& q, const VectorXd& nu, bool with_velocity = true) {
    framesForwardKinematics(model, data, q);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      frameJacobian(model, data, frames[i], J);
      const Vector6d v = J * nu;
      const Transform& F = data.frame[static_cast<std::size_t>(frames[i].value)];
      if (i < orientation.size()) {
        if (with_velocity)
          ik.tasks().setOrientation(orientation[i], F.R, v.tail<3>());
        else
          ik.tasks().setOrientation(orientation[i], F.R);
      } else {
        if (with_velocity)
          ik.tasks().setPosition(position[0], F.p, v.head<3>());
        else
          ik.tasks().setPosition(position[0], F.p);
      }
    }
  }
};

struct TrackingStats {
  double joint_rms_deg = 0.0;
  double mnte_max = 0.0;
  double limit_violation_max = 0.0;
  double row_violation_max = 0.0;
  int non_optimal = 0;
};

/// The trajectory's initial configuration with every joint moved by ±`offset` rad (kept inside
/// its limits) and the base shifted by 5 cm: a start with a transient but in the right basin.
Configuration perturbedStart(const Trajectory& traj, double offset, std::uint64_t seed) {
  Configuration q = traj.at(0.0);
  const Model& m = *traj.model;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-offset, offset);
  for (int j = 0; j < m.numJoints(); ++j)
    q.joints[j] = std::clamp(q.joints[j] + u(rng), m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  q.base_position += Vector3d(0.05, -0.03, 0.02);
  return q;
}

TrackingStats track(DynamicalIk& ik, TargetFeeder& feeder, const Trajectory& traj, double rate, double duration,
                    double transient, bool start_exact, bool with_velocity = true) {
  TrackingStats s;
  const double dt = 1.0 / rate;
  if (start_exact) ik.setState(traj.at(0.0));
  double sum2 = 0.0;
  long count = 0;
  const int steps = static_cast<int>(std::lround(duration * rate));
  for (int k = 1; k <= steps; ++k) {
    const double t = k * dt;
    const Configuration qt = traj.at(t);
    feeder.feed(ik, qt, traj.velocity(t), with_velocity);
    const StepResult r = ik.step(dt);
    s.limit_violation_max = std::max(s.limit_violation_max, r.limit_violation);
    s.row_violation_max = std::max(s.row_violation_max, r.row_violation);
    if (r.qp_status != qp::Status::Optimal) ++s.non_optimal;
    if (t < transient) continue;
    s.mnte_max = std::max(s.mnte_max, ik.mnte());
    for (int j = 0; j < qt.joints.size(); ++j) {
      const double e = wrap(ik.state().joints[j] - qt.joints[j]);
      sum2 += e * e;
      ++count;
    }
  }
  s.joint_rms_deg = std::sqrt(sum2 / std::max<long>(count, 1)) / kDeg;
  if (std::getenv("KT_DEBUG")) {
    const Configuration qt = traj.at(steps * dt);
    for (int j = 0; j < qt.joints.size(); ++j)
      if (std::abs(wrap(ik.state().joints[j] - qt.joints[j])) > 1e-3)
        std::printf("%s est %g true %g\n", ik.model().jointName(JointId(j)).c_str(), ik.state().joints[j],
                    qt.joints[j]);
  }
  return s;
}

std::vector<std::string> allLinkNames(const Model& m) { return m.linkNames(); }

// ---- ground truth ---------------------------------------------------------------------------

TEST(DynamicalIk, Human66RecoversAKnownTrajectoryFromTheZeroPose) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  TargetFeeder feeder(ik, kSegments, "Pelvis", 50.0);  // K·Δt = 0.5 at 100 Hz
  const Trajectory traj(m, 1, 0.0, 0.5);
  const TrackingStats s = track(ik, feeder, traj, 100.0, 6.0, 2.0, /*start_exact=*/false);
  EXPECT_LT(s.joint_rms_deg, 0.01);
  EXPECT_LT(s.mnte_max, 1e-8);
  EXPECT_EQ(s.non_optimal, 0);
}

TEST(DynamicalIk, Human48RecoversAKnownTrajectoryInsideItsLimits) {
  const Model m = makeHuman48();
  DynamicalIk ik(m);
  TargetFeeder feeder(ik, kSegments, "Pelvis", 50.0);
  const Trajectory traj(m, 2, 0.3);
  // From the zero pose the constrained solver can end in a local minimum against the limits;
  // ground-truth recovery starts 0.1 rad away from the trajectory instead.
  ik.setState(perturbedStart(traj, 0.1, 21));
  const TrackingStats s = track(ik, feeder, traj, 100.0, 6.0, 2.0, false);
  EXPECT_LT(s.joint_rms_deg, 0.01);
  EXPECT_LT(s.mnte_max, 1e-8);
  EXPECT_LE(s.limit_violation_max, 1e-6);
}

TEST(DynamicalIk, ICubRecoversAKnownTrajectory) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = io::loadUrdf(path);
  DynamicalIk ik(m);
  TargetFeeder feeder(ik, allLinkNames(m), "root_link", 50.0);
  const Trajectory traj(m, 3, 0.3);
  ik.setState(perturbedStart(traj, 0.1, 31));  // the zero pose is outside iCub's elbow limits
  const TrackingStats s = track(ik, feeder, traj, 100.0, 6.0, 2.0, false);
  EXPECT_LT(s.joint_rms_deg, 0.01);
  EXPECT_LT(s.mnte_max, 1e-8);
  EXPECT_LE(s.limit_violation_max, 1e-6);
}

TEST(DynamicalIk, VelocityOnlyTrackingFromTheExactStateStaysOnTheTrajectory) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  TargetFeeder feeder(ik, kSegments, "Pelvis", 0.0);  // K = 0: pure velocity integration
  const Trajectory traj(m, 4, 0.0, 0.5);
  const TrackingStats s = track(ik, feeder, traj, 1000.0, 2.0, 0.0, /*start_exact=*/true);
  EXPECT_LT(s.joint_rms_deg, 0.01);
  EXPECT_LT(s.mnte_max, 1e-8);
}

TEST(DynamicalIk, PaperDiscretizationLeadsTheTargetByOneStep) {
  // Documents why Discretization::Consistent is the default: with Eq. 9 taken literally the
  // state ends each step where the target will be one step later.
  const Model m = makeHuman66();
  DynamicalIkOptions o;
  o.discretization = Discretization::Paper;
  DynamicalIk paper(m, o);
  TargetFeeder feeder(paper, kSegments, "Pelvis", 50.0);
  const Trajectory traj(m, 1, 0.0, 0.5);
  const TrackingStats s = track(paper, feeder, traj, 100.0, 6.0, 2.0, false);
  EXPECT_GT(s.joint_rms_deg, 0.1);  // ~Δt·|ṡ| ≈ 0.01 s × 1.6 rad/s peak
}

// ---- convergence ----------------------------------------------------------------------------

TEST(DynamicalIk, ConvergesFromZeroToStaticOrientationsUpTo170Degrees) {
  const Model m = makeHuman66();
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(0.0, 1.0);
  std::uniform_real_distribution<double> angle(100.0 * kDeg, 170.0 * kDeg);
  DynamicalIk ik(m);
  double initial = 0.0;
  std::vector<TargetId> ids;
  for (const auto& s : kSegments) {
    const TargetId id = ik.tasks().addOrientation(s, {.gain = 10.0});
    const Vector3d axis = randomVector3(n, rng).normalized();
    const double th = angle(rng);
    ik.tasks().setOrientation(id, so3::exp(th * axis));  // every segment starts th away (q = 0)
    initial += 1.0 - std::cos(th);
  }
  const TargetId pos = ik.tasks().addPosition("Pelvis", {.gain = 10.0});
  ik.tasks().setPosition(pos, Vector3d(0.3, -0.2, 1.0));
  EXPECT_NEAR(ik.mnte(), initial / kSegments.size(), 1e-12);
  EXPECT_GT(ik.mnte(), 1.0);
  for (int k = 0; k < 1500; ++k) ik.step(0.01);
  EXPECT_LT(ik.mnte(), 1e-10);
}

TEST(DynamicalIk, EscapesTheExactlyOppositeOrientation) {
  // Appendix A: at exactly π the residual vanishes (unstable equilibrium); round-off lets the
  // solver leave it.
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  const TargetId id = ik.tasks().addOrientation("Pelvis", {.gain = 10.0});
  ik.tasks().setOrientation(id, so3::exp(M_PI * Vector3d(1.0, 2.0, -0.5).normalized()));
  EXPECT_NEAR(ik.mnte(), 2.0, 1e-12);
  int k = 0;
  while (ik.mnte() > 1e-10 && k < 3000) {
    ik.step(0.01);
    ++k;
  }
  EXPECT_LT(ik.mnte(), 1e-10) << "still at MNTE " << ik.mnte() << " after " << k << " steps";
}

// ---- limits ---------------------------------------------------------------------------------

TEST(DynamicalIk, Human48NeverLeavesItsLimitsWhenTheTargetsDo) {
  const Model m = makeHuman48();
  DynamicalIk ik(m);
  TargetFeeder feeder(ik, kSegments, "Pelvis", 10.0);
  // Amplitude 1.5× the half range: every joint is driven 50 % past both limits.
  const Trajectory traj(m, 6, 1.0, 10.0, 0.5);
  const TrackingStats s = track(ik, feeder, traj, 100.0, 5.0, 0.0, false);
  EXPECT_LE(s.limit_violation_max, 1e-6);
  EXPECT_EQ(s.non_optimal, 0);
}

Model icubWithCoupling(const std::string& path) {
  ModelBuilder b(io::loadUrdf(path));
  addIcubCouplingConstraints(b);  // ../shared/models/icub/COUPLING.md, 2 rad/s
  return b.build();
}

TEST(DynamicalIk, ICubLimitsAndCoupledRowsHoldWhenTheTargetsViolateThem) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = icubWithCoupling(path);
  DynamicalIk ik(m);
  // Start inside every row: the zero pose violates row 4 (roll ≥ 0.4611), so begin from a pose
  // that satisfies all of them.
  Configuration q0(m);
  for (const std::string side : {"l_", "r_"}) {
    q0.joints[m.jointId(side + "shoulder_roll").value] = 0.6;
    q0.joints[m.jointId(side + "elbow").value] = 0.8;
  }
  ASSERT_EQ(positionLimitViolation(m, q0), 0.0);
  for (const auto& row : m.linearConstraints()) {
    const double c = row.coefficients.dot(q0.joints);
    ASSERT_TRUE(c >= row.lower && c <= row.upper) << row.name;
  }
  ik.setState(q0);
  TargetFeeder feeder(ik, allLinkNames(m), "root_link", 10.0);
  const Trajectory traj(m, 7, 1.0, 10.0, 0.5);
  const TrackingStats s = track(ik, feeder, traj, 100.0, 5.0, 0.0, false);
  EXPECT_LE(s.limit_violation_max, 1e-6);
  EXPECT_LE(s.row_violation_max, 1e-6);
}

TEST(DynamicalIk, AStateOutsideALimitReturnsInside) {
  const Model m = makeHuman48();
  DynamicalIk ik(m);
  Configuration q(m);
  const JointId knee = m.jointId("jRightKnee_roty");  // limits [0°, 135°]
  q.joints[knee.value] = -0.3;
  ik.setState(q);
  const TargetId id = ik.tasks().addOrientation("RightLowerLeg", {.gain = 10.0});
  Data d(m);
  forwardKinematics(m, d, q);
  ik.tasks().setOrientation(id, updateFramePlacement(m, d, m.frameId("RightLowerLeg")).R);  // target wants −0.3 too
  double previous = 0.3;
  for (int k = 0; k < 200; ++k) {
    const StepResult r = ik.step(0.01);
    const double violation = -ik.state().joints[knee.value];
    EXPECT_LE(violation, previous + 1e-12) << "step " << k;  // monotone return (sign flip of Eq. 12)
    previous = std::max(violation, 0.0);
    (void)r;
  }
  EXPECT_LE(-ik.state().joints[knee.value], 1e-9);
}

// ---- discrete stability ---------------------------------------------------------------------

double finalMnteForGain(double gain, double dt, bool* flagged) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  const TargetId id = ik.tasks().addOrientation("RightForeArm", {.gain = gain});
  ik.tasks().setOrientation(id, so3::exp(Vector3d(0.3, 0.2, -0.4)));
  *flagged = false;
  for (int k = 0; k < 300; ++k) {
    const StepResult r = ik.step(dt);
    *flagged = *flagged || r.unstable_gain;
  }
  return ik.mnte();
}

TEST(DynamicalIk, DiscreteGainBelowTwoConvergesAboveTwoDivergesAndIsReported) {
  bool flagged = false;
  EXPECT_LT(finalMnteForGain(150.0, 0.01, &flagged), 1e-12);  // K·Δt = 1.5
  EXPECT_FALSE(flagged);
  EXPECT_LT(finalMnteForGain(190.0, 0.01, &flagged), 1e-8);  // K·Δt = 1.9: oscillating but converging
  EXPECT_FALSE(flagged);
  EXPECT_GT(finalMnteForGain(250.0, 0.01, &flagged), 1e-2);  // K·Δt = 2.5
  EXPECT_TRUE(flagged);
}

TEST(DynamicalIk, ADivergedStateIsHeldAndReportedNotThrown) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  const TargetId id = ik.tasks().addPose("RightHand", {.gain = 300.0}, {.gain = 300.0});  // K·Δt = 3
  ik.tasks().setOrientation(id, so3::exp(Vector3d(0.3, 0.2, -0.4)));
  ik.tasks().setPosition(id, Vector3d(0.5, -0.5, 0.5));
  bool non_finite = false;
  for (int k = 0; k < 3000 && !non_finite; ++k) {
    StepResult r;
    ASSERT_NO_THROW(r = ik.step(0.01));
    non_finite = r.non_finite;
  }
  EXPECT_TRUE(non_finite);
  const StepResult again = ik.step(0.01);  // still no exception, state held
  EXPECT_TRUE(again.non_finite);
}

TEST(DynamicalIk, PerStepGainModeKeepsKDtConstantUnderVariableDt) {
  const Model m = makeHuman66();
  DynamicalIkOptions o;
  o.gain_mode = GainMode::PerStep;
  DynamicalIk ik(m, o);
  const TargetId id = ik.tasks().addOrientation("Head", {.gain = 0.5});  // κ = K·Δt = 0.5
  ik.tasks().setOrientation(id, so3::exp(Vector3d(0.5, -0.3, 0.2)));
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(0.002, 0.05);
  for (int k = 0; k < 100; ++k) {
    const StepResult r = ik.step(u(rng));
    EXPECT_NEAR(r.max_gain_dt, 0.5, 1e-12);
  }
  EXPECT_LT(ik.mnte(), 1e-12);
}

// ---- base orientation -----------------------------------------------------------------------

Model floatingBody() {
  ModelBuilder b("body", "base", BaseType::Floating);
  JointSpec j;
  j.name = "j";
  j.parent = "base";
  j.child = "arm";
  j.placement.p = Vector3d(0.1, 0, 0);
  j.axis = Vector3d::UnitZ();
  j.type = JointType::Continuous;
  b.addJoint(j);
  return b.build();
}

TEST(DynamicalIk, BaseOrientationStaysOrthonormalWithBaumgarte) {
#ifdef NDEBUG
  constexpr int kSteps = 1000000;
#else
  constexpr int kSteps = 20000;
#endif
  const Model m = floatingBody();
  DynamicalIk ik(m);
  const TargetId id = ik.tasks().addOrientation("base", {.gain = 5.0});
  // A target spinning at 2 rad/s about a tilted axis, given with its velocity.
  const Vector3d w = 2.0 * Vector3d(1.0, -0.5, 0.8).normalized();
  Matrix3d R = Matrix3d::Identity();
  const double dt = 0.01;
  const Matrix3d step_rotation = so3::exp(w * dt);
  double worst = 0.0;
  for (int k = 0; k < kSteps; ++k) {
    R = step_rotation * R;
    if (k % 1000 == 0) R = so3::project(R);
    ik.tasks().setOrientation(id, R, w);
    ik.step(dt);
    const Matrix3d& B = ik.state().base_rotation;
    worst = std::max(worst, (B.transpose() * B - Matrix3d::Identity()).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-12);
  EXPECT_LT(ik.mnte(), 1e-8);
}

TEST(DynamicalIk, BaumgarteTermPullsADriftedBaseBackToSO3) {
  const Model m = floatingBody();
  DynamicalIk ik(m);
  Configuration q(m);
  q.base_rotation = 1.001 * so3::exp(Vector3d(0.1, 0.2, 0.3));  // 0.1 % off orthonormal
  ik.setState(q);
  for (int k = 0; k < 2000; ++k) ik.step(0.01);
  const Matrix3d& B = ik.state().base_rotation;
  EXPECT_LT((B.transpose() * B - Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-12);
}

// ---- API ------------------------------------------------------------------------------------

TEST(DynamicalIk, StepDoesNotAllocate) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  TargetFeeder feeder(ik, kSegments, "Pelvis", 10.0);
  const Trajectory traj(m, 8, 0.0, 0.5);
  for (int k = 1; k <= 5; ++k) {  // warm up
    feeder.feed(ik, traj.at(k * 0.01), traj.velocity(k * 0.01));
    ik.step(0.01);
  }
  feeder.feed(ik, traj.at(0.06), traj.velocity(0.06));
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    ik.step(0.01);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(DynamicalIk, TargetsCanBeDisabledRemovedAndReweighted) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  const TargetId head = ik.tasks().addOrientation("Head", {.gain = 10.0});
  const TargetId hand = ik.tasks().addOrientation("RightHand", {.gain = 10.0});
  ik.tasks().setOrientation(head, so3::exp(Vector3d(0, 0, 1)));
  ik.tasks().setOrientation(hand, so3::exp(Vector3d(0.5, 0, 0)));
  ik.tasks().setEnabled(hand, false);
  ik.step(0.01);
  const double neck = ik.state().joints[m.jointId("jT1C7_rotz").value];
  EXPECT_EQ(ik.state().joints[m.jointId("jRightWrist_rotx").value], 0.0);  // disabled: untouched
  EXPECT_NE(neck, 0.0);
  ik.tasks().setEnabled(hand, true);
  ik.tasks().setWeights(hand, 0.0, 2.0);
  ik.tasks().setGains(hand, 0.0, 20.0);
  ik.tasks().remove(head);
  EXPECT_EQ(ik.tasks().size(), 1);
  EXPECT_THROW(ik.tasks().setOrientation(head, Matrix3d::Identity()), InvalidArgument);
  for (int k = 0; k < 200; ++k) ik.step(0.01);
  EXPECT_LT(ik.mnte(), 1e-10);
  EXPECT_THROW(ik.tasks().addOrientation("NoSuchFrame"), InvalidArgument);
  EXPECT_THROW(ik.step(0.0), InvalidArgument);
  EXPECT_THROW(ik.step(std::nan("")), InvalidArgument);
  EXPECT_THROW(ik.tasks().setOrientation(hand, 2.0 * Matrix3d::Identity()), InvalidArgument);
  EXPECT_THROW(ik.tasks().setPosition(hand, Vector3d::Zero()), InvalidArgument);  // orientation-only
}

TEST(DynamicalIk, CompositeHessianEqualsTheStackedJacobianForm) {
  // H and g are assembled from subtree composites without forming Jacobians; compare with
  // Σ J_tᵀ W_t J_t and −Σ J_tᵀ W_t v*_t built from frameJacobian (first step: ν = 0, so the
  // Jacobians are taken at q itself).
  const Model m = makeHuman48();
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> w(0.2, 3.0);
  const Configuration q = randomConfiguration(m, rng);
  DynamicalIkOptions o;
  o.discretization = Discretization::Paper;  // v* = v + K r
  DynamicalIk ik(m, o);
  ik.setState(q);
  Data d(m);
  framesForwardKinematics(m, d, q);
  MatrixXd H = MatrixXd::Zero(m.nv(), m.nv());
  VectorXd g = VectorXd::Zero(m.nv());
  Matrix6Xd J(6, m.nv());
  const std::vector<std::string> frames = {"Head", "RightHand", "LeftFoot", "RightHandCOM", "Pelvis", "T8"};
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const FrameId f = m.frameId(frames[i]);
    const double wp = w(rng), wo = w(rng), kp = 3.0, ko = 7.0;
    const TargetId id = ik.tasks().addPose(frames[i], {.weight = wp, .gain = kp}, {.weight = wo, .gain = ko});
    const Transform& F = d.frame[static_cast<std::size_t>(f.value)];
    const Vector3d pt = F.p + Vector3d(0.1, -0.2, 0.05 * i), vt(0.3, 0.1, -0.2), wt(-0.1, 0.4, 0.2);
    const Matrix3d Rt = so3::exp(Vector3d(0.2, -0.1, 0.3 + 0.1 * i)) * F.R;
    ik.tasks().setPosition(id, pt, vt);
    ik.tasks().setOrientation(id, Rt, wt);
    frameJacobian(m, d, f, J);
    Vector6d vstar;
    vstar << vt + kp * (pt - F.p), wt + ko * so3::vee(Rt * F.R.transpose());
    Vector6d W;
    W << wp, wp, wp, wo, wo, wo;
    H += J.transpose() * W.asDiagonal() * J;
    g -= J.transpose() * (W.asDiagonal() * vstar);
  }
  ik.step(0.01);
  const qp::Problem& P = ik.lastProblem();
  MatrixXd Hl = P.H.triangularView<Eigen::Lower>();
  MatrixXd Href = H.triangularView<Eigen::Lower>();
  Href.diagonal().array() += ik.options().damping;
  EXPECT_LT((Hl - Href).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, Href.cwiseAbs().maxCoeff()));
  EXPECT_LT((P.g - g).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, g.cwiseAbs().maxCoeff()));
}

TEST(DynamicalIk, HessianStaysAccurateFarFromTheWorldOrigin) {
  // Moments are taken about the base, not the world origin: at 1e8 m they would cancel to O(1).
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  Configuration q(m);
  q.base_position = Vector3d(1e8, -3e7, 5e6);
  ik.setState(q);
  Data d(m);
  framesForwardKinematics(m, d, q);
  MatrixXd H = MatrixXd::Zero(m.nv(), m.nv());
  Matrix6Xd J(6, m.nv());
  for (const auto& s : {"Head", "RightHand", "LeftFoot"}) {
    const TargetId id = ik.tasks().addPose(s, {.gain = 10.0}, {.gain = 10.0});
    const FrameId f = m.frameId(s);
    ik.tasks().setPosition(id, d.frame[static_cast<std::size_t>(f.value)].p + Vector3d(0.1, 0, 0));
    ik.tasks().setOrientation(id, d.frame[static_cast<std::size_t>(f.value)].R);
    frameJacobian(m, d, f, J);
    H += J.transpose() * J;
  }
  const StepResult r = ik.step(0.01);
  EXPECT_EQ(r.qp_status, qp::Status::Optimal);
  MatrixXd Hl = ik.lastProblem().H.triangularView<Eigen::Lower>();
  MatrixXd Href = H.triangularView<Eigen::Lower>();
  Href.diagonal().array() += ik.options().damping;
  EXPECT_LT((Hl - Href).cwiseAbs().maxCoeff(), 1e-10 * Href.cwiseAbs().maxCoeff());
}

TEST(DynamicalIk, HighDiscreteGainsConvergeOnTheWholeBody) {
  // 1 < K·Δt < 2: the error alternates in sign every step; the mid-step Jacobian is switched
  // off there so the loop cannot lock into a period-2 cycle.
  const Model m = makeHuman66();
  std::mt19937_64 rng(14);
  RandomConfigurationOptions ro;
  ro.unbounded_range = 1.0;
  const Configuration target = randomConfiguration(m, rng, ro);
  Data d(m);
  framesForwardKinematics(m, d, target);
  for (double K : {120.0, 140.0, 170.0}) {
    DynamicalIk ik(m);
    for (const auto& s : kSegments) {
      const TargetId id = ik.tasks().addOrientation(s, {.gain = K});
      ik.tasks().setOrientation(id, d.frame[static_cast<std::size_t>(m.frameId(s).value)].R);
    }
    const TargetId p = ik.tasks().addPosition("Pelvis", {.gain = K});
    ik.tasks().setPosition(p, target.base_position);
    for (int k = 0; k < 1000; ++k) ik.step(0.01);
    EXPECT_LT(ik.mnte(), 1e-10) << "K = " << K;
  }
}

TEST(DynamicalIk, ResidualIsWorldFrameAndSatisfiedTargetsGiveZeroVelocity) {
  const Model m = makeHuman66();
  DynamicalIk ik(m);
  std::mt19937_64 rng(10);
  const Configuration q = randomConfiguration(m, rng);
  ik.setState(q);
  Data d(m);
  framesForwardKinematics(m, d, q);
  for (const auto& s : kSegments) {
    const TargetId id = ik.tasks().addOrientation(s, {.gain = 10.0});
    ik.tasks().setOrientation(id, d.frame[static_cast<std::size_t>(m.frameId(s).value)].R);
  }
  const StepResult r = ik.step(0.01);
  EXPECT_LT(r.residual_norm, 1e-12);
  EXPECT_LT(ik.velocity().cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
