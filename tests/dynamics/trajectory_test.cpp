// Inverse dynamics of sampled motions: finite differences on the manifold are exact on a
// quadratic motion (constant ν̇, base turning about a fixed axis), gaps invalidate their stencil,
// and a real walk tracked on a model with real masses has a mean vertical base force equal to
// its weight.
#include <gtest/gtest.h>

#include <numeric>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace {

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

}  // namespace
}  // namespace kinetrack
