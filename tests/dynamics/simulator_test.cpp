// The forward simulator: a free-floating human with no torques and no gravity keeps its kinetic
// energy and momentum over 10 s of RK4 at 1 kHz; free fall follows g exactly; no allocation.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/simulator.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/format.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

Model massiveHuman66() {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto body = [&] {
    Inertial in;
    in.mass = 0.5 + 4.5 * u(rng);
    in.com = (randomVector3(u, rng) - Vector3d::Constant(0.5)) * 0.2;
    const Vector3d s = Vector3d::Constant(0.05) + 0.3 * randomVector3(u, rng);
    in.inertia = (in.mass / 12.0 *
                  Vector3d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y()))
                     .asDiagonal();
    return in;
  };
  const Model m = makeHuman66();
  ModelBuilder b(m.name(), m.linkName(LinkId(0)), BaseType::Floating, body());
  for (int j = 0; j < m.numJoints(); ++j) {
    JointSpec s = jointSpecOf(m, JointId(j));
    s.child_inertial = body();
    b.addJoint(s);
  }
  return b.build();
}

TEST(Simulator, AFreeFloatingHumanKeepsItsEnergyAndMomentum) {
  const Model m = massiveHuman66();
  Simulator sim(m, Integrator::RungeKutta4, Vector3d::Zero());
  std::mt19937_64 rng(4);
  std::normal_distribution<double> g(0.0, 0.5);
  VectorXd v(m.nv());
  for (int i = 0; i < m.nv(); ++i) v[i] = g(rng);
  sim.setState(randomConfiguration(m, rng), v);
  const double e0 = sim.kineticEnergy();
  const Vector6d h0 = sim.momentum();
  const VectorXd zero = VectorXd::Zero(m.nv());
  double worst_e = 0.0, worst_h = 0.0;
  for (int k = 1; k <= 10000; ++k) {  // 10 s at 1 kHz
    sim.step(1e-3, zero);
    if (k % 500 == 0) {
      worst_e = std::max(worst_e, std::abs(sim.kineticEnergy() - e0) / e0);
      worst_h = std::max(worst_h, (sim.momentum() - h0).norm() / h0.norm());
    }
  }
  RecordProperty("relative_energy_drift", testing::sci(worst_e));
  RecordProperty("relative_momentum_drift", testing::sci(worst_h));
  EXPECT_LT(worst_e, 1e-8) << "kinetic energy " << e0 << " J";
  EXPECT_LT(worst_h, 1e-8);
  EXPECT_GT(sim.velocity().cwiseAbs().maxCoeff(), 0.1);  // it did move
}

TEST(Simulator, FreeFallFollowsGravity) {
  const Model m = massiveHuman66();
  for (const Integrator integ : {Integrator::RungeKutta4, Integrator::SemiImplicitEuler}) {
    Simulator sim(m, integ);
    std::mt19937_64 rng(8);
    Configuration q = randomConfiguration(m, rng);
    VectorXd v = VectorXd::Zero(m.nv());
    v.head<3>() = Vector3d(0.3, -0.2, 1.0);
    sim.setState(q, v);
    DynamicsData d(m);
    const Vector3d c0 = centerOfMass(m, d, q);
    const double h = 1e-3;
    for (int k = 0; k < 500; ++k) sim.step(h, VectorXd::Zero(m.nv()));
    const double t = 0.5;
    const Vector3d expected = c0 + Vector3d(0.3, -0.2, 1.0) * t + 0.5 * kStandardGravity * t * t;
    const Vector3d got = centerOfMass(m, d, sim.configuration());
    // RK4 is exact on the quadratic; symplectic Euler is off by h·g·t/2 in height.
    const double tol = integ == Integrator::RungeKutta4 ? 1e-9 : 0.5 * h * 9.81 * t + 1e-9;
    EXPECT_LT((got - expected).norm(), tol) << static_cast<int>(integ);
  }
}

TEST(Simulator, BadInputAndNoAllocation) {
  const Model m = massiveHuman66();
  Simulator sim(m);
  EXPECT_THROW(sim.setState(Configuration(m), VectorXd::Zero(3)), InvalidArgument);
  EXPECT_THROW(sim.step(0.0, VectorXd::Zero(m.nv())), InvalidArgument);
  EXPECT_THROW(sim.step(1e-3, VectorXd::Constant(m.nv(), std::nan(""))), InvalidArgument);
  const VectorXd tau = VectorXd::Zero(m.nv());
  sim.step(1e-3, tau);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    sim.step(1e-3, tau);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
