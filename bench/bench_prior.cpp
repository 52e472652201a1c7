// GPM benchmarks (issue 15), single thread:
//   BM_GpmUpdate/LN, /GP    one Eq. 3 / Eq. 4 update (FK, 12×25 Jacobian, damped pseudo-inverse,
//                           density lookup for GP) on the 25-DoF model of a real subject (Bandai,
//                           raise + wave clips), the prior learned from that subject at inc = 5;
//                           target ≤ 5 µs for GP. LN is the peer in the same run.
//   BM_GpmFrame/LN, /GP     a whole frame (3 updates, the default)
//   BM_SparseFrame/LN, /GP  a human66 frame from 3 pose targets (Head, RightHand, LeftHand) by
//                           SparsePriorIk (3 updates), targets from track::syntheticWalk, the prior
//                           learned from another walk; target ≤ 30 µs with the prior.
//   BM_SparseFrame/DYN      DYN (tracker options, per-step gain 1) on the same targets: the peer.
//   BM_SparseFrame/DYN+GP   the same DYN step with the prior as its posture term (PriorPosture).
// Counters: p50_us / p99_us / max_us per call.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/prior/gpm_study.hpp"
#include "kinetrack/prior/human_prior.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/track/frame_solver.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "streams.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;
namespace kp = kinetrack::prior;

namespace {

using Clock = std::chrono::steady_clock;

struct UpperBodyFixture {
  kp::SubjectFit fit;
  kp::DensityPrior prior;
  bool ok = false;
  UpperBodyFixture() {
    const std::string a = kt::testing::sharedFile("data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh");
    const std::string b = kt::testing::sharedFile("data/bvh/bandai/dataset-2_wave-right-hand_normal_001.bvh");
    if (a.empty() || b.empty()) return;
    fit = kp::fitSubject("Bandai-ds2", {a, b});
    kp::DensityOptions o;
    o.inc = 5;
    prior = kp::upperBodyPrior({&fit}, o);
    ok = true;
  }
};

const UpperBodyFixture& upperBody() {
  static const UpperBodyFixture f;
  return f;
}

void runGpm(benchmark::State& state, kp::IkMethod method, int iterations) {
  const UpperBodyFixture& f = upperBody();
  if (!f.ok) {
    state.SkipWithError("../shared/data/bvh/bandai not found");
    return;
  }
  kp::GpmOptions o;
  o.iterations = iterations;
  kp::GradientProjectionIk ik(f.fit.model, &f.prior, o);
  kp::Vector25d theta = f.fit.theta.front();
  std::vector<double> us;
  std::size_t frame = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(ik.solve(f.fit.hands[frame], theta, method));
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (++frame == f.fit.hands.size()) frame = 0, theta = f.fit.theta.front();
  }
  kt::bench::reportPercentiles(state, us);
}

void BM_GpmUpdate_LN(benchmark::State& s) { runGpm(s, kp::IkMethod::LeastNorm, 1); }
void BM_GpmUpdate_GP(benchmark::State& s) { runGpm(s, kp::IkMethod::GradientProjection, 1); }
void BM_GpmFrame_LN(benchmark::State& s) { runGpm(s, kp::IkMethod::LeastNorm, 3); }
void BM_GpmFrame_GP(benchmark::State& s) { runGpm(s, kp::IkMethod::GradientProjection, 3); }
BENCHMARK(BM_GpmUpdate_LN)->Name("BM_GpmUpdate/LN");
BENCHMARK(BM_GpmUpdate_GP)->Name("BM_GpmUpdate/GP");
BENCHMARK(BM_GpmFrame_LN)->Name("BM_GpmFrame/LN");
BENCHMARK(BM_GpmFrame_GP)->Name("BM_GpmFrame/GP");

// --- human66, 3 targets ------------------------------------------------------------------------

const std::vector<std::string> kTargets = {"Head", "RightHand", "LeftHand"};

struct SparseFixture {
  std::shared_ptr<const kt::Model> model = std::make_shared<const kt::Model>(kt::makeHuman66());
  std::vector<kt::Configuration> walk;
  std::vector<std::vector<kt::Transform>> targets;
  kp::HumanPrior prior;
  SparseFixture() {
    walk = kt::track::syntheticWalk(*model, 5.0, 60.0).truth;
    const auto other = kt::track::syntheticWalk(*model, 5.0, 60.0, 0.9).truth;  // another speed
    prior = kp::buildHumanPrior(*model, {other}, kp::DensityOptions{});
    kt::Data d(*model);
    for (const auto& q : walk) {
      kt::framesForwardKinematics(*model, d, q);
      std::vector<kt::Transform> t;
      for (const auto& n : kTargets) t.push_back(d.frame[static_cast<std::size_t>(model->frameId(n).value)]);
      targets.push_back(t);
    }
  }
};

const SparseFixture& sparse() {
  static const SparseFixture f;
  return f;
}

void runSparse(benchmark::State& state, bool use_prior) {
  const SparseFixture& f = sparse();
  kp::SparsePriorIk ik(f.model, kTargets, &f.prior);
  ik.setState(f.walk.front());
  std::vector<double> us;
  std::size_t frame = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(ik.solve(f.targets[frame], use_prior));
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (++frame == f.targets.size()) frame = 0, ik.setState(f.walk.front());
  }
  kt::bench::reportPercentiles(state, us);
}

void BM_SparseFrame_LN(benchmark::State& s) { runSparse(s, false); }
void BM_SparseFrame_GP(benchmark::State& s) { runSparse(s, true); }

void runSparseDyn(benchmark::State& state, bool with_prior) {
  const SparseFixture& f = sparse();
  kp::SparseDynamicalIk ik(f.model, kTargets, with_prior ? &f.prior : nullptr);
  ik.setState(f.walk.front());
  std::vector<double> us;
  std::size_t frame = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(ik.solve(f.targets[frame], 1.0 / 60.0));
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (++frame == f.targets.size()) frame = 0, ik.setState(f.walk.front());
  }
  kt::bench::reportPercentiles(state, us);
}

BENCHMARK(BM_SparseFrame_LN)->Name("BM_SparseFrame/LN");
BENCHMARK(BM_SparseFrame_GP)->Name("BM_SparseFrame/GP");
void BM_SparseFrame_DYN(benchmark::State& s) { runSparseDyn(s, false); }
void BM_SparseFrame_DYN_GP(benchmark::State& s) { runSparseDyn(s, true); }

BENCHMARK(BM_SparseFrame_DYN)->Name("BM_SparseFrame/DYN");
BENCHMARK(BM_SparseFrame_DYN_GP)->Name("BM_SparseFrame/DYN+GP");

}  // namespace

BENCHMARK_MAIN();
