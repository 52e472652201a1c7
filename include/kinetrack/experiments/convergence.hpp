#pragma once
// `kinetrack experiment convergence`: the DYN paper's Fig. 8 (SPEC §2.6) as an experiment. From the
// zero configuration, the dynamical IK tracks a static random pose with the same gain K on every
// target, for several K; the MNTE (Eq. 15) after every step goes to OUT/convergence.csv and the
// summary table is noted. Expected shape (DYN §3.1, Remark 2): K = 0 keeps the initial error;
// 0 < K·Δt < 2 converges, near e^{−Kt} in the rotation angle; K·Δt ≥ 2 diverges.
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/experiments/dyn.hpp"

namespace kinetrack::experiments {

struct ConvergenceExperimentOptions {
  io::ModelSpec model{"human66", std::nullopt, false, std::nullopt};
  std::vector<double> gains = {0, 1, 5, 10, 50, 250};  ///< K (1/s), ≥ 0
  double rate = 100.0;                                 ///< step rate (Hz): Δt = 1/rate
  double duration = 5.0;                               ///< simulated time per gain (s)
  std::uint64_t seed = 1;                              ///< seed of the random target pose
  double joint_range = 60.0;  ///< target joints drawn in ±joint_range (deg), within the limits
  double base_radius = 0.5;   ///< target base position drawn in a ball of this radius (m)
  std::string out;            ///< output directory
  /// Where the task Jacobians are evaluated: "midpoint" (the library default, q ⊕ ½Δt·ν_{k−1})
  /// or "previous" (the paper's J(q_{k−1})).
  std::string jacobian = "midpoint";
};

struct ConvergenceExperimentResult {
  std::string model_name;
  std::string csv;  ///< path of the CSV written (OUT/convergence.csv)
  double rate = 100.0;
  long steps = 0;             ///< steps per gain
  std::vector<GainRun> runs;  ///< one per gain: MNTE after every step (rows of convergence.csv)
};

/// Runs every gain and writes OUT/convergence.csv; notes the set-up before the runs. Throws
/// InvalidArgument naming the flag (--gains, --rate, --duration, --jacobian).
ConvergenceExperimentResult runConvergenceExperiment(const ConvergenceExperimentOptions& options,
                                                     const app::Reporter& reporter = {});
/// The summary table per gain and the "wrote" line, as `kinetrack experiment convergence` prints
/// them after the set-up notes.
std::string summaryText(const ConvergenceExperimentResult& result);

}  // namespace kinetrack::experiments
