// One static-optimisation frame (issue 18): muscle paths + J, the Thelen unit forces, the QP
// (our Goldfarb–Idnani) — on arm26 (6 muscles, 2 coordinates) and gait2354 (54 muscles, 23
// coordinates, 6 pelvis reserves of 1 N / 1 N m; τ is what 10 % activation of every muscle
// produces at the posture, as our RNEA does not take gait2354's spline knees yet). Peer in the
// same binary: Ipopt on the identical QP (tests/testing/ipopt_qp).
// Run: build/bench/bench_muscles --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include "kinetrack/muscles/muscle_forces.hpp"
#include "testing/ipopt_qp.hpp"
#include "testing/shared_paths.hpp"

namespace {

using namespace kinetrack;
using namespace kinetrack::muscles;

struct Case {
  std::shared_ptr<io::OpenSimModel> osim;
  std::shared_ptr<MusclePaths> paths;
  MuscleForceOptions options;
  Configuration q;
  VectorXd v, tau;
  qp::Problem problem;  // the frame's QP, built from the public pieces
};

Case* load(int which) {
  static Case cases[2];
  Case& c = cases[which];
  if (c.paths) return &c;
  const std::string file = testing::sharedFile(which == 0 ? "data/opensim/arm26_static_optimization/arm26.osim"
                                                          : "data/opensim/gait2354_walk/subject01_simbody.osim");
  if (file.empty()) return nullptr;
  c.osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  c.paths = std::make_shared<MusclePaths>(c.osim, io::readOpenSimMuscles(file));
  c.q = c.osim->defaultConfiguration();
  const Model& m = *c.osim->model;
  c.v = VectorXd::Zero(m.nv());
  // A mid-swing-like posture: elbow / knees and hips bent.
  for (const char* name : {"r_elbow_flex", "knee_angle_r", "hip_flexion_l"})
    if (const io::OpenSimCoordinate* k = c.osim->findCoordinate(name)) {
      c.q.joints[k->joint.value] = name[0] == 'k' ? -0.6 : 0.5;
      c.v(m.nvBase() + k->joint.value) = 1.0;
    }
  for (const char* p : {"pelvis_tilt", "pelvis_list", "pelvis_rotation", "pelvis_tx", "pelvis_ty", "pelvis_tz"})
    if (c.osim->findCoordinate(p)) {
      io::OpenSimCoordinateActuator r;
      r.name = std::string(p) + "_reserve";
      r.coordinate = p;
      r.optimal_force = 1.0;
      c.options.actuators.push_back(r);
    }
  // τ: what 10 % activation of every muscle produces (our RNEA does not take gait2354's
  // spline-driven knees yet, and without ground reactions a gait frame needs large residuals).
  MusclePathData data(*c.paths);
  c.paths->evaluate(c.q, data);
  c.tau = VectorXd::Zero(m.nv());
  for (int i = 0; i < c.paths->numMuscles(); ++i)
    c.tau -= data.jacobian.row(i).transpose() * 0.1 *
             rigidTendonFiber(c.paths->set().muscles[i], data.length(i), data.jacobian.row(i).dot(c.v)).unit_force;
  MuscleForceSolver solver(c.paths, c.options);
  const int nm = c.paths->numMuscles(), na = static_cast<int>(solver.actuators().size());
  std::vector<int> rows;
  for (const io::OpenSimCoordinate& k : c.osim->coordinates)
    if (!k.locked) rows.push_back(m.nvBase() + k.joint.value);
  c.problem = qp::Problem(nm + na, static_cast<int>(rows.size()));
  c.problem.H.setIdentity();
  for (int i = 0; i < nm; ++i) {
    const io::OpenSimMuscle& mu = c.paths->set().muscles[i];
    const double F = rigidTendonFiber(mu, data.length(i), data.jacobian.row(i).dot(c.v)).unit_force;
    for (std::size_t r = 0; r < rows.size(); ++r)
      c.problem.A(static_cast<Eigen::Index>(r), i) = -data.jacobian(i, rows[r]) * F;
    c.problem.lb(i) = mu.min_control;
    c.problem.ub(i) = mu.max_control;
  }
  for (int k = 0; k < na; ++k) {
    const int dof = m.nvBase() + c.osim->findCoordinate(solver.actuators()[k].coordinate)->joint.value;
    for (std::size_t r = 0; r < rows.size(); ++r)
      c.problem.A(static_cast<Eigen::Index>(r), nm + k) = rows[r] == dof ? solver.actuators()[k].optimal_force : 0.0;
  }
  for (std::size_t r = 0; r < rows.size(); ++r)
    c.problem.lbA(static_cast<Eigen::Index>(r)) = c.problem.ubA(static_cast<Eigen::Index>(r)) = c.tau(rows[r]);
  return &c;
}

const char* kNames[2] = {"arm26", "gait2354"};

void BM_StaticOptimizationFrame(benchmark::State& state) {
  Case* c = load(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("../shared not found");
  MuscleForceSolver solver(c->paths, c->options);
  MusclePathData data(*c->paths);
  FrameForces out;
  for (auto _ : state) {
    solver.solve(c->q, c->v, c->tau, data, out);
    benchmark::DoNotOptimize(out.control.data());
  }
  state.SetLabel(std::string(kNames[state.range(0)]) + (out.feasible ? "" : " (infeasible)"));
}
BENCHMARK(BM_StaticOptimizationFrame)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_MusclePathsAndJacobian(benchmark::State& state) {
  Case* c = load(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("../shared not found");
  MusclePathData data(*c->paths);
  for (auto _ : state) {
    c->paths->evaluate(c->q, data);
    benchmark::DoNotOptimize(data.jacobian.data());
  }
  state.SetLabel(kNames[state.range(0)]);
}
BENCHMARK(BM_MusclePathsAndJacobian)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_FrameQp_Ours(benchmark::State& state) {
  Case* c = load(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("../shared not found");
  qp::Solver solver(static_cast<int>(c->problem.g.size()), static_cast<int>(c->problem.A.rows()),
                    qp::Options{.warm_start = false});
  VectorXd x = VectorXd::Zero(c->problem.g.size());
  for (auto _ : state) {
    const qp::Result r = solver.solve(c->problem, x);
    benchmark::DoNotOptimize(r.objective);
  }
  state.SetLabel(kNames[state.range(0)]);
}
BENCHMARK(BM_FrameQp_Ours)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_FrameQp_Ipopt(benchmark::State& state) {
  Case* c = load(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("../shared not found");
  for (auto _ : state) {
    const testing::IpoptQpResult r = testing::solveWithIpopt(c->problem);
    benchmark::DoNotOptimize(r.objective);
  }
  state.SetLabel(kNames[state.range(0)]);
}
BENCHMARK(BM_FrameQp_Ipopt)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
