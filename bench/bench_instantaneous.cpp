// Whole-body instantaneous IK benchmarks (issue 5), single thread, warm-started frame to frame
// at 100 Hz (targets precomputed, so the loop times only the solve):
//   BM_InstIk/<backend>/human66_stream/<tol>  the stream of bench_dynamical.cpp: 23 orientation
//                                             targets + 1 position target (Pelvis), every joint
//                                             within 40 % of its range (±0.6 rad unlimited),
//                                             0.3–1.0 Hz, exactly periodic (10 s)
//   BM_InstIk/<backend>/human48_stream/<tol>  the same on human48 (clinical limits)
//   BM_InstIk/<backend>/icub_stream/<tol>     all 33 iCub links + root position, with the 14
//                                             coupled rows (dense Goldfarb–Idnani QP)
//   BM_InstIk/<backend>/human66_walk/<tol>    track::syntheticWalk at 100 Hz (10 s; the state is
//                                             reset to the first frame, untimed, at each wrap)
//   BM_DynStep/human66_walk                   DYN (defaults, K = 10/s) on the same walk, for the
//                                             ratio on identical data
// <backend> is Native or Ipopt, <tol> the orientation tolerance in µrad (the position tolerance
// is the same number in µm). Counters: per-frame p50_us / p99_us / max_us, mean and max
// iterations, frames not Converged, mean MNTE and largest orientation error (rad) after the
// solve.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "streams.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

using kt::bench::kStreamDt;
using kt::bench::PoseStream;
using kt::bench::reportPercentiles;

kt::Model icub() {
  const std::string path = kt::testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf");
  if (path.empty()) return {};
  kt::ModelBuilder b(kt::io::loadUrdf(path));
  kt::addIcubCouplingConstraints(b);
  return b.build();
}

void runInstantaneous(benchmark::State& state, const kt::Model& m, const std::vector<std::string>& frames,
                      const std::string& root, const PoseStream& stream, kt::InstantaneousIkBackend backend) {
  kt::InstantaneousIkOptions o;
  o.backend = backend;
  o.orientation_tolerance = 1e-6 * static_cast<double>(state.range(0));
  o.position_tolerance = o.orientation_tolerance;
  kt::InstantaneousIk ik = kt::makeInstantaneousIk(m, o);
  std::vector<kt::TargetId> ids;
  for (const auto& name : frames) ids.push_back(ik.tasks().addOrientation(name));
  const kt::TargetId pos = ik.tasks().addPosition(root);
  auto feed = [&](std::size_t k) {
    const std::size_t f = k % stream.size();
    if (f == 0 && !stream.periodic) ik.setState(stream.truth[0]);  // walk: restart (untimed)
    for (std::size_t i = 0; i < ids.size(); ++i) ik.tasks().setOrientation(ids[i], stream.R[f][i]);
    ik.tasks().setPosition(pos, stream.p[f]);
  };
  ik.setState(stream.truth[0]);
  for (std::size_t k = 0; k < 100; ++k) {  // warm state (QP active sets, multipliers, damping)
    feed(k);
    ik.solve();
  }
  std::vector<double> us;
  us.reserve(1 << 20);
  std::size_t k = 100;
  long frames_done = 0, iterations = 0, not_converged = 0;
  int max_iterations = 0;
  double mnte_sum = 0.0, worst_angle = 0.0;
  for (auto _ : state) {
    feed(k++);
    const auto t0 = std::chrono::steady_clock::now();
    const kt::SolveResult r = ik.solve();
    const auto t1 = std::chrono::steady_clock::now();
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    ++frames_done;
    iterations += r.iterations;
    max_iterations = std::max(max_iterations, r.iterations);
    not_converged += r.status != kt::ik::Status::Converged;
    mnte_sum += r.mnte;
    worst_angle = std::max(worst_angle, r.max_orientation_error);
  }
  reportPercentiles(state, us);
  state.counters["iter_mean"] = static_cast<double>(iterations) / static_cast<double>(std::max(1L, frames_done));
  state.counters["iter_max"] = max_iterations;
  state.counters["not_converged"] = static_cast<double>(not_converged);
  state.counters["mnte"] = mnte_sum / static_cast<double>(std::max(1L, frames_done));
  state.counters["max_err_rad"] = worst_angle;
}

void BM_InstIk_human66_stream(benchmark::State& state, kt::InstantaneousIkBackend backend) {
  const kt::Model m = kt::makeHuman66();
  runInstantaneous(state, m, kt::humanSegmentNames(), "Pelvis",
                   kt::bench::makeWaveStream(m, kt::humanSegmentNames(), "Pelvis", 1000), backend);
}
void BM_InstIk_human48_stream(benchmark::State& state, kt::InstantaneousIkBackend backend) {
  const kt::Model m = kt::makeHuman48();
  runInstantaneous(state, m, kt::humanSegmentNames(), "Pelvis",
                   kt::bench::makeWaveStream(m, kt::humanSegmentNames(), "Pelvis", 1000), backend);
}
void BM_InstIk_icub_stream(benchmark::State& state, kt::InstantaneousIkBackend backend) {
  const kt::Model m = icub();
  if (m.numJoints() == 0) {
    state.SkipWithError("../shared/models/icub not found");
    return;
  }
  runInstantaneous(state, m, m.linkNames(), "root_link", kt::bench::makeWaveStream(m, m.linkNames(), "root_link", 1000),
                   backend);
}
void BM_InstIk_human66_walk(benchmark::State& state, kt::InstantaneousIkBackend backend) {
  const kt::Model m = kt::makeHuman66();
  runInstantaneous(state, m, kt::humanSegmentNames(), "Pelvis", kt::bench::makeWalkStream(m), backend);
}

// DYN on the walk (targets with finite-difference-free exact poses, velocities from the clip's
// central differences as `kinetrack track` feeds them).
void BM_DynStep_human66_walk(benchmark::State& state) {
  const kt::Model m = kt::makeHuman66();
  const kt::track::SyntheticWalk walk = kt::track::syntheticWalk(m, 10.0, 1.0 / kStreamDt);
  kt::DynamicalIk ik(m);
  const int ns = walk.clip.numSegments();
  std::vector<kt::TargetId> ids;
  for (int s = 0; s < ns; ++s)
    ids.push_back(ik.tasks().addOrientation(walk.clip.segment_names[static_cast<std::size_t>(s)]));
  const kt::TargetId pos = ik.tasks().addPosition("Pelvis");
  auto feed = [&](std::size_t k) {
    const int f = static_cast<int>(k % static_cast<std::size_t>(walk.clip.numFrames()));
    if (f == 0) ik.setState(walk.truth[0]);
    const std::size_t base = static_cast<std::size_t>(f) * static_cast<std::size_t>(ns);
    for (int s = 0; s < ns; ++s)
      ik.tasks().setOrientation(ids[static_cast<std::size_t>(s)], walk.clip.pose(f, s).R,
                                walk.clip.angular_velocity[base + static_cast<std::size_t>(s)]);
    ik.tasks().setPosition(pos, walk.clip.pose(f, 0).p, walk.clip.linear_velocity[base]);
  };
  for (std::size_t k = 0; k < 100; ++k) {
    feed(k);
    ik.step(kStreamDt);
  }
  std::vector<double> us;
  us.reserve(1 << 20);
  std::size_t k = 100;
  long frames_done = 0;
  double mnte_sum = 0.0;
  for (auto _ : state) {
    feed(k++);
    const auto t0 = std::chrono::steady_clock::now();
    ik.step(kStreamDt);
    const auto t1 = std::chrono::steady_clock::now();
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    ++frames_done;
    mnte_sum += ik.mnte();
  }
  reportPercentiles(state, us);
  state.counters["mnte"] = mnte_sum / static_cast<double>(std::max(1L, frames_done));
}

using Backend = kt::InstantaneousIkBackend;

}  // namespace

// Tolerance argument: 1 µrad (the default) and 300 µrad (≈ DYN's tracking error on the stream:
// MNTE 6e-8 ≈ θ²/2 with θ ≈ 3.5e-4 rad).
#define KT_INST_BENCH(fn, backend, label)          \
  BENCHMARK_CAPTURE(fn, backend, Backend::backend) \
      ->Name("BM_InstIk/" #backend "/" label)      \
      ->Arg(1)                                     \
      ->Arg(300)                                   \
      ->Unit(benchmark::kMicrosecond)

KT_INST_BENCH(BM_InstIk_human66_stream, Native, "human66_stream");
KT_INST_BENCH(BM_InstIk_human66_stream, Ipopt, "human66_stream");
KT_INST_BENCH(BM_InstIk_human48_stream, Native, "human48_stream");
KT_INST_BENCH(BM_InstIk_human48_stream, Ipopt, "human48_stream");
KT_INST_BENCH(BM_InstIk_icub_stream, Native, "icub_stream");
KT_INST_BENCH(BM_InstIk_icub_stream, Ipopt, "icub_stream");
KT_INST_BENCH(BM_InstIk_human66_walk, Native, "human66_walk");
KT_INST_BENCH(BM_InstIk_human66_walk, Ipopt, "human66_walk");
BENCHMARK(BM_DynStep_human66_walk)->Name("BM_DynStep/human66_walk")->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
