// Rigid-body dynamics (issue 11): RNEA, CRBA and ABA on models with real mass properties (the
// human-gazebo 66-DoF subject and the iCub, ../shared), floating and fixed base, against KDL's
// TreeIdSolver_RNE on the same URDF in the same binary (fixed base: KDL has no floating base).
// 64 random states (q, ν, ν̇ or τ) are cycled.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "testing/kdl_oracle.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

struct State {
  kt::Configuration q;
  kt::VectorXd v, a, tau;
  KDL::JntArray kq, kqd, kqdd;
};

struct Fixture {
  kt::Model model;
  std::unique_ptr<kt::DynamicsData> data;
  std::vector<State> states;
  std::unique_ptr<kt::testing::KdlOracle> kdl;  // fixed base only
};

kt::VectorXd randomVector(int n, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  kt::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = g(rng);
  return x;
}

Fixture* fixture(benchmark::State& st, int which, bool fixed) {
  static std::unique_ptr<Fixture> cache[2][2];
  std::unique_ptr<Fixture>& f = cache[which][fixed ? 1 : 0];
  if (!f) {
    const char* rel = which == 0 ? "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf"
                                 : "models/icub/iCubGazeboV2_5_model.urdf";
    const std::string path = kt::testing::sharedFile(rel);
    if (path.empty()) {
      st.SkipWithError("../shared models not found");
      return nullptr;
    }
    kt::io::UrdfOptions o;
    o.base = fixed ? kt::BaseType::Fixed : kt::BaseType::Floating;
    f = std::make_unique<Fixture>();
    f->model = kt::io::loadUrdf(path, o);
    f->data = std::make_unique<kt::DynamicsData>(f->model);
    if (fixed) f->kdl = std::make_unique<kt::testing::KdlOracle>(kt::testing::KdlOracle::fromUrdfFile(path));
    std::mt19937_64 rng(42);
    for (int i = 0; i < 64; ++i) {
      State s;
      s.q = kt::randomConfiguration(f->model, rng);
      s.v = randomVector(f->model.nv(), rng, 1.0);
      s.a = randomVector(f->model.nv(), rng, 3.0);
      s.tau = kt::rnea(f->model, *f->data, s.q, s.v, s.a);
      if (fixed) {
        s.kq = f->kdl->jointArray(f->model, s.q);
        const unsigned nk = f->kdl->numJoints();
        s.kqd = KDL::JntArray(nk);
        s.kqdd = KDL::JntArray(nk);
        for (int j = 0; j < f->model.numJoints(); ++j) {
          const unsigned k = f->kdl->qIndex(f->model.jointName(kt::JointId(j)));
          s.kqd(k) = s.v[j];
          s.kqdd(k) = s.a[j];
        }
      }
      f->states.push_back(std::move(s));
    }
  }
  return f.get();
}

void BM_Rnea(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  std::size_t i = 0;
  for (auto _ : st) {
    const State& s = f->states[i++ % f->states.size()];
    benchmark::DoNotOptimize(kt::rnea(f->model, *f->data, s.q, s.v, s.a).data());
  }
}

void BM_Crba(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  std::size_t i = 0;
  for (auto _ : st) {
    const State& s = f->states[i++ % f->states.size()];
    benchmark::DoNotOptimize(kt::crba(f->model, *f->data, s.q).data());
  }
}

void BM_Aba(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  std::size_t i = 0;
  for (auto _ : st) {
    const State& s = f->states[i++ % f->states.size()];
    benchmark::DoNotOptimize(kt::aba(f->model, *f->data, s.q, s.v, s.tau).data());
  }
}

void BM_KDL_Rnea(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), true);
  if (!f) return;
  KDL::JntArray torques(f->kdl->numJoints());
  KDL::WrenchMap none;
  std::size_t i = 0;
  for (auto _ : st) {
    const State& s = f->states[i++ % f->states.size()];
    f->kdl->idSolver().CartToJnt(s.kq, s.kqd, s.kqdd, none, torques);
    benchmark::DoNotOptimize(torques.data.data());
  }
}

// Args: {model (0 human-gazebo 66 DoF, 1 iCub), fixed base}.
void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"model", "fixed"});
  for (int m : {0, 1})
    for (int fixed : {0, 1}) b->Args({m, fixed});
}

}  // namespace

BENCHMARK(BM_Rnea)->Apply(args);
BENCHMARK(BM_Crba)->Apply(args);
BENCHMARK(BM_Aba)->Apply(args);
BENCHMARK(BM_KDL_Rnea)->ArgNames({"model"})->Arg(0)->Arg(1);

BENCHMARK_MAIN();
