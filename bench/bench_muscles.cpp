// One static-optimisation frame (issue 18): muscle paths + J, the Thelen unit forces, the QP
// (our Goldfarb–Idnani) — on arm26 (6 muscles, 2 coordinates) and gait2354 (54 muscles, 23
// coordinates, 6 pelvis reserves of 1 N / 1 N m; τ is what 10 % activation of every muscle
// produces at the posture, as our RNEA does not take gait2354's spline knees yet). Peer in the
// same binary: Ipopt on the identical QP (tests/testing/ipopt_qp).
// BM_StaticOptimizationTrial: the whole gait2354 walk on 1, 2, 4 threads (wall time).
// Run: build/bench/bench_muscles --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/muscles/muscle_forces.hpp"
#include "kinetrack/muscles/muscle_trial.hpp"
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
  MuscleForceOptions options = c->options;
  options.warm_start = state.range(1) != 0;
  MuscleForceSolver solver(c->paths, options);
  MusclePathData data(*c->paths);
  FrameForces out;
  for (auto _ : state) {
    solver.solve(c->q, c->v, c->tau, data, out);
    benchmark::DoNotOptimize(out.control.data());
  }
  state.SetLabel(std::string(kNames[state.range(0)]) + (state.range(1) != 0 ? ", warm start" : ", cold start") +
                 (out.feasible ? "" : " (infeasible)"));
}
BENCHMARK(BM_StaticOptimizationFrame)
    ->Args({0, 1})
    ->Args({0, 0})
    ->Args({1, 1})
    ->Args({1, 0})
    ->Unit(benchmark::kMicrosecond);

// A whole trial as `kinetrack muscles static-opt` runs it: the gait2354 walk (0.4–1.6 s, 73
// frames) with its ground reactions through OpenSim's ID pipeline (serial), then the frames split
// across state.range(0) threads (muscles/muscle_trial.hpp). Wall-clock time.
void BM_StaticOptimizationTrial(benchmark::State& state) {
  static const std::string dir = testing::sharedFile("data/opensim/gait2354_walk/");
  if (dir.empty()) return state.SkipWithError("../shared not found");
  static const auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(dir + "subject01_simbody.osim"));
  static const auto paths = std::make_shared<MusclePaths>(osim, io::readOpenSimMuscles(dir + "subject01_simbody.osim"));
  static const io::ExternalLoads loads = io::readExternalLoads(dir + "subject01_walk1_grf.xml");
  static const io::MotTable motion = io::readMot(dir + "subject01_walk1_ik_REFERENCE.mot");
  MuscleTrialOptions o;
  o.forces.actuators = io::readOpenSimActuators(dir + "gait2354_CMC_Actuators.xml");
  for (const char* p : {"pelvis_tx", "pelvis_ty", "pelvis_tz", "pelvis_tilt", "pelvis_list", "pelvis_rotation"}) {
    io::OpenSimCoordinateActuator a;
    a.name = std::string(p) + "_residual";
    a.coordinate = p;
    o.forces.actuators.push_back(a);
  }
  o.lowpass_hz = 6.0;
  o.time_start = 0.4;
  o.time_end = 1.6;
  o.in_degrees = true;
  o.loads = &loads;
  o.threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const MuscleTrialResult r = solveMuscleTrial(paths, motion, "walk", o);
    benchmark::DoNotOptimize(r.control.data());
  }
  state.SetLabel("gait2354 walk, 73 frames, " + std::to_string(state.range(0)) + " thread(s)");
}
BENCHMARK(BM_StaticOptimizationTrial)->Arg(1)->Arg(2)->Arg(4)->UseRealTime()->Unit(benchmark::kMillisecond);

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
