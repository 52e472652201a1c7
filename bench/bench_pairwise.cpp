// Pair-wise instantaneous IK benchmarks (issue 5, SPEC §3), warm-started frame to frame at 100 Hz
// (targets precomputed, so the loop times only the solve), against the whole-body native solver
// on the same data:
//   BM_Pairwise/t<threads>/human66_stream/<tol>  bench_instantaneous.cpp's stream: 23 orientation
//                                                targets + the Pelvis position, every joint within
//                                                40 % of its range (±0.6 rad unlimited), 0.3–1.0 Hz,
//                                                exactly periodic (10 s); 22 pairs of 3 joints
//   BM_Pairwise/t<threads>/human66_walk/<tol>    track::syntheticWalk at 100 Hz (10 s; the state is
//                                                reset to the first frame, untimed, at each wrap)
//   BM_WholeBody/human66_stream|walk/<tol>       InstantaneousIk (Native) on the same frames
// <threads> is 1 (inline) or 2 (the caller + one pool worker), <tol> the per-pair (whole-body:
// per-target) orientation tolerance in µrad. Counters: per-frame p50_us / p99_us / max_us, mean
// and max iterations (pair-wise: the largest subsystem's and the sum over subsystems), frames not
// Converged, mean MNTE and the largest world-frame orientation error (rad) after the solve.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "streams.hpp"

namespace kt = kinetrack;

namespace {

using kt::bench::kStreamDt;
using kt::bench::PoseStream;
using kt::bench::reportPercentiles;

const kt::Model& human66() {
  static const kt::Model m = kt::makeHuman66();
  return m;
}
const PoseStream& stream(bool walk) {
  static const PoseStream s = kt::bench::makeWaveStream(human66(), kt::humanSegmentNames(), "Pelvis", 1000);
  static const PoseStream w = kt::bench::makeWalkStream(human66());
  return walk ? w : s;
}

/// Per-frame statistics shared by both solvers.
struct Tally {
  std::vector<double> us;
  long frames = 0, iterations = 0, sum_iterations = 0, not_converged = 0;
  int max_iterations = 0;
  double mnte = 0.0, worst_angle = 0.0;
  Tally() { us.reserve(1 << 20); }
  void add(double t_us, int iter, int iter_sum, bool converged, double mnte_k, double angle) {
    if (us.size() < us.capacity()) us.push_back(t_us);
    ++frames;
    iterations += iter;
    sum_iterations += iter_sum;
    max_iterations = std::max(max_iterations, iter);
    not_converged += !converged;
    mnte += mnte_k;
    worst_angle = std::max(worst_angle, angle);
  }
  void report(benchmark::State& state, bool pairwise) {
    reportPercentiles(state, us);
    const double n = static_cast<double>(std::max(1L, frames));
    state.counters["iter_mean"] = static_cast<double>(iterations) / n;
    state.counters["iter_max"] = max_iterations;
    if (pairwise) state.counters["iter_sum_mean"] = static_cast<double>(sum_iterations) / n;
    state.counters["not_converged"] = static_cast<double>(not_converged);
    state.counters["mnte"] = mnte / n;
    state.counters["max_err_rad"] = worst_angle;
  }
};

/// Feeds frame k of the stream to a solver (resetting the state at the wrap of a non-periodic one).
template <class Solver>
struct Feeder {
  Solver& ik;
  const PoseStream& s;
  std::vector<kt::TargetId> ids;
  kt::TargetId pos;
  Feeder(Solver& solver, const PoseStream& stream) : ik(solver), s(stream) {
    for (const auto& name : kt::humanSegmentNames()) ids.push_back(ik.tasks().addOrientation(name));
    pos = ik.tasks().addPosition("Pelvis");
  }
  void operator()(std::size_t k) {
    const std::size_t f = k % s.size();
    if (f == 0 && !s.periodic) ik.setState(s.truth[0]);  // walk: restart (untimed)
    for (std::size_t i = 0; i < ids.size(); ++i) ik.tasks().setOrientation(ids[i], s.R[f][i]);
    ik.tasks().setPosition(pos, s.p[f]);
  }
};

/// Warm-up (100 frames: the pair-wise partition, a warm state), then one timed solve per
/// benchmark iteration; `record(tally, t_us, result)` adds the solver's counters.
template <class Solver, class Record>
void runStream(benchmark::State& state, Solver& ik, const PoseStream& s, bool pairwise, Record record) {
  Feeder<Solver> feed(ik, s);
  ik.setState(s.truth[0]);
  for (std::size_t k = 0; k < 100; ++k) {
    feed(k);
    ik.solve();
  }
  Tally tally;
  std::size_t k = 100;
  for (auto _ : state) {
    feed(k++);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = ik.solve();
    const auto t1 = std::chrono::steady_clock::now();
    record(tally, std::chrono::duration<double, std::micro>(t1 - t0).count(), r);
  }
  tally.report(state, pairwise);
}

void BM_Pairwise(benchmark::State& state, int threads, bool walk) {
  kt::PairwiseIkOptions o;
  o.threads = threads;
  o.solver.orientation_tolerance = 1e-6 * static_cast<double>(state.range(0));
  kt::PairwiseIk ik(human66(), o);
  runStream(state, ik, stream(walk), true, [](Tally& t, double us, const kt::PairwiseSolveResult& r) {
    t.add(us, r.iterations, r.total_iterations, r.status == kt::ik::Status::Converged, r.mnte, r.max_orientation_error);
  });
}

void BM_WholeBody(benchmark::State& state, bool walk) {
  kt::InstantaneousIkOptions o;
  o.orientation_tolerance = 1e-6 * static_cast<double>(state.range(0));
  o.position_tolerance = o.orientation_tolerance;
  kt::InstantaneousIk ik(human66(), o);
  runStream(state, ik, stream(walk), false, [](Tally& t, double us, const kt::SolveResult& r) {
    t.add(us, r.iterations, r.iterations, r.status == kt::ik::Status::Converged, r.mnte, r.max_orientation_error);
  });
}

}  // namespace

// Tolerance argument: 1 µrad (the default) and 300 µrad (≈ DYN's tracking error on the stream).
#define KT_PAIR_BENCH(threads, walk, label)                           \
  BENCHMARK_CAPTURE(BM_Pairwise, t##threads##_##label, threads, walk) \
      ->Name("BM_Pairwise/t" #threads "/human66_" #label)             \
      ->Arg(1)                                                        \
      ->Arg(300)                                                      \
      ->Unit(benchmark::kMicrosecond)                                 \
      ->UseRealTime()
#define KT_WHOLE_BENCH(walk, label)            \
  BENCHMARK_CAPTURE(BM_WholeBody, label, walk) \
      ->Name("BM_WholeBody/human66_" #label)   \
      ->Arg(1)                                 \
      ->Arg(300)                               \
      ->Unit(benchmark::kMicrosecond)          \
      ->UseRealTime()

KT_PAIR_BENCH(1, false, stream);
KT_PAIR_BENCH(2, false, stream);
KT_WHOLE_BENCH(false, stream);
KT_PAIR_BENCH(1, true, walk);
KT_PAIR_BENCH(2, true, walk);
KT_WHOLE_BENCH(true, walk);

BENCHMARK_MAIN();
