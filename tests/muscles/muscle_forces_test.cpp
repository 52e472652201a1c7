// Per-frame muscle forces: the static-optimisation frame against Ipopt on the same problem built
// from the public pieces (J, Thelen curves), Thelen curves at known points, infeasible frames with
// and without reserve actuators, LP vs QP, no allocation per frame (QPs).
#include <gtest/gtest.h>

#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/muscles/muscle_forces.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/ipopt_qp.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::muscles {
namespace KINETRACK_UNITY_ID {

constexpr const char* kArm26 = "data/opensim/arm26_static_optimization/arm26.osim";

struct Arm26 {
  std::shared_ptr<io::OpenSimModel> osim;
  std::shared_ptr<MusclePaths> paths;
  Configuration q;
  VectorXd v, tau;
};

Arm26 loadArm26(const std::string& file) {
  Arm26 a;
  a.osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  a.paths = std::make_shared<MusclePaths>(a.osim, io::readOpenSimMuscles(file));
  a.q = a.osim->defaultConfiguration();
  const int elbow = a.osim->findCoordinate("r_elbow_flex")->joint.value;
  const int shoulder = a.osim->findCoordinate("r_shoulder_elev")->joint.value;
  a.q.joints[elbow] = 1.2;
  a.q.joints[shoulder] = 0.3;
  const Model& m = *a.osim->model;
  a.v = VectorXd::Zero(m.nv());
  a.v(elbow) = 1.5;
  DynamicsData dd(m);
  VectorXd acc = VectorXd::Zero(m.nv());
  acc(elbow) = 2.0;
  a.tau = rnea(m, dd, a.q, a.v, acc, {}, a.osim->gravity);
  return a;
}

TEST(MuscleForces, ThelenCurvesAtKnownPoints) {
  io::OpenSimMuscle m;
  m.kshape_active = 0.5;
  m.af = 0.3;
  m.flen = 1.8;
  EXPECT_DOUBLE_EQ(thelenActiveForceLength(m, 1.0), 1.0);
  EXPECT_NEAR(thelenActiveForceLength(m, 1.5), std::exp(-0.5), 1e-15);
  EXPECT_DOUBLE_EQ(thelenForceVelocity(m, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(thelenForceVelocity(m, -1.0), 0.0);
  EXPECT_LT(thelenForceVelocity(m, -0.2), 1.0);
  EXPECT_GT(thelenForceVelocity(m, 0.2), 1.0);
  EXPECT_LT(thelenForceVelocity(m, 50.0), 1.8);
  // Continuous at 0 and monotone.
  EXPECT_NEAR(thelenForceVelocity(m, 1e-9), thelenForceVelocity(m, -1e-9), 1e-7);
  for (double v = -0.99; v < 2.0; v += 0.01) EXPECT_LT(thelenForceVelocity(m, v), thelenForceVelocity(m, v + 0.01));
}

TEST(MuscleForces, StaticOptimizationFrameMatchesIpoptOnTheSameProblem) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  Arm26 a = loadArm26(file);
  MuscleForceSolver solver(a.paths, {});
  MusclePathData data(*a.paths);
  FrameForces out;
  solver.solve(a.q, a.v, a.tau, data, out);
  ASSERT_TRUE(out.feasible);
  EXPECT_LT(out.max_residual, 1e-9);
  // The problem again from public pieces: A = −Jᵀ diag(F), F from rigidTendonFiber.
  const int nm = a.paths->numMuscles(), nv = a.osim->model->nv();
  qp::Problem p(nm, nv);
  p.H.setIdentity();
  for (int i = 0; i < nm; ++i) {
    const io::OpenSimMuscle& mu = a.paths->set().muscles[i];
    const double F = rigidTendonFiber(mu, data.length(i), data.jacobian.row(i).dot(a.v)).unit_force;
    p.A.col(i) = -data.jacobian.row(i).transpose() * F;
    p.lb(i) = mu.min_control;
    p.ub(i) = mu.max_control;
  }
  p.lbA = p.ubA = a.tau;
  const testing::IpoptQpResult ip = testing::solveWithIpopt(p);
  ASSERT_TRUE(ip.success);
  EXPECT_LT((ip.x - out.control).cwiseAbs().maxCoeff(), 1e-6) << ip.x.transpose() << "\n" << out.control.transpose();
  EXPECT_GT(out.control.maxCoeff(), 0.01);
}

TEST(MuscleForces, InfeasibleFramesAreReportedAndReservesRescueThem) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  Arm26 a = loadArm26(file);
  const VectorXd heavy = 40.0 * a.tau;  // far beyond what the arm's muscles can do
  for (Method method : {Method::StaticOptimization, Method::QP, Method::LP}) {
    MuscleForceOptions o;
    o.method = method;
    MuscleForceSolver solver(a.paths, o);
    MusclePathData data(*a.paths);
    FrameForces out;
    solver.solve(a.q, a.v, heavy, data, out);
    EXPECT_FALSE(out.feasible) << toString(method);
    EXPECT_GT(out.max_residual, 1.0) << toString(method);
    EXPECT_TRUE(out.control.allFinite() && out.force.allFinite() && out.residual.allFinite());
    // Reserves of 100 N m on both coordinates make it feasible.
    for (const char* c : {"r_shoulder_elev", "r_elbow_flex"}) {
      io::OpenSimCoordinateActuator r;
      r.name = std::string(c) + "_reserve";
      r.coordinate = c;
      r.optimal_force = 100.0;
      o.actuators.push_back(r);
    }
    MuscleForceSolver reserved(a.paths, o);
    reserved.solve(a.q, a.v, heavy, data, out);
    EXPECT_TRUE(out.feasible) << toString(method);
    EXPECT_LT(out.max_residual, 1e-6) << toString(method);
    EXPECT_EQ(reserved.names().back(), "r_elbow_flex_reserve");
  }
}

TEST(MuscleForces, UnknownActuatorCoordinateIsAParseError) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  Arm26 a = loadArm26(file);
  MuscleForceOptions o;
  io::OpenSimCoordinateActuator r;
  r.name = "knee_reserve";
  r.coordinate = "knee_angle_r";
  r.line = 12;
  o.actuators.push_back(r);
  EXPECT_THROW((void)MuscleForceSolver(a.paths, o), ParseError);
}

TEST(MuscleForces, QpSolveDoesNotAllocate) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  Arm26 a = loadArm26(file);
  for (Method method : {Method::StaticOptimization, Method::QP}) {
    MuscleForceOptions o;
    o.method = method;
    MuscleForceSolver solver(a.paths, o);
    MusclePathData data(*a.paths);
    FrameForces out;
    solver.solve(a.q, a.v, a.tau, data, out);
    testing::AllocationCounter guard;
    solver.solve(a.q, a.v, a.tau, data, out);
    EXPECT_EQ(guard.count(), 0) << toString(method);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::muscles
