// The dynamics filter with measured loads (ContactForces::Measured) and RRA's mass-centre
// adjustment: the measured wrenches are applied, not replaced (ABA under the torques and exactly
// those wrenches gives the filtered motion, the base gets nothing), the base rows balance (or keep
// the soft residual the cost says), step() does not allocate, bad input is refused; a centre-of-
// mass offset hidden in the loads is recovered by estimateComAdjustment. The gait2354 comparison
// with OpenSim RRA is tests/cli/dynamics_filter_test.cpp.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <cmath>
#include <memory>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/com_adjustment.hpp"
#include "kinetrack/dynamics/dynamics_filter.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/filter_fixtures.hpp"
#include "testing/format.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

std::shared_ptr<const Model> human() { return std::make_shared<const Model>(makeBuiltinModel("human66")); }

using testing::standing;
using testing::swaying;
using testing::times;

// Plates that carry the weight, split between the feet, each at a point under its foot with a
// small free moment, varying in time: not what the motion needs exactly.
std::vector<std::vector<ExternalWrench>> plates(const Model& m, const std::vector<ContactBody>& feet,
                                                const std::vector<Configuration>& q) {
  Data d(m);
  std::vector<std::vector<ExternalWrench>> out(q.size(), std::vector<ExternalWrench>(feet.size()));
  const double weight = m.totalMass() * 9.80665;
  for (std::size_t k = 0; k < q.size(); ++k) {
    forwardKinematics(m, d, q[k]);
    const double s = 0.5 + 0.2 * std::sin(0.1 * static_cast<double>(k));
    for (std::size_t b = 0; b < feet.size(); ++b) {
      ExternalWrench& w = out[k][b];
      w.link = feet[b].link;
      const Transform& X = d.link[static_cast<std::size_t>(feet[b].link.value)];
      w.point = X.p + X.R * (0.5 * (feet[b].points[0] + feet[b].points[2]));
      w.point.z() = 0.0;
      w.force = Vector3d(5.0 * std::cos(0.2 * static_cast<double>(k)), -3.0, (b == 0 ? s : 1.0 - s) * weight);
      w.moment = Vector3d(0.0, 0.0, 0.5);
    }
  }
  return out;
}

TEST(DynamicsFilterMeasured, AppliesTheMeasuredLoadsAndBalancesTheBase) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o = DynamicsFilterOptions::measuredLoads();
  o.residual_softness = 0.0;  // exact balance
  o.head = m->linkId("Head");
  DynamicsFilter filter(m, feet, o);
  const double dt = 0.01;
  const int n = 100;
  const auto q = swaying(*m, standing(*m, feet), n, dt, 0.05, 11);
  const auto loads = plates(*m, feet, q);
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(2 * n), 1);
  const FilteredMotion out = filterMotion(filter, q, times(n, dt), flags, loads);
  DynamicsData dd(*m);
  double worst_acc = 0.0, worst_residual = 0.0, worst_wrench = 0.0, before = 0.0;
  for (int k = 0; k < n; ++k) {
    const DynamicsFilterFrame& f = out.frames[static_cast<std::size_t>(k)];
    ASSERT_STREQ(outcomeName(f), "ok") << "frame " << k;
    worst_residual = std::max(worst_residual, f.residual_after.cwiseAbs().maxCoeff());
    before = std::max(before, f.residual_before.head<3>().norm());
    // The reported wrenches are the measured ones, moved to the link origin.
    for (std::size_t b = 0; b < feet.size(); ++b) {
      const ExternalWrench& e = loads[static_cast<std::size_t>(k)][b];
      const ExternalWrench& r = f.wrenches[b];
      worst_wrench = std::max(worst_wrench, (r.force - e.force).norm());
      worst_wrench = std::max(worst_wrench, (r.moment - (e.moment + (e.point - r.point).cross(e.force))).norm());
    }
    // ABA under the actuated torques (the base gets nothing) and the measured wrenches.
    VectorXd tau = f.tau;
    tau.head<6>().setZero();
    const VectorXd& a = aba(*m, dd, f.q, f.v, tau, loads[static_cast<std::size_t>(k)]);
    worst_acc = std::max(worst_acc, (a - f.acceleration).cwiseAbs().maxCoeff());
  }
  RecordProperty("max_residual_force_before_n", testing::sci(before));
  RecordProperty("max_residual_after", testing::sci(worst_residual));
  RecordProperty("max_aba_acceleration_difference", testing::sci(worst_acc));
  EXPECT_GT(before, 5.0);  // the plates do not explain the reference
  EXPECT_LT(worst_residual, 1e-6);
  EXPECT_LT(worst_acc, 1e-7);
  EXPECT_LT(worst_wrench, 1e-9);
}

// A soft residual keeps what its cost says: between none and the reference's, and less the
// softer the base is allowed to be wrong (σ → 0).
TEST(DynamicsFilterMeasured, ASoftResidualTradesTheResidualForLessChange) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  const double dt = 0.01;
  const int n = 60;
  const auto q = swaying(*m, standing(*m, feet), n, dt, 0.05, 12);
  const auto loads = plates(*m, feet, q);
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(2 * n), 1);
  double residual[3], change[3];
  const double sigma[3] = {0.0, 0.03, 1.0};
  for (int i = 0; i < 3; ++i) {
    DynamicsFilterOptions o = DynamicsFilterOptions::measuredLoads();
    o.residual_softness = sigma[i];
    DynamicsFilter filter(m, feet, o);
    const FilteredMotion out = filterMotion(filter, q, times(n, dt), flags, loads);
    residual[i] = change[i] = 0.0;
    for (const DynamicsFilterFrame& f : out.frames) {
      residual[i] += f.residual_after.head<3>().squaredNorm();
      change[i] += f.change.squaredNorm();
    }
  }
  EXPECT_LT(residual[0], 1e-12);
  EXPECT_GT(residual[1], residual[0]);
  EXPECT_GT(residual[2], residual[1]);
  EXPECT_LT(change[1], change[0]);
  EXPECT_LT(change[2], change[1]);
}

TEST(DynamicsFilterMeasured, BadInputIsRefused) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o = DynamicsFilterOptions::measuredLoads();
  o.force_tracking = 1.0;  // meaningless with the loads applied
  EXPECT_THROW(DynamicsFilter(m, feet, o), InvalidArgument);
  o.force_tracking = 0.0;
  o.residual_softness = -1.0;
  EXPECT_THROW(DynamicsFilter(m, feet, o), InvalidArgument);
  o.residual_softness = 0.03;
  DynamicsFilter filter(m, feet, o);
  const Configuration q = standing(*m, feet);
  const VectorXd z = VectorXd::Zero(m->nv());
  const std::uint8_t both[2] = {1, 1};
  std::vector<ExternalWrench> one(1);
  EXPECT_THROW(filter.step(q, z, z, 0.01, both), InvalidArgument);       // no measured wrenches
  EXPECT_THROW(filter.step(q, z, z, 0.01, both, one), InvalidArgument);  // one for two bodies
  // A NaN in the measured wrenches holds the frame, output finite.
  std::vector<ExternalWrench> w(2);
  w[0].force.z() = std::nan("");
  const DynamicsFilterFrame& f = filter.step(q, z, z, 0.01, both, w);
  EXPECT_TRUE(f.gap);
  EXPECT_STREQ(outcomeName(f), "invalid_reference");
  EXPECT_TRUE(f.tau.allFinite() && f.q.joints.allFinite());
}

TEST(DynamicsFilterMeasured, StepDoesNotAllocate) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  DynamicsFilterOptions o = DynamicsFilterOptions::measuredLoads();
  o.head = m->linkId("Head");
  o.weighting = ChangeWeighting::InertiaDiagonal;
  DynamicsFilter filter(m, feet, o);
  const Configuration q = standing(*m, feet);
  const VectorXd v = VectorXd::Zero(m->nv()), a = VectorXd::Zero(m->nv());
  const std::uint8_t both[2] = {1, 1}, one[2] = {0, 1};
  std::vector<ExternalWrench> measured(2);
  measured[0].force.z() = measured[1].force.z() = 350.0;
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

// Loads that exactly explain a swaying motion for a model whose T8 (thorax) mass centre sits 3 cm
// forward and 2 cm to the side: on the unshifted model their mean residual moment is not zero,
// and estimateComAdjustment finds the offset (the horizontal axes; the vertical one is kept).
TEST(DynamicsFilterMeasured, ComAdjustmentRecoversAHiddenMassCentreOffset) {
  const auto m = human();
  const std::vector<ContactBody> feet = footContacts(*m);
  const LinkId chest = m->linkId("T8");
  const double dt = 0.01;
  const int n = 100;
  const auto q = swaying(*m, standing(*m, feet), n, dt, 0.05, 13);
  const TrajectoryDerivatives d = differentiate(*m, q, times(n, dt));
  // The thorax axis most nearly vertical at frame 0 is kept; the true offset along the others.
  Data kin(*m);
  forwardKinematics(*m, kin, q[0]);
  int vertical = 0;
  (kin.link[static_cast<std::size_t>(chest.value)].R.transpose() * Vector3d::UnitZ()).cwiseAbs().maxCoeff(&vertical);
  Vector3d truth(0.03, 0.03, 0.03);
  truth[vertical] = 0.0;
  truth[(vertical + 2) % 3] = -0.02;
  const Model shifted = withComOffset(*m, chest, truth);
  // The loads: the shifted model's base residual, applied to the base at its origin.
  DynamicsData dd(shifted);
  std::vector<std::vector<ExternalWrench>> loads(static_cast<std::size_t>(n), std::vector<ExternalWrench>(1));
  for (int k = 0; k < n; ++k) {
    const VectorXd& tau = rnea(shifted, dd, q[static_cast<std::size_t>(k)], d.velocity[static_cast<std::size_t>(k)],
                               d.acceleration[static_cast<std::size_t>(k)]);
    ExternalWrench& w = loads[static_cast<std::size_t>(k)][0];
    w.link = LinkId(0);
    w.point = q[static_cast<std::size_t>(k)].base_position;
    w.force = tau.head<3>();
    w.moment = tau.segment<3>(3);
  }
  const std::vector<int> unactuated = {0, 1, 2, 3, 4, 5}, moments = {3, 4, 5};
  const ComAdjustment c = estimateComAdjustment(*m, chest, q, d, loads, unactuated, moments, kStandardGravity);
  RecordProperty("offset_error_m", testing::sci((c.offset - truth).norm()));
  EXPECT_EQ(c.axis_kept, vertical);
  EXPECT_GT(c.mean_before.tail<3>().norm(), 1.0);  // N m: the offset shows in the mean moments
  EXPECT_LT((c.offset - truth).norm(), 1e-6);
  EXPECT_LT(c.mean_after.tail<3>().norm(), 1e-6);
  // Bad input.
  EXPECT_THROW(estimateComAdjustment(*m, chest, q, d, std::span(loads).first(3), unactuated, moments, kStandardGravity),
               InvalidArgument);
  EXPECT_THROW(estimateComAdjustment(*m, chest, q, d, loads, unactuated, std::vector<int>{3}, kStandardGravity),
               InvalidArgument);
  EXPECT_THROW(withComOffset(*m, chest, Vector3d(std::nan(""), 0.0, 0.0)), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
