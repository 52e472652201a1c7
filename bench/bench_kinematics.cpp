// Kinematics benchmarks: kinetrack vs KDL in one binary, single thread.
//   BM_FK/<model>            forwardKinematics + updateFramePlacements: every link and frame
//   BM_FK23/<model>          forwardKinematics + the 23 segment frame poses
//   BM_Jacobians/<model>     forwardKinematics + 23 full (6 × nv) segment Jacobians
//   BM_JacobiansSupport/<model> same, rewriting only base + support columns of persistent J
//   BM_JacobiansOnly/<model> the 23 full Jacobians alone, FK already done
//   BM_KDL_FK/<model>        KDL TreeFkSolverPos_recursive, 23 segment poses
//   BM_KDL_Jacobians/<model> KDL TreeJntToJacSolver, 23 segment Jacobians
// Models: human66 (generated; KDL reads its exported URDF) and the iCub URDF from ../shared.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>

#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/kdl_oracle.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

const std::vector<std::string>& kHumanSegments = kt::humanSegmentNames();
// iCub links playing the role of the 23 human segments.
const std::vector<std::string> kIcubSegments = {
    "root_link",    "torso_1",      "torso_2",      "chest",       "neck_1",    "neck_2",
    "head",         "r_shoulder_1", "r_shoulder_2", "r_upper_arm", "r_forearm", "r_hand",
    "l_shoulder_1", "l_shoulder_2", "l_upper_arm",  "l_forearm",   "l_hand",    "r_upper_leg",
    "r_lower_leg",  "r_foot",       "l_upper_leg",  "l_lower_leg", "l_foot"};

struct Fixture {
  std::string name;
  kt::Model model;
  std::vector<std::string> segment_names;
  std::vector<kt::FrameId> segments;
  std::vector<kt::Configuration> configs;
  std::unique_ptr<kt::testing::KdlOracle> kdl;
  std::vector<KDL::JntArray> kdl_configs;
};

Fixture makeFixture(const std::string& name, kt::Model model, const std::string& urdf_text,
                    const std::vector<std::string>& segments) {
  Fixture f{name, std::move(model), segments, {}, {}, nullptr, {}};
  for (const auto& s : segments) f.segments.push_back(f.model.frameId(s));
  std::mt19937_64 rng(42);
  for (int i = 0; i < 64; ++i) f.configs.push_back(kt::randomConfiguration(f.model, rng));
  f.kdl = std::make_unique<kt::testing::KdlOracle>(kt::testing::KdlOracle::fromUrdfText(urdf_text));
  for (const auto& q : f.configs) f.kdl_configs.push_back(f.kdl->jointArray(f.model, q));
  return f;
}

Fixture& human66() {
  static Fixture f = [] {
    kt::Model m = kt::makeHuman66();
    const std::string urdf = kt::io::toUrdf(m);
    return makeFixture("human66", std::move(m), urdf, kHumanSegments);
  }();
  return f;
}

Fixture* icub() {
  static std::unique_ptr<Fixture> f = []() -> std::unique_ptr<Fixture> {
    const std::string path = kt::testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf");
    if (path.empty()) return nullptr;
    kt::Model m = kt::io::loadUrdf(path);
    const std::string urdf = kt::io::toUrdf(m);  // same kinematics, fixed frames kept
    return std::make_unique<Fixture>(makeFixture("icub", std::move(m), urdf, kIcubSegments));
  }();
  return f.get();
}

Fixture* fixture(benchmark::State& state, int which) {
  Fixture* f = which == 0 ? &human66() : icub();
  if (!f) state.SkipWithError("../shared/models/icub not found");
  return f;
}

void BM_FK(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  kt::Data data(f->model);
  std::size_t i = 0;
  for (auto _ : state) {
    kt::framesForwardKinematics(f->model, data, f->configs[i++ & 63]);
    benchmark::DoNotOptimize(data.frame.back().p.data());
    benchmark::ClobberMemory();
  }
  state.counters["frames"] = f->model.numFrames();
}

void BM_FK23(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  kt::Data data(f->model);
  std::size_t i = 0;
  for (auto _ : state) {
    kt::forwardKinematics(f->model, data, f->configs[i++ & 63]);
    for (kt::FrameId s : f->segments) kt::updateFramePlacement(f->model, data, s);
    benchmark::DoNotOptimize(data.frame.back().p.data());
    benchmark::ClobberMemory();
  }
}

void BM_Jacobians(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  kt::Data data(f->model);
  std::vector<kt::Matrix6Xd> J(f->segments.size(), kt::Matrix6Xd::Zero(6, f->model.nv()));
  std::size_t i = 0;
  for (auto _ : state) {
    kt::forwardKinematics(f->model, data, f->configs[i++ & 63]);
    for (std::size_t k = 0; k < f->segments.size(); ++k) kt::frameJacobian(f->model, data, f->segments[k], J[k]);
    benchmark::DoNotOptimize(J.back().data());
    benchmark::ClobberMemory();
  }
  state.counters["nv"] = f->model.nv();
}

// The same 23 full Jacobians kept in persistent matrices: only base and support columns are
// rewritten each frame (the other columns are structurally zero and were zeroed once).
void BM_JacobiansSupport(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  kt::Data data(f->model);
  std::vector<kt::Matrix6Xd> J(f->segments.size(), kt::Matrix6Xd::Zero(6, f->model.nv()));
  std::size_t i = 0;
  for (auto _ : state) {
    kt::forwardKinematics(f->model, data, f->configs[i++ & 63]);
    for (std::size_t k = 0; k < f->segments.size(); ++k) kt::frameJacobianSupport(f->model, data, f->segments[k], J[k]);
    benchmark::DoNotOptimize(J.back().data());
    benchmark::ClobberMemory();
  }
}

void BM_JacobiansOnly(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  kt::Data data(f->model);
  std::vector<kt::Matrix6Xd> J(f->segments.size(), kt::Matrix6Xd::Zero(6, f->model.nv()));
  kt::forwardKinematics(f->model, data, f->configs[0]);
  for (auto _ : state) {
    for (std::size_t k = 0; k < f->segments.size(); ++k) kt::frameJacobian(f->model, data, f->segments[k], J[k]);
    benchmark::DoNotOptimize(J.back().data());
    benchmark::ClobberMemory();
  }
}

void BM_KDL_FK(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  KDL::Frame out;
  std::size_t i = 0;
  for (auto _ : state) {
    const KDL::JntArray& q = f->kdl_configs[i++ & 63];
    for (const auto& s : f->segment_names) {
      f->kdl->fkSolver().JntToCart(q, out, s);
      benchmark::DoNotOptimize(out.p.data);
    }
  }
}

void BM_KDL_Jacobians(benchmark::State& state, int which) {
  Fixture* f = fixture(state, which);
  if (!f) return;
  KDL::Jacobian jac(f->kdl->numJoints());
  std::size_t i = 0;
  for (auto _ : state) {
    const KDL::JntArray& q = f->kdl_configs[i++ & 63];
    for (const auto& s : f->segment_names) {
      f->kdl->jacSolver().JntToJac(q, jac, s);
      benchmark::DoNotOptimize(jac.data.data());
    }
  }
}

}  // namespace

#define KINETRACK_BENCH(fn)                                         \
  BENCHMARK_CAPTURE(fn, human66, 0)->Unit(benchmark::kMicrosecond); \
  BENCHMARK_CAPTURE(fn, icub, 1)->Unit(benchmark::kMicrosecond)

KINETRACK_BENCH(BM_FK);
KINETRACK_BENCH(BM_FK23);
KINETRACK_BENCH(BM_Jacobians);
KINETRACK_BENCH(BM_JacobiansSupport);
KINETRACK_BENCH(BM_JacobiansOnly);
KINETRACK_BENCH(BM_KDL_FK);
KINETRACK_BENCH(BM_KDL_Jacobians);

BENCHMARK_MAIN();
