// Inverse dynamics of sampled motions: finite differences on the manifold are exact on a
// quadratic motion (constant ν̇, base turning about a fixed axis), gaps invalidate their stencil,
// and a real walk tracked on a model with real masses has a mean vertical base force equal to
// its weight. External wrenches: a ground reaction built from our own residual, through a wrench
// CSV, cancels it. The zero-lag Butterworth low-pass: its gain, cubics pass, runs between gaps
// apart, and on a noisy analytic motion accelerations far closer to the truth than raw
// differences; without noise they converge to the exact ones as the cutoff rises.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <numeric>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/io/table/wrench_csv.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// q(t) = q0 ⊕ (v0 t + ½ a0 t²) with the base rotation about one axis: ν(t) = v0 + a0 t exactly.
TEST(Trajectory, FiniteDifferencesAreExactOnAQuadraticMotion) {
  const Model m = makeHuman48();
  std::mt19937_64 rng(1);
  const Configuration q0 = randomConfiguration(m, rng);
  VectorXd v0 = VectorXd::Random(m.nv()), a0 = VectorXd::Random(m.nv());
  const Vector3d axis = Vector3d(1.0, -2.0, 0.5).normalized();
  v0.segment<3>(3) = 0.7 * axis;
  a0.segment<3>(3) = -0.4 * axis;
  std::vector<double> t;
  std::vector<Configuration> q;
  for (int k = 0; k < 40; ++k) {
    t.push_back(0.01 * k + 0.002 * (k % 3));  // uneven spacing
    Configuration qk(m);
    integrate(m, q0, v0 * t.back() + 0.5 * a0 * t.back() * t.back(), 1.0, qk);
    q.push_back(qk);
  }
  const TrajectoryDerivatives d = differentiate(m, q, t);
  for (std::size_t k = 1; k + 1 < q.size(); ++k) {
    const VectorXd v = v0 + a0 * t[k];
    // Central differences of a quadratic: exact for even spacing, first-order in the spacing
    // difference otherwise; the acceleration formula is exact for any spacing.
    EXPECT_LT((d.acceleration[k] - a0).cwiseAbs().maxCoeff(), 1e-7) << k;
    const double h1 = t[k + 1] - t[k], h0 = t[k] - t[k - 1];
    EXPECT_LT((d.velocity[k] - v - 0.5 * a0 * (h1 - h0)).cwiseAbs().maxCoeff(), 1e-7) << k;
  }
  EXPECT_THROW(differentiate(m, {q0, q0}, {0.0, 1.0}), InvalidArgument);
  EXPECT_THROW(differentiate(m, {q0, q0, q0}, {0.0, 1.0, 1.0}), InvalidArgument);
  std::vector<std::uint8_t> gap(q.size(), 0);
  gap[10] = 1;
  const TrajectoryDerivatives g = differentiate(m, q, t, gap);
  for (std::size_t k = 0; k < q.size(); ++k) EXPECT_EQ(g.valid[k], k >= 8 && k <= 12 ? 0 : 1) << k;
}

TEST(Trajectory, ARealWalkWeighsWhatTheModelWeighs) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  const track::Capture capture = track::loadCapture(bvh);
  const track::TrackSetup setup = track::setupOnModel(io::loadUrdf(urdf), capture, "");
  std::vector<Configuration> q;
  std::vector<std::uint8_t> gap;
  track::runTracking(setup.model, capture, setup.plan, {},
                     [&](int, const Configuration& c, const track::FrameOutcome& o) {
                       q.push_back(c);
                       gap.push_back(o.gap ? 1 : 0);
                     });
  const Model& m = setup.model;
  double mass = 0.0;
  for (int l = 0; l < m.numLinks(); ++l) mass += m.inertial(LinkId(l)).mass;
  ASSERT_GT(mass, 30.0);
  const TrajectoryDerivatives d = differentiate(m, q, capture.clip.times, gap);
  const std::vector<VectorXd> tau = inverseDynamics(m, q, d);
  // Over a walk the vertical base force (the ground reaction the model needs) averages the weight
  // (the mean of m·z̈_com telescopes to m·Δż_com / T ≈ 0).
  double sum = 0.0;
  int count = 0;
  for (std::size_t k = 0; k < tau.size(); ++k)
    if (d.valid[k]) {
      sum += tau[k][2];
      ++count;
    }
  const double weight = mass * 9.80665;
  ASSERT_GT(count, 100);
  EXPECT_NEAR(sum / count, weight, 0.05 * weight) << "mean vertical base force over " << count << " frames";
}

// A smooth motion with analytic ν and ν̇ (world frame): base position and joints are sines of
// 0.3–1.2 Hz; the base yaws 1.8 rad/s (several turns, so its quaternion crosses ±π) while pitching
// about its turning y axis: R(t) = Rz(ψ) Ry(β) R0, ω = ψ̇ e_z + β̇ Rz e_y,
// ω̇ = ψ̈ e_z + β̈ Rz e_y + ψ̇ e_z × (β̇ Rz e_y).
struct AnalyticMotion {
  std::vector<double> t;
  std::vector<Configuration> q;
  std::vector<VectorXd> v, a;
};

AnalyticMotion analyticMotion(const Model& m, double rate, double duration, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int nc = 3 + m.numJoints();  // base position axes, joints
  std::vector<double> offset(nc), amplitude(nc), omega(nc), phase(nc);
  for (int i = 0; i < nc; ++i) {
    offset[i] = i < 3 ? (i == 2 ? 1.0 : 0.5 * u(rng)) : 0.4 * (u(rng) - 0.5);
    amplitude[i] = i < 3 ? 0.05 + 0.2 * u(rng) : 0.1 + 0.3 * u(rng);
    omega[i] = 2.0 * std::numbers::pi * (0.3 + 0.9 * u(rng));
    phase[i] = 2.0 * std::numbers::pi * u(rng);
  }
  const Matrix3d R0 = so3::exp(Vector3d(0.3, -0.2, 0.1));
  const double w_psi = 2.0 * std::numbers::pi * 0.5, w_beta = 2.0 * std::numbers::pi * 0.8;
  AnalyticMotion mo;
  const int n = static_cast<int>(std::lround(duration * rate)) + 1;
  for (int k = 0; k < n; ++k) {
    const double t = k / rate;
    Configuration q(m);
    VectorXd v(m.nv()), a(m.nv());
    for (int i = 0; i < nc; ++i) {
      const double x = omega[i] * t + phase[i];
      const double pos = offset[i] + amplitude[i] * std::sin(x), vel = amplitude[i] * omega[i] * std::cos(x),
                   acc = -amplitude[i] * omega[i] * omega[i] * std::sin(x);
      if (i < 3) {
        q.base_position[i] = pos;
        v[i] = vel;
        a[i] = acc;
      } else {
        q.joints[i - 3] = pos;
        v[6 + i - 3] = vel;
        a[6 + i - 3] = acc;
      }
    }
    const double psi = 1.8 * t + 0.3 * std::sin(w_psi * t), dpsi = 1.8 + 0.3 * w_psi * std::cos(w_psi * t),
                 ddpsi = -0.3 * w_psi * w_psi * std::sin(w_psi * t);
    const double beta = 0.2 * std::sin(w_beta * t + 0.4), dbeta = 0.2 * w_beta * std::cos(w_beta * t + 0.4),
                 ddbeta = -0.2 * w_beta * w_beta * std::sin(w_beta * t + 0.4);
    const Matrix3d Rz = so3::exp(Vector3d(0, 0, psi));
    q.base_rotation = Rz * so3::exp(Vector3d(0, beta, 0)) * R0;
    const Vector3d ez = Vector3d::UnitZ(), ey = Rz * Vector3d::UnitY();
    v.segment<3>(3) = dpsi * ez + dbeta * ey;
    a.segment<3>(3) = ddpsi * ez + ddbeta * ey + dpsi * ez.cross(dbeta * ey);
    mo.t.push_back(t);
    mo.q.push_back(q);
    mo.v.push_back(v);
    mo.a.push_back(a);
  }
  return mo;
}

// RMS over frames [first, last) of the base linear, base angular and joint parts of x − y.
struct PartsRms {
  double linear = 0.0, angular = 0.0, joints = 0.0;
};
PartsRms rmsError(const std::vector<VectorXd>& x, const std::vector<VectorXd>& y, std::size_t first, std::size_t last) {
  PartsRms r;
  for (std::size_t k = first; k < last; ++k) {
    const VectorXd e = x[k] - y[k];
    r.linear += e.head<3>().squaredNorm();
    r.angular += e.segment<3>(3).squaredNorm();
    r.joints += e.tail(e.size() - 6).squaredNorm() / static_cast<double>(e.size() - 6);
  }
  const double n = static_cast<double>(last - first);
  return {std::sqrt(r.linear / n), std::sqrt(r.angular / n), std::sqrt(r.joints / n)};
}

// A ground reaction computed from our own RNEA residual, split between the two feet (each at its
// own world point, with a free moment), written as a wrench CSV, read back, bound to the model and
// matched by time: fed back as external wrenches it leaves no base residual, and joints off the
// feet-to-root paths keep their torques.
TEST(Trajectory, AGroundReactionFromTheResidualCancelsIt) {
  const Model m = makeHuman66();
  const AnalyticMotion mo = analyticMotion(m, 100.0, 2.0, 3);
  const TrajectoryDerivatives d = differentiate(m, mo.q, mo.t);
  const std::vector<VectorXd> tau = inverseDynamics(m, mo.q, d);
  io::WrenchTrajectory w;
  w.bodies.resize(2);
  w.bodies[0].body = "LeftFoot";
  w.bodies[1].body = "RightFoot";
  for (io::BodyWrenches& b : w.bodies) b.has_moment = true;
  for (std::size_t k = 0; k < mo.t.size(); ++k) {
    w.times.push_back(mo.t[k]);
    const Vector3d p_B = mo.q[k].base_position, f = tau[k].head<3>();
    const Vector3d n_O = tau[k].segment<3>(3) + p_B.cross(f);  // the residual's moment about the origin
    const double share = 0.5 + 0.4 * std::sin(3.0 * mo.t[k]);  // left foot's part
    for (int side = 0; side < 2; ++side) {
      const double s = side == 0 ? share : 1.0 - share;
      const Vector3d P(p_B.x() + 0.1, p_B.y() + (side == 0 ? 0.12 : -0.12), 0.0);
      io::BodyWrenches& b = w.bodies[static_cast<std::size_t>(side)];
      b.force.push_back(s * f);
      b.point.push_back(P);
      b.moment.push_back(s * n_O - P.cross(s * f));
    }
  }
  const io::WrenchTrajectory read = io::parseWrenchCsv(io::toWrenchCsv(w), "ground.csv");
  const std::vector<LinkId> links = io::bindWrenchBodies(read, m);
  const io::WrenchTrajectory at = io::resampleWrenches(read, mo.t);
  std::vector<std::vector<ExternalWrench>> per_frame(mo.t.size());
  for (std::size_t k = 0; k < mo.t.size(); ++k)
    for (std::size_t b = 0; b < links.size(); ++b)
      per_frame[k].push_back({links[b], at.bodies[b].force[k], at.bodies[b].point[k], at.bodies[b].moment[k]});
  const std::vector<VectorXd> loaded = inverseDynamics(m, mo.q, d, per_frame);
  const double weight = m.totalMass() * 9.80665;
  double worst_force = 0.0, worst_moment = 0.0, weight_seen = 0.0;
  for (std::size_t k = 0; k < tau.size(); ++k) {
    weight_seen = std::max(weight_seen, tau[k].head<3>().norm());
    worst_force = std::max(worst_force, loaded[k].head<3>().norm());
    worst_moment = std::max(worst_moment, loaded[k].segment<3>(3).norm());
    // Arms and head are off the feet's paths to the root: same torques.
    const int arm = 6 + m.jointId("jRightShoulder_rotx").value;
    EXPECT_LT(std::abs(loaded[k][arm] - tau[k][arm]), 1e-9 * weight) << k;
  }
  ASSERT_GT(weight_seen, 0.5 * weight);  // the residual being cancelled is the size of the weight
  EXPECT_LT(worst_force, 1e-9 * weight);
  EXPECT_LT(worst_moment, 1e-9 * weight);  // N m, lever arms ~1 m
  const int knee = 6 + m.jointId("jLeftKnee_roty").value;
  EXPECT_GT(std::abs(loaded[10][knee] - tau[10][knee]), 1.0) << "the load passes through the legs";

  // Bad external input is an InvalidArgument, never NaN.
  EXPECT_THROW(inverseDynamics(m, mo.q, d, std::span(per_frame).first(3)), InvalidArgument);
  auto bad = per_frame;
  bad[7][1].force.x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(inverseDynamics(m, mo.q, d, bad), InvalidArgument);
  bad = per_frame;
  bad[7][0].link = LinkId(m.numLinks());
  EXPECT_THROW(inverseDynamics(m, mo.q, d, bad), InvalidArgument);
}

// The frames loop allocates nothing beyond the result: twice the frames, one more VectorXd each.
TEST(Trajectory, InverseDynamicsAllocatesOnlyItsResult) {
  if (!testing::AllocationCounter::countsMalloc()) GTEST_SKIP() << "malloc is not counted under a sanitizer";
  const Model m = makeHuman48();
  const AnalyticMotion mo = analyticMotion(m, 100.0, 1.0, 4);
  const TrajectoryDerivatives d = differentiate(m, mo.q, mo.t);
  std::vector<std::vector<ExternalWrench>> wrenches(mo.t.size(),
                                                    {ExternalWrench{LinkId(3)}, ExternalWrench{LinkId(9)}});
  const auto count = [&](std::size_t frames) {
    const std::vector<Configuration> q(mo.q.begin(), mo.q.begin() + static_cast<std::ptrdiff_t>(frames));
    TrajectoryDerivatives df;
    df.velocity.assign(d.velocity.begin(), d.velocity.begin() + static_cast<std::ptrdiff_t>(frames));
    df.acceleration.assign(d.acceleration.begin(), d.acceleration.begin() + static_cast<std::ptrdiff_t>(frames));
    df.valid.assign(d.valid.begin(), d.valid.begin() + static_cast<std::ptrdiff_t>(frames));
    testing::AllocationCounter guard;
    const std::vector<VectorXd> tau = inverseDynamics(m, q, df, std::span(wrenches).first(frames));
    return guard.count();
  };
  EXPECT_EQ(count(80) - count(40), 40);
}

TEST(Trajectory, ButterworthGainAndCubicsPass) {
  const double fs = 100.0, fc = 6.0;
  // Gain at the cutoff: −3 dB (1/√2), measured on a sine away from the ends.
  std::vector<double> x(1000);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::sin(2.0 * std::numbers::pi * fc * k / fs);
  lowPassFilter(x, fs, fc);
  double peak = 0.0;
  for (std::size_t k = 300; k < 700; ++k) peak = std::max(peak, std::abs(x[k]));
  EXPECT_NEAR(peak, 1.0 / std::numbers::sqrt2, 2e-3);
  // A cubic passes unchanged away from the ends (the filter is flat to 4th order at 0 Hz); the
  // odd-reflection padding continues its linear trend, so even the ends stay close.
  const auto cubic = [](double t) { return 0.3 - 1.2 * t + 0.8 * t * t - 0.2 * t * t * t; };
  std::vector<double> y(500);
  for (std::size_t k = 0; k < y.size(); ++k) y[k] = cubic(k / fs);
  lowPassFilter(y, fs, fc);
  double interior = 0.0;
  for (std::size_t k = 100; k < 400; ++k) interior = std::max(interior, std::abs(y[k] - cubic(k / fs)));
  EXPECT_LT(interior, 1e-9);
  EXPECT_THROW(lowPassFilter(y, fs, 50.0), InvalidArgument);  // at Nyquist
  EXPECT_THROW(lowPassFilter(y, fs, 0.0), InvalidArgument);
  y[3] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(lowPassFilter(y, fs, fc), InvalidArgument);
}

// Runs between gaps are filtered apart: a motion linear in time on each side of a gap (a jump
// across it) comes back unchanged — filtered together the jump would leak into both runs.
TEST(Trajectory, LowPassFiltersRunsBetweenGapsApart) {
  const Model m = makeHuman48();
  std::mt19937_64 rng(8);
  const Configuration q0 = randomConfiguration(m, rng), q1 = randomConfiguration(m, rng);
  const VectorXd v0 = VectorXd::Random(m.nv()), v1 = VectorXd::Random(m.nv());
  std::vector<double> t;
  std::vector<Configuration> q;
  std::vector<std::uint8_t> gap;
  for (int k = 0; k < 200; ++k) {
    t.push_back(0.01 * k);
    Configuration c(m);
    VectorXd lin = (k < 100 ? v0 : v1) * t.back();
    lin.segment<3>(3).setZero();  // the base orientation constant per run (quaternion linear)
    integrate(m, k < 100 ? q0 : q1, lin, 1.0, c);
    q.push_back(c);
    gap.push_back(k >= 98 && k <= 101 ? 1 : 0);
  }
  const std::vector<Configuration> f = lowPassMotion(m, q, t, 6.0, gap);
  for (std::size_t k = 0; k < q.size(); ++k) {
    EXPECT_LT((f[k].joints - q[k].joints).cwiseAbs().maxCoeff(), 1e-9) << k;
    EXPECT_LT((f[k].base_position - q[k].base_position).norm(), 1e-9) << k;
    EXPECT_LT((f[k].base_rotation - q[k].base_rotation).norm(), 1e-9) << k;
  }
  std::vector<double> uneven = t;
  uneven[50] += 0.004;  // one interval 40 % longer than the others
  EXPECT_THROW(lowPassMotion(m, q, uneven, 6.0, gap), InvalidArgument);
  EXPECT_THROW(lowPassMotion(m, q, t, 50.0, gap), InvalidArgument);  // Nyquist of 100 Hz
  EXPECT_THROW(lowPassMotion(m, q, t, -1.0), InvalidArgument);
}

// Noise of 1 mm on the base position and 0.5° on the base orientation and every joint, sampled at
// 100 Hz: raw finite differences amplify it by 1/Δt²; the 6 Hz zero-lag low-pass before them
// brings the accelerations back near the analytic ones.
TEST(Trajectory, LowPassAccelerationsOfANoisyMotion) {
  const Model m = makeHuman48();
  const AnalyticMotion mo = analyticMotion(m, 100.0, 6.0, 11);
  std::mt19937_64 rng(12);
  std::normal_distribution<double> mm(0.0, 1e-3), half_degree(0.0, 0.5 * std::numbers::pi / 180.0);
  std::vector<Configuration> noisy = mo.q;
  for (Configuration& c : noisy) {
    for (int i = 0; i < 3; ++i) c.base_position[i] += mm(rng);
    c.base_rotation = so3::exp(randomVector3(half_degree, rng)) * c.base_rotation;
    for (Eigen::Index j = 0; j < c.joints.size(); ++j) c.joints[j] += half_degree(rng);
  }
  const TrajectoryDerivatives raw = differentiate(m, noisy, mo.t);
  const TrajectoryDerivatives smooth = differentiate(m, lowPassMotion(m, noisy, mo.t, 6.0), mo.t);
  const std::size_t n = mo.t.size();
  const PartsRms fd = rmsError(raw.acceleration, mo.a, 0, n), bw = rmsError(smooth.acceleration, mo.a, 0, n);
  const PartsRms bw_interior = rmsError(smooth.acceleration, mo.a, 100, n - 100);
  std::printf(
      "noisy accelerations, RMS error (fd / butterworth 6 Hz / interior): base linear %.3g / %.3g / %.3g m/s^2, "
      "base angular %.3g / %.3g / %.3g rad/s^2, joints %.3g / %.3g / %.3g rad/s^2\n",
      fd.linear, bw.linear, bw_interior.linear, fd.angular, bw.angular, bw_interior.angular, fd.joints, bw.joints,
      bw_interior.joints);
  EXPECT_GT(fd.linear / bw.linear, 20.0);
  EXPECT_GT(fd.angular / bw.angular, 20.0);
  EXPECT_GT(fd.joints / bw.joints, 20.0);
}

// Without noise the low-pass only biases the motion, by 1 − G(f) ≈ 0.41 (f/f_c)⁴: doubling the
// cutoff divides the acceleration error by ~16 until the differences' O(Δt²) error is reached.
TEST(Trajectory, LowPassAccelerationsConvergeAsTheCutoffRises) {
  const Model m = makeHuman48();
  const AnalyticMotion mo = analyticMotion(m, 1000.0, 8.0, 13);
  const std::size_t n = mo.t.size(), first = 2000, last = n - 2000;  // away from the ends
  const PartsRms fd = rmsError(differentiate(m, mo.q, mo.t).acceleration, mo.a, first, last);
  std::vector<double> errors;
  for (const double fc : {2.0, 4.0, 8.0, 16.0}) {
    const TrajectoryDerivatives d = differentiate(m, lowPassMotion(m, mo.q, mo.t, fc), mo.t);
    const PartsRms e = rmsError(d.acceleration, mo.a, first, last);
    errors.push_back(std::max({e.linear, e.angular, e.joints}));
    std::printf("noise-free, cutoff %4.0f Hz: acceleration RMS error base linear %.3g, angular %.3g, joints %.3g\n", fc,
                e.linear, e.angular, e.joints);
  }
  std::printf("noise-free, finite differences only: %.3g, %.3g, %.3g\n", fd.linear, fd.angular, fd.joints);
  for (std::size_t i = 0; i + 2 < errors.size(); ++i) EXPECT_GT(errors[i] / errors[i + 1], 10.0) << i;
  EXPECT_LT(errors.back(), 1e-3);  // rad/s² or m/s², on accelerations of ~10
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
