// FABRIK benchmarks (FAB §3, issue 13):
//   BM_FabrikBallChain/<tol_um>   a Caliko-demo-shaped chain: 10 bones of 0.1 m along z, ball
//                                 joints (cone 45°, twist ±30°), the tip chasing a target moving
//                                 on a Lissajous curve inside the reach (1 cm per step), warm-started
//   BM_FabrikFinger/<tol_um>      3-bone finger (4, 2.5, 2 cm), hinges in [0, 1.6] rad, DIP = 2/3 PIP,
//                                 the tip target from a feasible curl moving 0.01 rad per step
// <tol_um> is the end-effector tolerance in µm. Counters: iterations (mean per solve), s_per_iter
// (time per FABRIK iteration), not_converged (fraction of solves).
#include <benchmark/benchmark.h>

#include <Eigen/Geometry>
#include <cmath>

#include "kinetrack/fabrik/fabrik.hpp"

namespace {

using namespace kinetrack;
using namespace kinetrack::fabrik;

std::vector<int> chainParents(int n) {
  std::vector<int> parents(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) parents[static_cast<std::size_t>(j)] = j - 1;
  return parents;
}

// Iterations and failures over the solves of a benchmark, reported as its counters.
struct Tally {
  long iterations = 0, solves = 0, failed = 0;
  void add(const Result& r) {
    iterations += r.iterations;
    failed += r.status != ik::Status::Converged;
    ++solves;
  }
  void report(benchmark::State& state) const {
    state.counters["iterations"] = static_cast<double>(iterations) / static_cast<double>(solves);
    state.counters["s_per_iter"] =
        benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["not_converged"] = static_cast<double>(failed) / static_cast<double>(solves);
  }
};

void BM_FabrikBallChain(benchmark::State& state) {
  Matrix3Xd rest(3, 11);
  for (int j = 0; j <= 10; ++j) rest.col(j) = Vector3d(0.0, 0.0, 0.1 * j);
  Skeleton sk(chainParents(11), rest);
  JointConstraint c;
  c.type = ConstraintType::Ball;
  c.cone_angle = kPi / 4.0;
  c.min_twist = -kPi / 6.0;
  c.max_twist = kPi / 6.0;
  for (int j = 1; j <= 10; ++j) sk.setConstraint(j, c);
  Solver solver(sk);
  Matrix3Xd p = rest;
  const Options options{.tolerance = static_cast<double>(state.range(0)) * 1e-6, .max_iterations = 100};
  Tally tally;
  double s = 0.0;
  for (auto _ : state) {
    s += 0.01;
    const Vector3d t(0.5 * std::sin(1.3 * s), 0.4 * std::cos(0.7 * s), 0.6 + 0.2 * std::sin(0.5 * s));
    solver.setTarget(10, t);
    tally.add(solver.solve(p, options));
    benchmark::DoNotOptimize(p.data());
  }
  tally.report(state);
}
BENCHMARK(BM_FabrikBallChain)->Arg(1000)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_FabrikFinger(benchmark::State& state) {
  Matrix3Xd rest(3, 4);
  rest << 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.04, 0.065, 0.085;
  Skeleton sk(chainParents(4), rest);
  JointConstraint h;
  h.type = ConstraintType::Hinge;
  h.hinge_axis = Vector3d::UnitX();
  h.min_angle = 0.0;
  h.max_angle = 1.6;
  for (int j = 1; j <= 3; ++j) sk.setConstraint(j, h);
  sk.setCoupling(3, 2.0 / 3.0);
  Solver solver(sk);
  Matrix3Xd p = rest;
  const Options options{.tolerance = static_cast<double>(state.range(0)) * 1e-6, .max_iterations = 100};
  Tally tally;
  double s = 0.0;
  const double len[3] = {0.04, 0.025, 0.02};
  for (auto _ : state) {
    s += 0.01;
    const double mcp = 0.7 + 0.6 * std::sin(s), pip = 0.8 + 0.7 * std::sin(0.8 * s + 1.0);
    const double angles[3] = {mcp, pip, 2.0 / 3.0 * pip};
    Vector3d t = Vector3d::Zero();
    double a = 0.0;
    for (int k = 0; k < 3; ++k) {
      a += angles[k];
      t += len[k] * (Eigen::AngleAxisd(a, Vector3d::UnitX()) * Vector3d::UnitZ());
    }
    solver.setTarget(3, t);
    tally.add(solver.solve(p, options));
    benchmark::DoNotOptimize(p.data());
  }
  tally.report(state);
}
BENCHMARK(BM_FabrikFinger)->Arg(100)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
