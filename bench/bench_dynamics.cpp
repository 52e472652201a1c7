// Rigid-body dynamics (issue 11): RNEA, CRBA and ABA on models with real mass properties (the
// human-gazebo 66-DoF subject and the iCub, ../shared), floating and fixed base, against peers on
// the same URDF in the same binary: KDL's TreeIdSolver_RNE (fixed base: KDL has no floating base),
// MuJoCo and DART (tests/testing/{mujoco,dart}_oracle.hpp: their own URDF importers, checked
// against ours by tests/dynamics/peer_oracle_test.cpp). 64 random states (q, ν, ν̇ or τ) are
// cycled; every peer gets the same states in its own coordinates, converted once at setup.
//
// What each peer call times (a user's full call chain from a new state to the result):
//   MuJoCo (fusestatic: fixed links merged, as in our Model; passive forces and constraints off):
//     Rnea       copy qpos, qvel, qacc; mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc = 1)
//     Inverse    copy qpos, qvel, qacc; mj_inverse (the one-call API; also factors M)
//     Crba       copy qpos; mj_kinematics, mj_comPos, mj_crb (sparse M), mj_fullM (dense nv × nv)
//     CrbaFactor copy qpos; mj_kinematics, mj_comPos, mj_crb, mj_factorM (sparse L D Lᵀ; no dense M)
//     Aba        copy qpos, qvel, qfrc_applied; mj_kinematics, mj_comPos, mj_crb, mj_factorM,
//                mj_comVel, mj_rne(flg_acc = 0) → qfrc_bias, qacc = mj_solveM(qfrc_applied − bias)
//     Forward    copy qpos, qvel, qfrc_applied; mj_forward (the one-call API)
//   DART (every URDF link a body):
//     Rnea  setPositions, setVelocities, setAccelerations, computeInverseDynamics(), getForces()
//     Crba  setPositions, getMassMatrix()
//     Aba   setPositions, setVelocities, setForces, computeForwardDynamics(), getAccelerations()
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cstring>
#include <dart/dynamics/Skeleton.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "testing/dart_oracle.hpp"
#include "testing/kdl_oracle.hpp"
#include "testing/mujoco_oracle.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

struct State {
  kt::Configuration q;
  kt::VectorXd v, a, tau;
  KDL::JntArray kq, kqd, kqdd;
  kt::VectorXd mj_qpos, mj_qvel, mj_qacc, mj_qfrc;   // MuJoCo's coordinates
  kt::VectorXd dart_q, dart_dq, dart_ddq, dart_tau;  // DART's
};

struct Fixture {
  kt::Model model;
  std::unique_ptr<kt::DynamicsData> data;
  std::vector<State> states;
  std::unique_ptr<kt::testing::KdlOracle> kdl;  // fixed base only
  std::unique_ptr<kt::testing::MujocoOracle> mujoco;
  std::unique_ptr<kt::testing::DartOracle> dart;
};

kt::VectorXd randomVector(int n, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  kt::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = g(rng);
  return x;
}

// MuJoCo: the state into mjData (a copy, part of what is timed).
void mujocoState(const mjModel* m, mjData* d, const State& s, bool vel, bool acc, bool frc) {
  std::memcpy(d->qpos, s.mj_qpos.data(), sizeof(double) * static_cast<std::size_t>(m->nq));
  const auto nv = sizeof(double) * static_cast<std::size_t>(m->nv);
  if (vel) std::memcpy(d->qvel, s.mj_qvel.data(), nv);
  if (acc) std::memcpy(d->qacc, s.mj_qacc.data(), nv);
  if (frc) std::memcpy(d->qfrc_applied, s.mj_qfrc.data(), nv);
}

// The hand-picked MuJoCo call chains of BM_MuJoCo_Rnea and BM_MuJoCo_Aba give what the one-call
// APIs (mj_inverse, mj_forward) give: false if not.
bool mujocoChainsAgree(kt::testing::MujocoOracle& o, const State& s) {
  const mjModel* m = o.model();
  mjData* d = o.data();
  const int nv = m->nv;
  kt::VectorXd tau(nv), rhs(nv), qacc(nv);
  mujocoState(m, d, s, true, true, false);
  mj_inverse(m, d);
  const kt::VectorXd tau_ref = Eigen::Map<const kt::VectorXd>(d->qfrc_inverse, nv);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_comVel(m, d);
  mj_rne(m, d, 1, tau.data());
  mujocoState(m, d, s, true, false, true);
  mj_forward(m, d);
  const kt::VectorXd qacc_ref = Eigen::Map<const kt::VectorXd>(d->qacc, nv);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_crb(m, d);
  mj_factorM(m, d);
  mj_comVel(m, d);
  mj_rne(m, d, 0, d->qfrc_bias);
  for (int k = 0; k < nv; ++k) rhs[k] = d->qfrc_applied[k] - d->qfrc_bias[k];
  mj_solveM(m, d, qacc.data(), rhs.data(), 1);
  return (tau - tau_ref).norm() <= 1e-12 * tau_ref.norm() && (qacc - qacc_ref).norm() <= 1e-12 * qacc_ref.norm();
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
    f->mujoco = std::make_unique<kt::testing::MujocoOracle>(path, f->model, kt::testing::MujocoOptions{true});
    f->dart = std::make_unique<kt::testing::DartOracle>(path, f->model);
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
      s.mj_qpos = f->mujoco->qpos(s.q);
      s.mj_qvel = f->mujoco->qvel(s.q, s.v);
      s.mj_qacc = f->mujoco->qacc(s.q, s.a);
      s.mj_qfrc = f->mujoco->qfrc(s.q, s.tau);
      s.dart_q = f->dart->positions(s.q);
      s.dart_dq = f->dart->velocities(s.q, s.v);
      s.dart_ddq = f->dart->accelerations(s.q, s.v, s.a);
      s.dart_tau = f->dart->forces(s.q, s.tau);
      f->states.push_back(std::move(s));
    }
    if (!mujocoChainsAgree(*f->mujoco, f->states[0])) {
      st.SkipWithError("MuJoCo's minimal call chains disagree with mj_inverse / mj_forward");
      f.reset();
      return nullptr;
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

void BM_MuJoCo_Rnea(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  const mjModel* m = f->mujoco->model();
  mjData* d = f->mujoco->data();
  kt::VectorXd tau(m->nv);
  std::size_t i = 0;
  for (auto _ : st) {
    mujocoState(m, d, f->states[i++ % f->states.size()], true, true, false);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 1, tau.data());
    benchmark::DoNotOptimize(tau.data());
  }
}

void BM_MuJoCo_Inverse(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  const mjModel* m = f->mujoco->model();
  mjData* d = f->mujoco->data();
  std::size_t i = 0;
  for (auto _ : st) {
    mujocoState(m, d, f->states[i++ % f->states.size()], true, true, false);
    mj_inverse(m, d);
    benchmark::DoNotOptimize(d->qfrc_inverse);
  }
}

void BM_MuJoCo_Crba(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  const mjModel* m = f->mujoco->model();
  mjData* d = f->mujoco->data();
  kt::MatrixXd M(m->nv, m->nv);
  std::size_t i = 0;
  for (auto _ : st) {
    mujocoState(m, d, f->states[i++ % f->states.size()], false, false, false);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_fullM(m, M.data(), d->qM);
    benchmark::DoNotOptimize(M.data());
  }
}

void BM_MuJoCo_CrbaFactor(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  const mjModel* m = f->mujoco->model();
  mjData* d = f->mujoco->data();
  std::size_t i = 0;
  for (auto _ : st) {
    mujocoState(m, d, f->states[i++ % f->states.size()], false, false, false);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_factorM(m, d);
    benchmark::DoNotOptimize(d->qLD);
  }
}

void BM_MuJoCo_Aba(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  const mjModel* m = f->mujoco->model();
  mjData* d = f->mujoco->data();
  kt::VectorXd rhs(m->nv), qacc(m->nv);
  std::size_t i = 0;
  for (auto _ : st) {
    mujocoState(m, d, f->states[i++ % f->states.size()], true, false, true);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_factorM(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 0, d->qfrc_bias);
    for (int k = 0; k < m->nv; ++k) rhs[k] = d->qfrc_applied[k] - d->qfrc_bias[k];
    mj_solveM(m, d, qacc.data(), rhs.data(), 1);
    benchmark::DoNotOptimize(qacc.data());
  }
}

void BM_MuJoCo_Forward(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  const mjModel* m = f->mujoco->model();
  mjData* d = f->mujoco->data();
  std::size_t i = 0;
  for (auto _ : st) {
    mujocoState(m, d, f->states[i++ % f->states.size()], true, false, true);
    mj_forward(m, d);
    benchmark::DoNotOptimize(d->qacc);
  }
}

void BM_DART_Rnea(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  dart::dynamics::Skeleton& sk = f->dart->skeleton();
  std::size_t i = 0;
  for (auto _ : st) {
    const State& s = f->states[i++ % f->states.size()];
    sk.setPositions(s.dart_q);
    sk.setVelocities(s.dart_dq);
    sk.setAccelerations(s.dart_ddq);
    sk.computeInverseDynamics();
    benchmark::DoNotOptimize(sk.getForces().data());
  }
}

void BM_DART_Crba(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  dart::dynamics::Skeleton& sk = f->dart->skeleton();
  std::size_t i = 0;
  for (auto _ : st) {
    sk.setPositions(f->states[i++ % f->states.size()].dart_q);
    benchmark::DoNotOptimize(sk.getMassMatrix().data());
  }
}

void BM_DART_Aba(benchmark::State& st) {
  Fixture* f = fixture(st, static_cast<int>(st.range(0)), st.range(1) != 0);
  if (!f) return;
  dart::dynamics::Skeleton& sk = f->dart->skeleton();
  std::size_t i = 0;
  for (auto _ : st) {
    const State& s = f->states[i++ % f->states.size()];
    sk.setPositions(s.dart_q);
    sk.setVelocities(s.dart_dq);
    sk.setForces(s.dart_tau);
    sk.computeForwardDynamics();
    benchmark::DoNotOptimize(sk.getAccelerations().data());
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
BENCHMARK(BM_MuJoCo_Rnea)->Apply(args);
BENCHMARK(BM_MuJoCo_Inverse)->Apply(args);
BENCHMARK(BM_MuJoCo_Crba)->Apply(args);
BENCHMARK(BM_MuJoCo_CrbaFactor)->Apply(args);
BENCHMARK(BM_MuJoCo_Aba)->Apply(args);
BENCHMARK(BM_MuJoCo_Forward)->Apply(args);
BENCHMARK(BM_DART_Rnea)->Apply(args);
BENCHMARK(BM_DART_Crba)->Apply(args);
BENCHMARK(BM_DART_Aba)->Apply(args);

BENCHMARK_MAIN();
