// Assembly–disassembly forward dynamics (issue 11) against ABA in the same binary: the built-in
// human48 (the paper's "40-DoF figure" role; 48 joints + floating base) and human66 with their de
// Leva masses, with 0, 1 or 2 hands held; serial and parallel schedules; 1 and 2 threads; and
// serial chains of 8 … 256 links (the paper's Table 1). 32 random states are cycled.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "kinetrack/dynamics/assembly.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/serial_chain.hpp"

namespace kt = kinetrack;

namespace {

struct States {
  std::vector<kt::Configuration> q;
  std::vector<kt::VectorXd> v, tau;
};

States makeStates(const kt::Model& m, double base_height) {
  States s;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int i = 0; i < 32; ++i) {
    kt::Configuration q = kt::randomConfiguration(m, rng);
    q.base_position = kt::Vector3d(0, 0, base_height);
    kt::VectorXd v(m.nv()), t(m.nv());
    for (int k = 0; k < m.nv(); ++k) {
      v[k] = 0.5 * g(rng);
      t[k] = 10.0 * g(rng);
    }
    s.q.push_back(q);
    s.v.push_back(v);
    s.tau.push_back(t);
  }
  return s;
}

// Model by index: 0 human48, 1 human66, else a chain of that many links.
std::shared_ptr<const kt::Model> model(int which) {
  if (which == 0) return std::make_shared<const kt::Model>(kt::makeHuman48());
  if (which == 1) return std::make_shared<const kt::Model>(kt::makeHuman66());
  kt::SerialChainOptions o;
  o.links = which;
  return std::make_shared<const kt::Model>(kt::makeSerialChain(o));
}

void BM_Aba(benchmark::State& st) {
  const auto m = model(static_cast<int>(st.range(0)));
  const States s = makeStates(*m, 1.0);
  kt::DynamicsData d(*m);
  std::size_t i = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(kt::aba(*m, d, s.q[i], s.v[i], s.tau[i]).data());
    i = (i + 1) % s.q.size();
  }
}

// range: model, schedule (0 serial, 1 parallel), threads, hands held (0–2, humans only),
// refinement steps.
void BM_Assembly(benchmark::State& st) {
  const auto m = model(static_cast<int>(st.range(0)));
  const States s = makeStates(*m, 1.0);
  kt::AssemblyOptions o;
  o.schedule = st.range(1) == 0 ? kt::AssemblySchedule::Serial : kt::AssemblySchedule::Parallel;
  o.threads = static_cast<int>(st.range(2));
  o.refinement_steps = static_cast<int>(st.range(4));
  const char* hands[2] = {"RightHand", "LeftHand"};
  for (int h = 0; h < st.range(3); ++h)
    o.loops.push_back(kt::LoopClosure::holding(*m, s.q[0], hands[h], m->frameId(hands[h])));
  const kt::AssemblyPlan plan(m, o);
  kt::AssemblyData d(plan);
  std::size_t i = 0;
  for (auto _ : st) {
    // With hands held the state is the held one (q[0]); the velocities vary.
    const kt::Configuration& q = o.loops.empty() ? s.q[i] : s.q[0];
    benchmark::DoNotOptimize(kt::assemblyForwardDynamics(plan, d, q, s.v[i], s.tau[i]).data());
    i = (i + 1) % s.q.size();
  }
  st.counters["critical_kflop"] = plan.stats().critical_path_flops / 1e3;
  st.counters["total_kflop"] = plan.stats().total_flops / 1e3;
}

void humans(benchmark::internal::Benchmark* b) {
  b->ArgNames({"model", "parallel", "threads", "hands", "refine"});
  for (int m : {0, 1})
    for (int sched : {0, 1})
      for (int th : {1, 2}) b->Args({m, sched, th, 0, 0});
  for (int hands : {1, 2}) b->Args({0, 0, 1, hands, 0});
  b->Args({0, 0, 1, 0, 1});
  b->Args({0, 0, 1, 2, 1});
}

void chains(benchmark::internal::Benchmark* b) {
  b->ArgNames({"model", "parallel", "threads", "hands", "refine"});
  for (int n : {8, 16, 32, 64, 128, 256})
    for (int sched : {0, 1})
      for (int th : {1, 2}) b->Args({n, sched, th, 0, 0});
}

}  // namespace

BENCHMARK(BM_Aba)->ArgNames({"model"})->Arg(0)->Arg(1)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Arg(128)->Arg(256);
BENCHMARK(BM_Assembly)->Apply(humans);
BENCHMARK(BM_Assembly)->Apply(chains);
BENCHMARK_MAIN();
