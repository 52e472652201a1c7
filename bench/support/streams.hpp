#pragma once
// Target streams shared by the IK benchmarks (bench_dynamical, bench_instantaneous,
// bench_pairwise), precomputed so that the timed loops see only the solver, and the per-step
// percentile counters they all report.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::bench {

constexpr double kStreamDt = 0.01;  ///< 100 Hz

/// A smooth motion within 40 % of each joint's range (±0.6 rad for unlimited joints), joint
/// frequencies 0.3…1.0 Hz in 0.1 Hz steps (random, seed 1), base swaying 0.3 m on a 10 s period:
/// exactly periodic over 10 s, so cycling through 1000 frames at 100 Hz never jumps.
class WaveMotion {
 public:
  explicit WaveMotion(const Model& m);
  /// Configuration at time t (s) and, when nu is given (size nv), its generalised velocity.
  void at(double t, Configuration& q, VectorXd* nu = nullptr) const;

 private:
  VectorXd c_, a_, f_, ph_;
};

/// Target poses per frame: orientations of the orientation frames, position of the root frame,
/// and the configuration that produced them.
struct PoseStream {
  std::vector<std::vector<Matrix3d>> R;
  std::vector<Vector3d> p;
  std::vector<Configuration> truth;
  bool periodic = true;  ///< false: the last frame does not lead back to the first
  [[nodiscard]] std::size_t size() const { return p.size(); }
};

/// `count` frames of WaveMotion at 100 Hz: orientations of `frames`, position of `root`.
PoseStream makeWaveStream(const Model& m, const std::vector<std::string>& frames, const std::string& root, int count);
/// track::syntheticWalk on a human model (10 s at 100 Hz): every segment's orientation, the
/// Pelvis position.
PoseStream makeWalkStream(const Model& m);

/// Sets the counters p50_us / p99_us / max_us from per-step times (sorts `us`).
void reportPercentiles(benchmark::State& state, std::vector<double>& us);

}  // namespace kinetrack::bench
