// Inverse dynamics of OpenSim's gait2354 walk (../shared/data/opensim/gait2354_walk): one frame
// of the OpenSim ID solver (ground reactions sampled and applied, RNEA on the 23-coordinate model
// with its function-driven knees), beside plain RNEA on the same model and on the human66 URDF
// with a fixed base (66 joints) in the same binary; and the whole trial (padding, Butterworth,
// quintic splines, 73 frames), which is what OpenSim's ID tool does per run.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

struct Gait {
  kt::io::OpenSimModel model;
  kt::io::ExternalLoads loads;
  kt::io::MotTable motion;
  kt::biomech::OpenSimIdOptions options;
  kt::biomech::CoordinateTrajectory traj;
};

Gait* gait(benchmark::State& st) {
  static std::unique_ptr<Gait> g;
  if (!g) {
    const std::string model = kt::testing::sharedFile("data/opensim/gait2354_walk/subject01_simbody.osim");
    if (model.empty()) {
      st.SkipWithError("../shared/data/opensim not found");
      return nullptr;
    }
    const std::string dir = model.substr(0, model.rfind('/') + 1);
    g = std::make_unique<Gait>();
    g->model = kt::io::readOpenSimModel(model);
    g->loads = kt::io::readExternalLoads(dir + "subject01_walk1_grf.xml");
    g->motion = kt::io::readMot(dir + "subject01_walk1_ik_REFERENCE.mot");
    g->options =
        kt::biomech::OpenSimIdOptions::fromSetup(kt::io::readIdSetup(dir + "subject01_Setup_InverseDynamics.xml"));
    g->traj = kt::biomech::prepareCoordinates(g->model, g->motion, g->options);
  }
  return g.get();
}

void BM_Gait2354IdFrame(benchmark::State& st) {
  Gait* g = gait(st);
  if (!g) return;
  kt::biomech::OpenSimIdSolver solver(g->model, &g->loads);
  const auto n = static_cast<Eigen::Index>(g->traj.times.size());
  Eigen::Index f = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(solver
                                 .solve(g->traj.times[static_cast<std::size_t>(f)], g->traj.q.row(f).transpose(),
                                        g->traj.qd.row(f).transpose(), g->traj.qdd.row(f).transpose())
                                 .data());
    f = (f + 1) % n;
  }
}
BENCHMARK(BM_Gait2354IdFrame);

// Peer 1: RNEA alone on the same model and states (no loads, no coordinate mapping).
void BM_Gait2354Rnea(benchmark::State& st) {
  Gait* g = gait(st);
  if (!g) return;
  const kt::Model& m = *g->model.model;
  kt::DynamicsData d(m);
  std::vector<kt::Configuration> q;
  std::vector<kt::VectorXd> v, a;
  for (Eigen::Index f = 0; f < static_cast<Eigen::Index>(g->traj.times.size()); ++f) {
    kt::Configuration c(m);
    kt::VectorXd vf = kt::VectorXd::Zero(m.nv()), af = kt::VectorXd::Zero(m.nv());
    for (std::size_t k = 0; k < g->model.coordinates.size(); ++k) {
      const int j = g->model.coordinates[k].joint.value;
      c.joints[j] = g->traj.q(f, static_cast<Eigen::Index>(k));
      vf[j] = g->traj.qd(f, static_cast<Eigen::Index>(k));
      af[j] = g->traj.qdd(f, static_cast<Eigen::Index>(k));
    }
    q.push_back(c);
    v.push_back(vf);
    a.push_back(af);
  }
  std::size_t f = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(kt::rnea(m, d, q[f], v[f], a[f], {}, g->model.gravity).data());
    f = (f + 1) % q.size();
  }
}
BENCHMARK(BM_Gait2354Rnea);

// Peer 2: RNEA on the human66 URDF, fixed base (66 revolute joints), random states.
void BM_Human66FixedRnea(benchmark::State& st) {
  const std::string path = kt::testing::sharedFile("models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  if (path.empty()) {
    st.SkipWithError("../shared models not found");
    return;
  }
  kt::io::UrdfOptions o;
  o.base = kt::BaseType::Fixed;
  const kt::Model m = kt::io::loadUrdf(path, o);
  kt::DynamicsData d(m);
  std::mt19937_64 rng(42);
  std::normal_distribution<double> n01;
  const kt::Configuration q = kt::randomConfiguration(m, rng);
  kt::VectorXd v(m.nv()), a(m.nv());
  for (int i = 0; i < m.nv(); ++i) {
    v[i] = n01(rng);
    a[i] = 3.0 * n01(rng);
  }
  for (auto _ : st) benchmark::DoNotOptimize(kt::rnea(m, d, q, v, a).data());
}
BENCHMARK(BM_Human66FixedRnea);

// The whole trial as OpenSim's tool runs it (73 frames, 23 coordinates).
void BM_Gait2354IdTrial(benchmark::State& st) {
  Gait* g = gait(st);
  if (!g) return;
  for (auto _ : st) {
    const kt::biomech::OpenSimIdResult r =
        kt::biomech::opensimInverseDynamics(g->model, g->motion, &g->loads, g->options);
    benchmark::DoNotOptimize(r.values.data());
  }
}
BENCHMARK(BM_Gait2354IdTrial)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
