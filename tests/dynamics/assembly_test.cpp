// Assembly–disassembly forward dynamics: equal to ABA on open trees (both schedules, 1 and 2
// threads, massless joint chains, external wrenches, fixed and floating base); with loop
// closures equal to the constrained equations of motion solved directly (CRBA + closure
// Jacobians, a KKT system) and the closures' accelerations held; schedule shape (serial = one
// path on a chain, parallel = ⌈log₂ N⌉ + 1 levels; critical path grows like log N); bad input;
// no allocation.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/assembly.hpp"
#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

VectorXd randomVector(int n, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = g(rng);
  return x;
}

AssemblyOptions options(AssemblySchedule schedule, int threads = 1, std::vector<LoopClosure> loops = {},
                        int refinement = 0) {
  AssemblyOptions o;
  o.refinement_steps = refinement;
  o.schedule = schedule;
  o.threads = threads;
  o.loops = std::move(loops);
  return o;
}

Configuration moved(const Model& m, const Configuration& q, const VectorXd& nu, double dt) {
  Configuration out(m);
  integrate(m, q, nu, dt, out);
  return out;
}

std::size_t idx(int i) { return static_cast<std::size_t>(i); }

double relErr(const VectorXd& a, const VectorXd& b) { return (a - b).norm() / std::max(1.0, b.norm()); }

// A serial chain of n links (fixed base), axes alternating y / x / z, 0.1 m apart, each link a
// 1 kg rod: the paper's Table 1 chains.
Model chain(int n) {
  Inertial rod;
  rod.mass = 1.0;
  rod.com = Vector3d(0, 0, 0.05);
  rod.inertia = Vector3d(1e-3, 1e-3, 2e-4).asDiagonal();
  ModelBuilder b("chain" + std::to_string(n), "base", BaseType::Fixed);
  for (int i = 0; i < n; ++i) {
    JointSpec s;
    s.name = "j" + std::to_string(i);
    s.parent = i == 0 ? "base" : "l" + std::to_string(i - 1);
    s.child = "l" + std::to_string(i);
    s.placement.p = Vector3d(0, 0, i == 0 ? 0.0 : 0.1);
    s.axis = i % 3 == 0 ? Vector3d::UnitY() : (i % 3 == 1 ? Vector3d::UnitX() : Vector3d::UnitZ());
    s.child_inertial = rod;
    b.addJoint(s);
  }
  return b.build();
}

std::vector<Model> treeModels() {
  std::vector<Model> models = {makeHuman66(), makeHuman48()};
  HumanModelOptions fixed;
  fixed.base = BaseType::Fixed;
  models.push_back(makeHuman48(fixed));
  models.push_back(chain(7));
  for (const char* rel :
       {"models/icub/iCubGazeboV2_5_model.urdf", "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf"}) {
    const std::string path = testing::sharedFile(rel);
    if (!path.empty()) models.push_back(io::loadUrdf(path));
  }
  return models;
}

TEST(Assembly, EqualsAbaOnOpenTrees) {
  // `worst` is our error against the true ν̇ in units of max(1e-9, 10 × ABA's): below 1e-9 means
  // within 10× of ABA's own error where M is ill-conditioned (measured ≤ 5×), else 1e-9. Measured without refinement
  // (docs/dynamics.md, "Accuracy"): up to ~4e-7 on the iCub (10 g hand links on a 33 kg body), backward error (how far
  // the τ that produces our ν̇ is from the τ given) ~1e-8; one refinement step brings both to ABA's level.
  for (const Model& m : treeModels()) {
    SCOPED_TRACE(m.name());
    DynamicsData d(m);
    for (const AssemblySchedule schedule : {AssemblySchedule::Serial, AssemblySchedule::Parallel})
      for (const int threads : {1, 2})
        for (const int refine : {0, 1}) {
          SCOPED_TRACE(std::string(toString(schedule)) + " x" + std::to_string(threads) + " refine " +
                       std::to_string(refine));
          const AssemblyPlan plan(m, options(schedule, threads, {}, refine));
          AssemblyData ad(plan);
          std::mt19937_64 rng(11);
          double worst = 0.0, backward = 0.0;
          for (int trial = 0; trial < 10; ++trial) {
            const Configuration q = randomConfiguration(m, rng);
            // A physical state: τ produces accelerations of a few rad/s² (random τ on a 10 g
            // finger would ask for 10⁷ rad/s², where M's conditioning decides, not the algorithm).
            const VectorXd v = randomVector(m.nv(), rng, 1.0), truth = randomVector(m.nv(), rng, 3.0);
            // A force-plate-like wrench on the last link and a free moment.
            const ExternalWrench w{LinkId(m.numLinks() - 1), Vector3d(10, -20, 300), Vector3d(0.1, 0.2, 0.0),
                                   Vector3d(1, 2, 3)};
            const std::span<const ExternalWrench> ws(&w, 1);
            const VectorXd tau = rnea(m, d, q, v, truth, ws);
            const VectorXd ref = aba(m, d, q, v, tau, ws);
            const VectorXd got = assemblyForwardDynamics(plan, ad, q, v, tau, ws);
            // Both recover the ν̇ that made τ: our error against ABA's own, which exceeds 1e-9
            // where M is ill-conditioned (a spherical joint near gimbal lock, a 10 g link).
            worst = std::max(worst, relErr(got, truth) / std::max(1e-9, 10.0 * relErr(ref, truth)) * 1e-9);
            backward = std::max(backward, relErr(rnea(m, d, q, v, got, ws), tau));
          }
          if (refine > 0) {
            EXPECT_LT(worst, 1e-9);
            EXPECT_LT(backward, 1e-12);
          } else {
            EXPECT_LT(worst, 1e-6);
            EXPECT_LT(backward, 1e-7);
          }
          RecordProperty("worst", worst);
        }
  }
}

// Spatial (world Plücker) Jacobian of a link: the base columns and the motion subspaces of the
// joints supporting it; and its velocity-product acceleration (at ν̇ = 0, no gravity).
struct LinkMotion {
  MatrixXd J;
  Vector6d bias, velocity;
};
LinkMotion linkMotion(const Model& m, DynamicsData& d, const Configuration& q, const VectorXd& v, int link) {
  LinkMotion r;
  rnea(m, d, q, v, VectorXd::Zero(m.nv()), {}, Vector3d::Zero());
  r.bias = d.acceleration[static_cast<std::size_t>(link)];
  r.velocity = d.velocity[static_cast<std::size_t>(link)];
  r.J = MatrixXd::Zero(6, m.nv());
  if (m.nvBase() == 6) r.J.leftCols<6>() = d.base_subspace;
  for (const std::int32_t j : m.support(LinkId(link)))
    r.J.col(m.nvBase() + j) = d.subspace[static_cast<std::size_t>(j)];
  return r;
}

// The constrained equations of motion solved directly: M ν̇ + h = τ + Gᵀλ, G ν̇ = γ, where each
// weld contributes the 6 rows of the relative spatial acceleration (γ = −(bias_x − bias_y)) and
// each point the 3 rows of its point's relative acceleration. Stabilisation off (frequency 0).
VectorXd kktForwardDynamics(const Model& m, const std::vector<LoopClosure>& loops, const Configuration& q,
                            const VectorXd& v, const VectorXd& tau) {
  DynamicsData d(m);
  const MatrixXd M = crba(m, d, q);
  const VectorXd h = nonlinearEffects(m, d, q, v);
  Data kin(m);
  forwardKinematics(m, kin, q);
  MatrixXd G(0, m.nv());
  VectorXd gamma(0);
  for (const LoopClosure& c : loops) {
    const int lx = m.frameLink(c.frame).value;
    LinkMotion x = linkMotion(m, d, q, v, lx), y;
    y.J = MatrixXd::Zero(6, m.nv());
    y.bias.setZero();
    y.velocity.setZero();
    if (c.other) y = linkMotion(m, d, q, v, m.frameLink(*c.other).value);
    MatrixXd rows;
    VectorXd rhs;
    if (c.type == ClosureType::Weld) {
      rows = x.J - y.J;
      rhs = -(x.bias - y.bias);
    } else {
      // Classical acceleration of a body point p: a_O + α × p + ω × ṗ, ṗ = v_O + ω × p.
      const Vector3d p = updateFramePlacement(m, kin, c.frame).p;
      Eigen::Matrix<double, 3, 6> P;
      P << -so3::skew(p), Matrix3d::Identity();  // (α; a_O) → a_O + α × p
      auto pointBias = [&](const LinkMotion& lm) {
        const Vector3d w = lm.velocity.head<3>();
        const Vector3d pd = lm.velocity.tail<3>() + w.cross(p);
        return Vector3d(P * lm.bias + w.cross(pd));
      };
      rows = P * (x.J - y.J);
      rhs = -(pointBias(x) - pointBias(y));
    }
    G.conservativeResize(G.rows() + rows.rows(), Eigen::NoChange);
    G.bottomRows(rows.rows()) = rows;
    gamma.conservativeResize(gamma.size() + rhs.size());
    gamma.tail(rhs.size()) = rhs;
  }
  const int n = m.nv(), r = static_cast<int>(G.rows());
  MatrixXd K = MatrixXd::Zero(n + r, n + r);
  K.topLeftCorner(n, n) = M;
  K.topRightCorner(n, r) = -G.transpose();
  K.bottomLeftCorner(r, n) = G;
  VectorXd rhs(n + r);
  rhs << tau - h, gamma;
  return K.fullPivLu().solve(rhs).head(n);
}

TEST(Assembly, LoopClosuresMatchTheConstrainedEquationsOfMotion) {
  // The human on a bar: one hand, both hands (to the world), hand to hand, and a point hold.
  const Model m = makeHuman48();
  std::mt19937_64 rng(5);
  const Configuration q0 = randomConfiguration(m, rng);
  const FrameId rh = m.frameId("RightHand"), lh = m.frameId("LeftHand"), head = m.frameId("Head");
  auto weld = [&](const char* name, FrameId f, std::optional<FrameId> o = {}) {
    LoopClosure c = LoopClosure::holding(m, q0, name, f, o);
    c.frequency = 0.0;
    return c;
  };
  LoopClosure point = LoopClosure::holding(m, q0, "head", head, {}, ClosureType::Point);
  point.frequency = 0.0;
  const std::vector<std::vector<LoopClosure>> cases = {{weld("right", rh)},
                                                       {weld("right", rh), weld("left", lh)},
                                                       {weld("hands", rh, lh)},
                                                       {point},
                                                       {weld("right", rh), point}};
  for (const auto& loops : cases) {
    for (const AssemblySchedule schedule : {AssemblySchedule::Serial, AssemblySchedule::Parallel})
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(std::to_string(loops.size()) + " loops, " + loops[0].name + ", " + toString(schedule) + " x" +
                     std::to_string(threads));
        const AssemblyPlan plan(m, options(schedule, threads, loops));
        AssemblyData ad(plan);
        std::mt19937_64 r2(9);
        for (int trial = 0; trial < 4; ++trial) {
          const VectorXd v = randomVector(m.nv(), r2, 1.0), tau = randomVector(m.nv(), r2, 20.0);
          const VectorXd ref = kktForwardDynamics(m, loops, q0, v, tau);
          const VectorXd got = assemblyForwardDynamics(plan, ad, q0, v, tau);
          EXPECT_LT(relErr(got, ref), 1e-9);
        }
      }
  }
}

TEST(Assembly, ClosureForcesAreTheConstraintWrenches) {
  // Under gravity, hanging from a bar by both hands: the closure forces, applied as external
  // wrenches, make RNEA reproduce τ with the computed ν̇ (every row, the base's included).
  const Model m = makeHuman48();
  std::mt19937_64 rng(5);
  Configuration q = randomConfiguration(m, rng);
  q.base_position = Vector3d(0, 0, 1.0);
  const std::vector<LoopClosure> loops = {LoopClosure::holding(m, q, "right", m.frameId("RightHand")),
                                          LoopClosure::holding(m, q, "left", m.frameId("LeftHand"))};
  for (const int refine : {0, 1}) {
    const AssemblyPlan plan(m, options(AssemblySchedule::Serial, 1, loops, refine));
    AssemblyData ad(plan);
    DynamicsData d(m);
    const VectorXd v = randomVector(m.nv(), rng, 0.5), tau = randomVector(m.nv(), rng, 10.0);
    const VectorXd a = assemblyForwardDynamics(plan, ad, q, v, tau);
    std::vector<ExternalWrench> holds;
    for (std::size_t c = 0; c < loops.size(); ++c)
      holds.push_back({m.frameLink(loops[c].frame), ad.closure_force[c].tail<3>(), Vector3d::Zero(),
                       ad.closure_force[c].head<3>()});
    EXPECT_LT((rnea(m, d, q, v, a, holds) - tau).norm(), (refine ? 1e-10 : 1e-7) * m.totalMass() * 9.81);
  }
}

TEST(Assembly, ClosedLoopsConserveEnergyAndStayClosed) {
  // No gravity, no torques, both hands welded to the world, an initial velocity the closures
  // allow: the constraint forces do no work, so 1 s of RK4 at 1 kHz keeps the kinetic energy
  // (measured drift 2e-10) and the hands stay put (3e-11 m).
  const Model m = makeHuman48();
  std::mt19937_64 rng(5);
  Configuration q = randomConfiguration(m, rng);
  const std::vector<LoopClosure> loops = {LoopClosure::holding(m, q, "right", m.frameId("RightHand")),
                                          LoopClosure::holding(m, q, "left", m.frameId("LeftHand"))};
  const AssemblyPlan plan(m, options(AssemblySchedule::Parallel, 1, loops, 1));
  AssemblyData ad(plan);
  DynamicsData d(m);
  // v in the null space of the closures' Jacobian G (12 × nv).
  MatrixXd G = MatrixXd::Zero(12, m.nv());
  for (int c = 0; c < 2; ++c)
    G.middleRows(6 * c, 6) = linkMotion(m, d, q, VectorXd::Zero(m.nv()), m.frameLink(loops[idx(c)].frame).value).J;
  VectorXd v = randomVector(m.nv(), rng, 0.3);
  v -= G.transpose() * (G * G.transpose()).ldlt().solve(G * v);
  const VectorXd tau = VectorXd::Zero(m.nv());
  const Vector3d g0 = Vector3d::Zero();
  auto f = [&](const Configuration& qq, const VectorXd& vv) {
    return VectorXd(assemblyForwardDynamics(plan, ad, qq, vv, tau, {}, g0));
  };
  const double e0 = kineticEnergy(m, d, q, v), h = 1e-3;
  double drift = 0.0, gap = 0.0;
  for (int k = 0; k < 1000; ++k) {
    const VectorXd a1 = f(q, v);
    const VectorXd v2 = v + 0.5 * h * a1;
    const VectorXd a2 = f(moved(m, q, v, 0.5 * h), v2);
    const VectorXd v3 = v + 0.5 * h * a2;
    const VectorXd a3 = f(moved(m, q, v2, 0.5 * h), v3);
    const VectorXd v4 = v + h * a3;
    const VectorXd a4 = f(moved(m, q, v3, h), v4);
    q = moved(m, q, (v + 2 * v2 + 2 * v3 + v4) / 6.0, h);
    v += h / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4);
    f(q, v);
    drift = std::max(drift, std::abs(kineticEnergy(m, d, q, v) / e0 - 1.0));
    for (std::size_t c = 0; c < 2; ++c)
      gap = std::max({gap, ad.closure_position_error[c], ad.closure_rotation_error[c]});
  }
  EXPECT_LT(drift, 1e-8);
  EXPECT_LT(gap, 1e-9);
}

TEST(Assembly, ScheduleShape) {
  for (const int n : {8, 16, 32, 64, 128}) {
    SCOPED_TRACE(n);
    const Model m = chain(n);
    const AssemblyPlan serial(m, options(AssemblySchedule::Serial));
    const AssemblyPlan parallel(m, options(AssemblySchedule::Parallel));
    // n moving links + the world: n + 1 bodies, n joints, 2n + 1 nodes.
    EXPECT_EQ(serial.stats().bodies, n + 1);
    EXPECT_EQ(serial.stats().joints, n);
    EXPECT_EQ(serial.stats().nodes, 2 * n + 1);
    EXPECT_EQ(serial.stats().height, n + 1);  // one path: no parallelism
    EXPECT_EQ(parallel.stats().height, static_cast<int>(std::ceil(std::log2(n + 1))) + 1);
    EXPECT_EQ(serial.stats().max_handles, 1);  // the link the rest hangs from
    EXPECT_EQ(parallel.stats().max_handles, 2);
    // Serial is the least work; parallel has the shortest critical path.
    EXPECT_LT(serial.stats().total_flops, parallel.stats().total_flops);
    EXPECT_LT(parallel.stats().critical_path_flops, serial.stats().critical_path_flops);
    // Serial: all but the side leaves lie on one path.
    EXPECT_GT(serial.stats().critical_path_flops, 0.6 * serial.stats().total_flops);
  }
  // O(log N): doubling the chain adds a constant to the parallel critical path.
  const double c64 = AssemblyPlan(chain(64), options(AssemblySchedule::Parallel)).stats().critical_path_flops;
  const double c128 = AssemblyPlan(chain(128), options(AssemblySchedule::Parallel)).stats().critical_path_flops;
  const double c256 = AssemblyPlan(chain(256), options(AssemblySchedule::Parallel)).stats().critical_path_flops;
  EXPECT_NEAR(c256 - c128, c128 - c64, 0.25 * (c128 - c64));
  // Two threads on the parallel schedule: about half the work each.
  const AssemblyPlan two(chain(64), options(AssemblySchedule::Parallel, 2));
  EXPECT_LT(two.stats().threaded_flops, 0.6 * two.stats().total_flops);
  EXPECT_GE(two.stats().tasks, 2);
  EXPECT_NE(two.describe().find("join"), std::string::npos);
}

TEST(Assembly, BadInputAndNoAllocation) {
  const Model m = makeHuman48();
  EXPECT_THROW(AssemblyPlan(m, options(AssemblySchedule::Serial, 0)), InvalidArgument);
  EXPECT_THROW(parseAssemblySchedule("fastest"), InvalidArgument);
  EXPECT_EQ(parseAssemblySchedule("parallel"), AssemblySchedule::Parallel);
  LoopClosure bad;
  bad.name = "nowhere";
  bad.frame = FrameId(m.numFrames() + 3);
  EXPECT_THROW(AssemblyPlan(m, options(AssemblySchedule::Serial, 1, {bad})), InvalidArgument);
  // A loop on a massless link (an intermediate link of a spherical joint) is refused by name.
  try {
    LoopClosure c;
    c.name = "f1";
    c.frame = m.frameId("RightUpperArm_f1");
    const AssemblyPlan plan(m, options(AssemblySchedule::Serial, 1, {c}));
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("RightUpperArm_f1"), std::string::npos) << e.what();
  }
  // A massless link with two children cannot be a subassembly.
  {
    ModelBuilder b("fork", "base", BaseType::Fixed);
    Inertial rod;
    rod.mass = 1.0;
    rod.inertia = Matrix3d::Identity() * 1e-2;
    JointSpec s;
    s.name = "hub";
    s.parent = "base";
    s.child = "hub";
    b.addJoint(s);
    for (const char* leaf : {"a", "b"}) {
      JointSpec t;
      t.name = leaf;
      t.parent = "hub";
      t.child = leaf;
      t.axis = Vector3d::UnitX();
      t.child_inertial = rod;
      b.addJoint(t);
    }
    const Model fork = b.build();
    EXPECT_THROW(AssemblyPlan(fork, {}), InvalidArgument);
  }
  const FrameId rh = m.frameId("RightHand");
  const Configuration q(m);
  const AssemblyPlan plan(m, options(AssemblySchedule::Parallel, 2, {LoopClosure::holding(m, q, "right", rh)}, 1));
  AssemblyData ad(plan);
  const VectorXd v = VectorXd::Zero(m.nv());
  EXPECT_THROW(assemblyForwardDynamics(plan, ad, q, VectorXd::Zero(3), v), InvalidArgument);
  const ExternalWrench massless{m.linkId("RightUpperArm_f1"), Vector3d::UnitZ()};
  EXPECT_THROW(assemblyForwardDynamics(plan, ad, q, v, v, std::span<const ExternalWrench>(&massless, 1)),
               InvalidArgument);
  const AssemblyPlan other(m, {});
  EXPECT_THROW(assemblyForwardDynamics(other, ad, q, v, v), InvalidArgument);
  const ExternalWrench w{m.linkId("Head"), Vector3d::UnitZ()};
  assemblyForwardDynamics(plan, ad, q, v, v, std::span<const ExternalWrench>(&w, 1));  // warm the pool
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    for (int i = 0; i < 10; ++i) assemblyForwardDynamics(plan, ad, q, v, v, std::span<const ExternalWrench>(&w, 1));
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
