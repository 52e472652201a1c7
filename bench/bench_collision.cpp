// DYN with contacts and self-collision on the Unitree G1 (issue 38), single thread, warm state,
// targets precomputed (the loop times only the solver):
//   BM_DynStep/g1                  14 orientation targets (pelvis, torso_link, shoulder yaw,
//                                  elbow, wrist yaw, hip yaw, knee, ankle roll links) + pelvis
//                                  position, following a smooth motion that presses the feet
//                                  into the ground; no collision limits (the peer)
//   BM_DynStep/g1_collision        the same with ground rows and self-collision rows of the
//                                  URDF's 37 collision proxies (capsules fitted to its meshes)
//   BM_DynStep/g1_collision_dense  the same, the dense QP every step (sparse_qp = false)
//   BM_DynFrame/...                one capture frame = 1, 2 or 3 DYN steps (the tracker's
//                                  sub-steps at 100, 60 and 30 Hz captures)
//   BM_CollisionUpdate/g1          CollisionLimits::update + velocityRows alone
// Counters: p50_us/p99_us per step or frame, dense (fraction of steps that needed the dense
// QP), rows (mean collision rows per step), penetration_mm / ground_mm (worst over the run).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>

#include "kinetrack/ik/collision.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "streams.hpp"
#include "testing/collision_fixtures.hpp"

namespace kt = kinetrack;

namespace {

const std::vector<std::string> kFrames = {"pelvis",
                                          "torso_link",
                                          "left_shoulder_yaw_link",
                                          "right_shoulder_yaw_link",
                                          "left_elbow_link",
                                          "right_elbow_link",
                                          "left_wrist_yaw_link",
                                          "right_wrist_yaw_link",
                                          "left_hip_yaw_link",
                                          "right_hip_yaw_link",
                                          "left_knee_link",
                                          "right_knee_link",
                                          "left_ankle_roll_link",
                                          "right_ankle_roll_link"};

struct G1 {
  kt::Model model;
  std::vector<kt::CollisionProxy> proxies;
  double stand_height = 0.0;  // pelvis height with the lowest proxy on the ground at s = 0
  bool ok = false;
};

const G1& g1() {
  static const G1 g = [] {
    G1 out;
    out.ok = kt::testing::loadG1(out.model, out.proxies);
    if (!out.ok) return out;
    kt::ik::CollisionOptions o;
    o.ground.enabled = true;
    const kt::ik::CollisionLimits c(out.model, out.proxies, o);
    kt::Data d(out.model);
    kt::forwardKinematics(out.model, d, kt::Configuration(out.model));
    double lowest = 1e9;
    for (int i = 0; i < static_cast<int>(out.proxies.size()); ++i) lowest = std::min(lowest, c.groundHeight(d, i));
    out.stand_height = -lowest;
    return out;
  }();
  return g;
}

// The wave motion (bench/support) with the pelvis 3 cm lower than standing height and bobbing
// 3 cm: the legs' targets push the feet into the ground half the time.
struct Stream {
  std::vector<std::vector<kt::Matrix3d>> R;
  std::vector<kt::Vector3d> p;
};

Stream makeStream(const G1& g, double dt, int count) {
  const kt::bench::WaveMotion wave(g.model);
  kt::Data d(g.model);
  Stream s;
  for (int k = 0; k < count; ++k) {
    kt::Configuration q(g.model);
    const double t = k * dt;
    wave.at(t, q);
    q.base_position.z() = g.stand_height - 0.03 + 0.03 * std::sin(2.0 * M_PI * 0.5 * t);
    kt::framesForwardKinematics(g.model, d, q);
    std::vector<kt::Matrix3d> R;
    for (const auto& name : kFrames) R.push_back(d.frame[static_cast<std::size_t>(g.model.frameId(name).value)].R);
    s.R.push_back(std::move(R));
    s.p.push_back(d.link[0].p);
  }
  return s;
}

enum class Mode { Off, Collision, CollisionDense };

void runG1(benchmark::State& state, Mode mode, int steps_per_frame) {
  const G1& g = g1();
  if (!g.ok) {
    state.SkipWithError("../shared/models/unitree not found");
    return;
  }
  const double frame_dt = 0.01 * steps_per_frame;  // 100, 50 or 33 Hz frames
  const double dt = frame_dt / steps_per_frame;
  const Stream stream = makeStream(g, frame_dt, static_cast<int>(10.0 / frame_dt));
  kt::DynamicalIkOptions o;
  if (mode != Mode::Off) {
    o.collision.ground.enabled = true;
    o.collision.self.enabled = true;
  }
  o.sparse_qp = mode != Mode::CollisionDense;
  kt::DynamicalIk ik(g.model, o);
  ik.setCollisionProxies(g.proxies);
  std::vector<kt::TargetId> ids;
  for (const auto& name : kFrames) ids.push_back(ik.tasks().addOrientation(name, {.gain = 10.0}));
  const kt::TargetId root = ik.tasks().addPosition("pelvis", {.gain = 10.0});
  kt::Configuration q0(g.model);
  q0.base_position.z() = g.stand_height;
  ik.setState(q0);
  auto feed = [&](std::size_t k) {
    const std::size_t i = k % stream.R.size();
    for (std::size_t t = 0; t < ids.size(); ++t) ik.tasks().setOrientation(ids[t], stream.R[i][t]);
    ik.tasks().setPosition(root, stream.p[i]);
  };
  for (std::size_t k = 0; k < 200; ++k) {  // warm state
    feed(k);
    for (int s = 0; s < steps_per_frame; ++s) ik.step(dt);
  }
  std::vector<double> us;
  us.reserve(1 << 20);
  std::size_t k = 200;
  long total_steps = 0, dense = 0, rows = 0, not_converged = 0;
  double penetration = 0.0, ground = 0.0;
  for (auto _ : state) {
    feed(k++);
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps_per_frame; ++s) {
      const kt::StepResult r = ik.step(dt);
      dense += r.dense_qp;
      rows += r.collision_rows;
      not_converged += r.status != kt::ik::Status::Converged;
      penetration = std::max(penetration, r.collision.penetration);
      ground = std::max(ground, r.collision.ground_depth);
    }
    const auto t1 = std::chrono::steady_clock::now();
    total_steps += steps_per_frame;
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  kt::bench::reportPercentiles(state, us);
  state.counters["dense"] = total_steps ? static_cast<double>(dense) / total_steps : 0.0;
  state.counters["rows"] = total_steps ? static_cast<double>(rows) / total_steps : 0.0;
  state.counters["not_converged"] = static_cast<double>(not_converged);
  state.counters["penetration_mm"] = 1e3 * penetration;
  state.counters["ground_mm"] = 1e3 * ground;
  state.counters["mnte"] = ik.mnte();
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_CollisionUpdate(benchmark::State& state) {
  const G1& g = g1();
  if (!g.ok) {
    state.SkipWithError("../shared/models/unitree not found");
    return;
  }
  kt::ik::CollisionOptions o;
  o.ground.enabled = true;
  o.self.enabled = true;
  kt::ik::CollisionLimits c(g.model, g.proxies, o);
  const kt::bench::WaveMotion wave(g.model);
  std::vector<kt::Data> data;
  for (int k = 0; k < 100; ++k) {
    kt::Configuration q(g.model);
    wave.at(0.1 * k, q);
    q.base_position.z() = g.stand_height - 0.02;
    data.emplace_back(g.model);
    kt::forwardKinematics(g.model, data.back(), q);
  }
  kt::MatrixXd A(c.numRows(), g.model.nv());
  kt::VectorXd lb(c.numRows()), ub(c.numRows());
  std::size_t k = 0;
  long rows = 0, iterations = 0;
  for (auto _ : state) {
    const kt::Data& d = data[k++ % data.size()];
    c.update(d);
    c.velocityRows(d, 0.01, A, lb, ub);
    rows += c.activeRows();
    ++iterations;
    benchmark::DoNotOptimize(A.data());
  }
  state.counters["rows"] = iterations ? static_cast<double>(rows) / iterations : 0.0;
  state.counters["pairs"] = static_cast<double>(c.pairs().size());
}

}  // namespace

BENCHMARK_CAPTURE(runG1, off, Mode::Off, 1)->Name("BM_DynStep/g1")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(runG1, collision, Mode::Collision, 1)->Name("BM_DynStep/g1_collision")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(runG1, dense, Mode::CollisionDense, 1)
    ->Name("BM_DynStep/g1_collision_dense")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(runG1, off2, Mode::Off, 2)->Name("BM_DynFrame/g1/2_steps")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(runG1, col2, Mode::Collision, 2)
    ->Name("BM_DynFrame/g1_collision/2_steps")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(runG1, off3, Mode::Off, 3)->Name("BM_DynFrame/g1/3_steps")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(runG1, col3, Mode::Collision, 3)
    ->Name("BM_DynFrame/g1_collision/3_steps")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CollisionUpdate)->Name("BM_CollisionUpdate/g1")->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
