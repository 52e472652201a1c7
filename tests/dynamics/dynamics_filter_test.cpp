// The dynamics filter (NAK Eq. 1–5): ABA driven by its torques and contact forces reproduces the
// filtered motion; the residual base wrench after it is zero while the reference's is not; the
// reduced QP agrees with the literal Eq. 2–5 (weighted pseudo-inverse of the big matrix, then the
// null-space reduction of the acceleration change) when no inequality binds; unilateral contact
// and the friction pyramid hold where Eq. 3–5 alone would pull on the ground; bad input gives a
// per-frame status and finite output; step() does not allocate.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <Eigen/QR>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/dynamics_filter.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/filter_fixtures.hpp"
#include "testing/format.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

std::shared_ptr<const Model> human() { return std::make_shared<const Model>(makeBuiltinModel("human66")); }

using testing::standing;
using testing::swaying;
using testing::times;

TEST(DynamicsFilter, FootContactsOfTheBuiltInHumanLieOnTheSole) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  ASSERT_EQ(feet.size(), 2u);
  Data d(*m);
  forwardKinematics(*m, d, Configuration(*m));
  for (const ContactBody& b : feet) {
    ASSERT_EQ(b.points.size(), 4u);
    const Transform& X = d.link[static_cast<std::size_t>(b.link.value)];
    const double z0 = (X.p + X.R * b.points[0]).z();
    for (const Vector3d& p : b.points) EXPECT_NEAR((X.p + X.R * p).z(), z0, 1e-12);
    EXPECT_LT(z0, X.p.z() - 0.03);                        // below the ankle
    EXPECT_GT((b.points[0] - b.points[2]).norm(), 0.15);  // a foot long
  }
  EXPECT_THROW(footContacts(ModelBuilder("bare", "base", BaseType::Floating).build()), InvalidArgument);
}

// fitSolesToStance: a figure standing pitched 15° toe down (the whole body, so the feet too)
// gets soles tilted 15° in the foot frame, lying flat on the ground at that pose, their lowest
// point kept; a foot that never stands still keeps the model's sole; bad input throws.
TEST(DynamicsFilter, SolesFittedToAPitchedStanceLieFlatOnTheGround) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  Configuration q(*m);
  q.base_rotation = Eigen::AngleAxisd(15.0 * M_PI / 180.0, Vector3d::UnitY()).toRotationMatrix();
  std::vector<Configuration> qs(10, q);
  std::vector<double> t(10);
  for (int k = 0; k < 10; ++k) t[static_cast<std::size_t>(k)] = 0.01 * k;
  const std::vector<ContactBody> fitted = fitSolesToStance(*m, feet, qs, t, GroundPlane{});
  ASSERT_EQ(fitted.size(), 2u);
  Data d(*m);
  forwardKinematics(*m, d, q);
  for (std::size_t b = 0; b < 2; ++b) {
    EXPECT_NEAR(soleTilt(*m, feet[b]), 0.0, 1e-9);
    EXPECT_NEAR(soleTilt(*m, fitted[b]) * 180.0 / M_PI, 15.0, 1e-6);
    const Transform& X = d.link[static_cast<std::size_t>(feet[b].link.value)];
    double low_before = 1e9, low_after = 1e9, high_after = -1e9;
    for (const Vector3d& p : feet[b].points) low_before = std::min(low_before, (X.p + X.R * p).z());
    for (const Vector3d& p : fitted[b].points) {
      low_after = std::min(low_after, (X.p + X.R * p).z());
      high_after = std::max(high_after, (X.p + X.R * p).z());
    }
    EXPECT_NEAR(low_after, low_before, 1e-12);
    EXPECT_NEAR(high_after, low_after, 1e-12);  // flat on the ground at the stance pose
  }
  // Moving at 1 m/s in every frame: never still, the soles stay the model's.
  for (int k = 0; k < 10; ++k) qs[static_cast<std::size_t>(k)].base_position.x() = 0.01 * k;
  const std::vector<ContactBody> moving = fitSolesToStance(*m, feet, qs, t, GroundPlane{}, 0.15);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < feet[b].points.size(); ++i) EXPECT_EQ(moving[b].points[i], feet[b].points[i]);
  EXPECT_THROW(fitSolesToStance(*m, feet, qs, std::vector<double>(9, 0.0), GroundPlane{}), InvalidArgument);
  EXPECT_THROW(fitSolesToStance(*m, feet, qs, std::vector<double>(10, 0.0), GroundPlane{}), InvalidArgument);
  EXPECT_THROW(fitSolesToStance(*m, feet, qs, t, GroundPlane{}, 0.0), InvalidArgument);
}

// The filter's output against forward dynamics, frame by frame, over 1 s of a swaying stance
// whose right foot lifts at 0.6 s: ABA at the filtered state under τ (actuated rows; the base
// gets nothing) and the contact wrenches gives the filter's ν̇, and the semi-implicit Euler step
// gives the next frame: the motion is exactly what these torques and forces produce. Whole runs
// open loop: dynamics_filter_replay_test.cpp.
TEST(DynamicsFilter, AbaAtEveryFrameUnderItsTorquesAndContactForcesGivesTheFilteredMotion) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o;
  o.contact_source = ContactSource::Given;
  o.head = m->linkId("Head");
  o.snap_to_ground = false;         // weld where the feet are
  o.contact_point_tolerance = 1.0;  // every point touches: welds throughout
  DynamicsFilter filter(m, feet, o);
  const double dt = 0.005;
  const int n = 201;  // 1 s
  const auto q = swaying(*m, standing(*m, feet), n, dt, 0.08, 3);
  std::vector<std::uint8_t> flags;
  for (int k = 0; k < n; ++k) flags.insert(flags.end(), {std::uint8_t(k < 120 ? 1 : 0), std::uint8_t(1)});
  filter.reset(q[0], VectorXd::Zero(m->nv()));
  const FilteredMotion out = filterMotion(filter, q, times(n, dt), flags);
  ASSERT_EQ(out.frames.size(), static_cast<std::size_t>(n));
  // Frame by frame through ABA.
  DynamicsData dd(*m);
  double worst_acc = 0.0, worst_step = 0.0, worst_residual = 0.0;
  for (int k = 0; k + 1 < n; ++k) {
    const DynamicsFilterFrame& f = out.frames[static_cast<std::size_t>(k)];
    VectorXd tau = f.tau;
    worst_residual = std::max(worst_residual, tau.head<6>().cwiseAbs().maxCoeff());
    tau.head<6>().setZero();
    const VectorXd& a = aba(*m, dd, f.q, f.v, tau, f.wrenches);
    worst_acc = std::max(worst_acc, (a - f.acceleration).cwiseAbs().maxCoeff());
    Configuration next(*m);
    integrate(*m, f.q, f.v + dt * a, dt, next);
    VectorXd e(m->nv());
    difference(*m, out.frames[static_cast<std::size_t>(k + 1)].q, next, e);
    worst_step = std::max(worst_step, e.cwiseAbs().maxCoeff());
  }
  RecordProperty("max_aba_acceleration_difference", testing::sci(worst_acc));
  RecordProperty("max_residual_after", testing::sci(worst_residual));
  EXPECT_LT(worst_acc, 1e-7);
  EXPECT_LT(worst_step, 1e-9);
  EXPECT_LT(worst_residual, 1e-6);
  // The contacts did work: the stance foot carries about the weight.
  EXPECT_NEAR(out.frames[150].wrenches[1].force.z(), m->totalMass() * 9.80665, 0.3 * m->totalMass() * 9.80665);
  EXPECT_EQ(out.frames[150].in_contact[0], 0);
}

// Where the reference is physically infeasible the residual before is large, after it is zero,
// the feet only push and stay inside the friction pyramid.
TEST(DynamicsFilter, RemovesTheResidualAndKeepsContactForcesUnilateralAndInsideTheCone) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o;
  o.head = m->linkId("Head");
  o.contact_speed = 10.0;  // detected by height alone
  DynamicsFilter filter(m, feet, o);
  const double dt = 1.0 / 120.0;
  const int n = 120;
  auto q = swaying(*m, standing(*m, feet), n, dt, 0.05, 9);
  // From 0.3 s to 0.5 s the reference pelvis drops at 2 g: only pulling on the ground explains it.
  for (int k = 0; k < n; ++k) {
    const double t = k * dt, s = std::clamp(t - 0.3, 0.0, 0.2);
    q[static_cast<std::size_t>(k)].base_position.z() -= 9.80665 * s * s;
  }
  const FilteredMotion out = filterMotion(filter, q, times(n, dt));
  const double weight = m->totalMass() * 9.80665;
  double before = 0.0, after = 0.0;
  int unilateral = 0;
  for (int k = 1; k + 1 < n; ++k) {
    const DynamicsFilterFrame& f = out.frames[static_cast<std::size_t>(k)];
    ASSERT_TRUE(f.acceleration.allFinite());
    EXPECT_STREQ(outcomeName(f), "ok") << "frame " << k;
    EXPECT_EQ(f.status, ik::Status::Converged);
    EXPECT_EQ(f.iterations, 1);
    before = std::max(before, f.residual_before.head<3>().norm());
    after = std::max(after, f.residual_after.norm());
    unilateral += f.binding_unilateral;
    for (const Vector3d& F : f.point_forces) {
      EXPECT_GE(F.z(), -1e-9);
      EXPECT_LE(std::abs(F.x()), o.friction * F.z() + 1e-9);
      EXPECT_LE(std::abs(F.y()), o.friction * F.z() + 1e-9);
    }
    // No pull: the centre of mass cannot fall faster than g (base rows of M ν̇ + h = Σ Jᵀw).
    Vector3d total = Vector3d::Zero();
    for (const ExternalWrench& w : f.wrenches) total += w.force;
    EXPECT_GE(total.z(), -1e-6);
  }
  RecordProperty("max_residual_force_before_n", testing::sci(before));
  RecordProperty("max_residual_after", testing::sci(after));
  EXPECT_GT(before, 0.5 * weight);  // the 2 g drop needs ~ the weight pulling down
  EXPECT_LT(after, 1e-6 * weight);
  EXPECT_GT(unilateral, 0);
}

// Without binding inequalities (quiet stance, small reference accelerations), W = 1 and ε → 0,
// the reduced QP's Δν̇ equals Eq. 3–5 done literally on the full Eq. 2 system.
TEST(DynamicsFilter, AgreesWithTheLiteralWeightedPseudoInverseAndNullSpaceReduction) {
  const auto m = human();
  const int nv = m->nv(), nj = m->numJoints();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o;
  o.contact_source = ContactSource::Given;
  o.contact_kp = o.contact_kd = 0.0;
  o.pin_contacts = false;  // Eq. 2's contact rows as they are: J_c ν̇ + J̇_c ν = 0
  o.residual_before = false;
  DynamicsFilter filter(m, feet, o);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  const Configuration q = standing(*m, feet);
  VectorXd v(nv), a(nv);
  for (int i = 0; i < nv; ++i) v[i] = 0.05 * g(rng), a[i] = 0.3 * g(rng);
  const std::uint8_t both[2] = {1, 1};
  const DynamicsFilterFrame& f = filter.step(q, v, a, 0.01, both);
  ASSERT_EQ(f.binding_unilateral + f.binding_friction, 0);
  EXPECT_LT((f.desired - a).norm(), 1e-12);  // at the reference, feedback adds nothing
  // Literal Eq. 2: [M −J_cᵀ −H_Jᵀ; J_c 0 0] (Δν̇; τ_C; τ_J) = (−M ν̇ᵈ − h; −J_c ν̇ᵈ − J̇_c ν).
  DynamicsData dd(*m);
  const MatrixXd M = crba(*m, dd, q);
  const VectorXd h = nonlinearEffects(*m, dd, q, v);
  Data kin(*m);
  MatrixXd Jc(12, nv);
  VectorXd Jdv(12);
  for (int b = 0; b < 2; ++b) {
    const FrameId fr = m->linkFrame(feet[static_cast<std::size_t>(b)].link);
    Matrix6Xd J(6, nv), Jp(6, nv), Jm(6, nv);
    forwardKinematics(*m, kin, q);
    frameJacobian(*m, kin, fr, J);
    Jc.middleRows<6>(6 * b) = J;
    // J̇ν by central differences of J along ν (independent of the filter's RNEA-based bias).
    const double eps = 1e-6;
    Configuration qp(*m), qm(*m);
    integrate(*m, q, v, eps, qp);
    integrate(*m, q, v, -eps, qm);
    forwardKinematics(*m, kin, qp);
    frameJacobian(*m, kin, fr, Jp);
    forwardKinematics(*m, kin, qm);
    frameJacobian(*m, kin, fr, Jm);
    Jdv.segment<6>(6 * b) = (Jp - Jm) * v / (2.0 * eps);
  }
  MatrixXd W = MatrixXd::Zero(nv + 12, nv + 12 + nj);
  W.topLeftCorner(nv, nv) = M;
  W.block(0, nv, nv, 12) = -Jc.transpose();
  W.block(6, nv + 12, nj, nj) = -MatrixXd::Identity(nj, nj);
  W.bottomLeftCorner(12, nv) = Jc;
  VectorXd u(nv + 12);
  u.head(nv) = -M * f.desired - h;
  u.tail(12) = -Jc * f.desired - Jdv;
  // Pseudo-inverses with a rank threshold: V = 1 − W⁺W is formed explicitly, so its zero
  // singular values come out at rounding level and must not be inverted.
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod;
  cod.setThreshold(1e-10);
  cod.compute(W);
  const MatrixXd Wp = cod.pseudoInverse();
  const VectorXd x0 = Wp * u;                                          // Eq. 3, y = 0
  const MatrixXd V = MatrixXd::Identity(W.cols(), W.cols()) - Wp * W;  // null space
  const MatrixXd VG = V.topRows(nv);                                   // Eq. 4
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod_v;
  cod_v.setThreshold(1e-10);
  cod_v.compute(VG);
  const VectorXd y = -cod_v.solve(x0.head(nv));  // Eq. 5
  const VectorXd change = x0.head(nv) + VG * y;
  RecordProperty("literal_change_norm", testing::sci(change.norm()));
  RecordProperty("difference", testing::sci((change - f.change).norm()));
  EXPECT_GT(change.norm(), 0.1);  // not a trivial zero
  EXPECT_LT((change - f.change).norm(), 1e-5 * change.norm());
}

// The Detect rule measures the speed of the touching points only: a foot striking with its heel
// (toe up by more than the point tolerance) while rolling about the heel is in contact — the
// heel is still — although the mean speed of all four sole points is above the threshold.
TEST(DynamicsFilter, DetectionTakesTheSpeedOfTheTouchingPoints) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  const ContactBody& right = feet[0];
  Configuration q = standing(*m, feet);
  Data d(*m);
  forwardKinematics(*m, d, q);
  const Transform& X = d.link[static_cast<std::size_t>(right.link.value)];
  const Vector3d h0 = X.p + X.R * right.points[2], h1 = X.p + X.R * right.points[3];
  const Vector3d c = 0.5 * (h0 + h1), axis = (h0 - h1).normalized();
  // Turn the whole figure about the heel line so that the ball rises by ~6 cm.
  for (const double sign : {1.0, -1.0}) {
    const Matrix3d R = Eigen::AngleAxisd(sign * 0.3, axis).toRotationMatrix();
    Configuration turned = q;
    turned.base_rotation = R * q.base_rotation;
    turned.base_position = c + R * (q.base_position - c);
    forwardKinematics(*m, d, turned);
    const Transform& Y = d.link[static_cast<std::size_t>(right.link.value)];
    if ((Y.p + Y.R * right.points[0]).z() > c.z() + 0.04) {
      q = turned;
      break;
    }
  }
  forwardKinematics(*m, d, q);
  const Transform& Y = d.link[static_cast<std::size_t>(right.link.value)];
  ASSERT_GT((Y.p + Y.R * right.points[0]).z(), c.z() + 0.04);  // toe up
  GroundPlane ground;
  ground.offset = c.z();
  // Rolling about the heel line at 6 rad/s: the heel still, the ball at ~1.1 m/s.
  const Vector3d omega = 6.0 * axis;
  VectorXd v = VectorXd::Zero(m->nv());
  v.head<3>() = omega.cross(q.base_position - c);
  v.segment<3>(3) = omega;
  Matrix6Xd J(6, m->nv());
  const double tolerance = DynamicsFilterOptions{}.contact_point_tolerance;
  EXPECT_TRUE(touchesGround(*m, d, right, v, ground, 0.03, 0.4, J, tolerance));
  EXPECT_FALSE(touchesGround(*m, d, right, v, ground, 0.03, 0.4, J));  // all points: mean ~0.57 m/s
  const Vector3d ball = Y.p + Y.R * right.points[0];
  EXPECT_GT(omega.cross(ball - c).norm(), 0.8);  // the ball does move
  ground.offset = c.z() - 0.05;                  // the heel 5 cm up: not in contact at 3 cm
  EXPECT_FALSE(touchesGround(*m, d, right, v, ground, 0.03, 0.4, J, tolerance));
}

// A figure sliding sideways at 0.5 m/s when its feet are set down: pinned contacts stop the feet
// within the first step (a plastic touch-down), Baumgarte damping alone (40/s) lets them slide on
// for a few frames (3.6 mm after the touch-down step, 2.6e-6 m pinned).
TEST(DynamicsFilter, PinnedContactsDoNotSlideAfterTouchDown) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  const Configuration q = standing(*m, feet);
  const double dt = 1.0 / 120.0;
  VectorXd v0 = VectorXd::Zero(m->nv());
  v0[1] = 0.5;  // base sideways
  const VectorXd zero = VectorXd::Zero(m->nv());
  const std::uint8_t both[2] = {1, 1};
  double slide[2] = {0.0, 0.0};
  for (const bool pin : {true, false}) {
    DynamicsFilterOptions o;
    o.contact_source = ContactSource::Given;
    o.pin_contacts = pin;
    o.contact_point_tolerance = 1.0;  // welds
    DynamicsFilter filter(m, feet, o);
    filter.reset(q, v0);
    Data d(*m);
    Vector3d first = Vector3d::Zero();
    for (int k = 0; k < 13; ++k) {
      const DynamicsFilterFrame& f = filter.step(q, zero, zero, dt, both);
      ASSERT_STREQ(outcomeName(f), "ok");
      if (k == 0) continue;  // the touch-down step
      forwardKinematics(*m, d, f.q);
      const Vector3d p = d.link[static_cast<std::size_t>(feet[0].link.value)].p;
      if (k == 1) first = p;
      slide[pin ? 0 : 1] = std::max(slide[pin ? 0 : 1], (p - first).head<2>().norm());
    }
  }
  RecordProperty("slide_pinned_m", testing::sci(slide[0]));
  RecordProperty("slide_baumgarte_m", testing::sci(slide[1]));
  EXPECT_LT(slide[0], 1e-4);
  EXPECT_GT(slide[1], 2e-3);
}

TEST(DynamicsFilter, BadInputGivesAStatusAndFiniteOutput) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilter filter(m, feet);
  const double dt = 0.01;
  const int n = 60;
  auto q = swaying(*m, standing(*m, feet), n, dt, 0.05, 4);
  q[20].joints[5] = std::numeric_limits<double>::quiet_NaN();
  q[21].base_position.x() = std::numeric_limits<double>::infinity();
  const FilteredMotion out = filterMotion(filter, q, times(n, dt));
  ASSERT_EQ(out.frames.size(), static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const DynamicsFilterFrame& f = out.frames[static_cast<std::size_t>(k)];
    EXPECT_TRUE(f.q.joints.allFinite() && f.q.base_position.allFinite() && f.tau.allFinite() &&
                f.residual_before.allFinite())
        << "frame " << k;
    const bool near_gap = k >= 18 && k <= 23;  // the gap and the difference stencils that use it
    EXPECT_EQ(f.gap, near_gap) << "frame " << k;
    EXPECT_EQ(outcomeName(f) == std::string("invalid_reference"), near_gap) << "frame " << k;
  }
  // Flight: no contact at all, the base follows the ballistic motion (no residual, no force).
  DynamicsFilterOptions o;
  o.contact_source = ContactSource::Given;
  o.max_deviation = 100.0;  // the reference does not fall, the filtered figure does
  DynamicsFilter flight(m, feet, o);
  std::vector<std::uint8_t> none(static_cast<std::size_t>(2 * n), 0);
  const FilteredMotion air = filterMotion(flight, q, times(n, dt), none);
  for (const DynamicsFilterFrame& f : air.frames) {
    if (f.gap) continue;
    EXPECT_STREQ(outcomeName(f), "no_contact");
    EXPECT_TRUE(f.no_contact && !f.reset);
    EXPECT_LT(f.residual_after.norm(), 1e-6);
    EXPECT_EQ(f.wrenches[0].force.norm() + f.wrenches[1].force.norm(), 0.0);
  }
  // A model without mass, bad options and sizes: clear errors.
  ModelBuilder b("massless", "base", BaseType::Floating);
  JointSpec s;
  s.name = "j";
  s.parent = "base";
  s.child = "link";
  b.addJoint(s);
  EXPECT_THROW(DynamicsFilter(std::make_shared<const Model>(b.build()), {}), InvalidArgument);
  o.friction = 0.0;
  EXPECT_THROW(DynamicsFilter(m, feet, o), InvalidArgument);
  o = {};
  o.unactuated = {0, 0};
  EXPECT_THROW(DynamicsFilter(m, feet, o), InvalidArgument);
  DynamicsFilter ok(m, feet);
  EXPECT_THROW(ok.step(q[0], VectorXd::Zero(3), VectorXd::Zero(m->nv()), dt), InvalidArgument);
  EXPECT_THROW(ok.step(q[0], VectorXd::Zero(m->nv()), VectorXd::Zero(m->nv()), 0.0), InvalidArgument);
}

// The words the report writes come from the outcome (ik::Result) and the two event flags, in the
// precedence the report has always written: reset, gap, QP not converged, no contact, ok.
TEST(DynamicsFilter, OutcomeNamesFollowTheFlagsAndStatus) {
  DynamicsFilterFrame f;
  EXPECT_STREQ(outcomeName(f), "ok");
  f.no_contact = true;
  EXPECT_STREQ(outcomeName(f), "no_contact");
  f.status = ik::Status::IterationLimit;
  EXPECT_STREQ(outcomeName(f), "solver_limit");
  f.status = ik::Status::Failed;
  EXPECT_STREQ(outcomeName(f), "solver_limit");
  f.gap = true;
  EXPECT_STREQ(outcomeName(f), "invalid_reference");
  f.reset = true;
  EXPECT_STREQ(outcomeName(f), "reset");
}

TEST(DynamicsFilter, StepDoesNotAllocate) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o;
  o.head = m->linkId("Head");
  o.contact_source = ContactSource::Given;
  o.force_tracking = 1e-3;
  DynamicsFilter filter(m, feet, o);
  const Configuration q = standing(*m, feet);
  const VectorXd v = VectorXd::Zero(m->nv()), a = VectorXd::Zero(m->nv());
  const std::uint8_t both[2] = {1, 1}, one[2] = {0, 1};
  std::vector<ExternalWrench> measured(2);
  for (int k = 0; k < 3; ++k) filter.step(q, v, a, 0.01, both, measured);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    filter.step(q, v, a, 0.01, one, measured);
    filter.step(q, v, a, 0.01, both, measured);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
