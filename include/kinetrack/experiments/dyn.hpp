#pragma once
// The papers' experiments as library calls (the CLI's `kinetrack experiment …` only parses,
// prints and plots): DYN Fig. 8 (convergence from the zero configuration to a static pose for
// several gains K) and DYN Fig. 7 (DYN against the per-frame baselines on real captures).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::experiments {

using track::Capture;
using track::Method;
using track::TrackerOptions;
using track::TrackSummary;

// --- Fig. 8: convergence -------------------------------------------------------------------------

struct ConvergenceOptions {
  std::vector<double> gains = {0, 1, 5, 10, 50, 250};  ///< K (1/s), ≥ 0, one run each
  double rate = 100.0;                                 ///< step rate (Hz): Δt = 1/rate
  double duration = 5.0;      ///< simulated time per gain (s): round(duration·rate) steps (1 … 1e7)
  std::uint64_t seed = 1;     ///< seed of the random target pose
  double joint_range = 60.0;  ///< target joints drawn in ±joint_range (deg), within the limits
  double base_radius = 0.5;   ///< target base position drawn in a ball of this radius (m)
  /// Task Jacobians at the mid-step configuration (library default) or, false, at q_{k−1} (paper).
  bool midpoint_jacobian = true;
  /// Throws InvalidArgument naming the field for a value out of range.
  void validate() const;
  [[nodiscard]] long steps() const;  ///< round(duration·rate)
};

/// The target of the experiment: a configuration and the frames that carry targets.
struct ConvergenceTarget {
  Configuration q;
  double yaw = 0.0;                      ///< base yaw of q (rad)
  std::vector<std::string> orientation;  ///< frames with an orientation target
  std::optional<std::string> position;   ///< frame with a position target (floating base)
  std::vector<Matrix3d> R;               ///< world orientations at q, one per orientation frame
  Vector3d p = Vector3d::Zero();         ///< world position of the position frame at q (m)
};

/// Random static pose: joints uniform in [−range, range] ∩ [s_min, s_max] (the whole limit range
/// when the two do not meet), base uniform in a ball of `base_radius` with a uniform yaw.
/// Orientation targets on the 23 human segments when the model has them, else on every link; a
/// position target on the root link of a floating base. Deterministic in `seed`.
ConvergenceTarget convergenceTarget(const Model& model, const ConvergenceOptions& options);

/// One gain's run: MNTE at t_k = kΔt, k = 0..steps, and what the solver reported.
struct GainRun {
  double gain = 0.0;
  std::vector<double> mnte;    ///< steps + 1 values
  double last_residual = 0.0;  ///< ‖r‖ (rad and m mixed) before the last step
  bool unstable_gain = false;  ///< StepResult::unstable_gain at some step (K·Δt ≥ 2)
  bool diverging = false;      ///< StepResult::diverging at some step
  int qp_not_optimal = 0;      ///< steps whose QP status was not Optimal
  qp::Status worst_status = qp::Status::Optimal;
};

struct ConvergenceResult {
  ConvergenceTarget target;
  std::vector<GainRun> runs;  ///< one per gain, in the order given
};

/// DYN from the zero configuration to convergenceTarget() with the same gain K on every target
/// (GainMode::Continuous), for each gain. Throws InvalidArgument for invalid options.
ConvergenceResult runConvergence(const Model& model, const ConvergenceOptions& options);
/// The run of one gain (ConvergenceResult::runs[i]).
GainRun runConvergenceGain(const Model& model, const ConvergenceTarget& target, double gain,
                           const ConvergenceOptions& options);

/// CSV `time,gain,mnte`, one row per recorded step per gain; shortest round-trip numbers.
std::string convergenceCsv(const std::vector<GainRun>& runs, double rate);

// --- Fig. 7: DYN against per-frame optimisation on real captures -------------------------------

/// A scenario of the comparison: a capture under ../shared/data.
struct CompareScenario {
  std::string name;
  std::string file;         ///< relative to CompareOptions::data
  bool hold_first = false;  ///< frame 0 held as a static target (T-pose)
};
/// T-pose (CMU 01_01 frame 0 held), walking (Bandai walk), running (Bandai run).
const std::vector<CompareScenario>& compareScenarios();

/// The capture's first frame repeated for `seconds` at its frame rate (a static target; at least
/// two frames).
Capture holdFirstFrame(const Capture& capture, double seconds);

struct CompareOptions {
  std::string data = "../shared/data";                                   ///< the shared data folder
  std::string icub = "../shared/models/icub/iCubGazeboV2_5_model.urdf";  ///< left out when missing
  std::vector<Method> methods = {Method::Dynamical, Method::WholeBody, Method::WholeBodyIpopt, Method::Pairwise};
  int threads = 0;             ///< pair-wise threads (0 = one per hardware thread)
  double tpose_seconds = 4.0;  ///< length of the held T-pose (s)
  double transient = 2.0;      ///< s excluded from the statistics
};

/// Per-frame figures of one (model, scenario, method) after the transient (gaps excluded).
struct CompareSeries {
  std::string model, scenario;
  Method method = Method::Dynamical;
  std::vector<double> log_mnte, log_rmse, time_us;  ///< log10 (floored at 1e-16), µs per frame
};

struct CompareResult {
  std::vector<CompareSeries> series;  ///< scenario-major, then model, then method
  std::vector<std::string> warnings;  ///< e.g. the iCub URDF missing
};

/// Called before each run with (index, total, model, scenario, method) for progress reports.
using CompareProgress = std::function<void(int, int, const std::string&, const std::string&, Method)>;

/// human66, human48 and the iCub (icubForRetargeting; DYN with its velocity limits) × the
/// scenarios × the methods, each capture calibrated on its first frame. Throws ParseError for a
/// missing capture, InvalidArgument for no method.
CompareResult runCompare(const CompareOptions& options, const CompareProgress& progress = {});
/// CSV `model,scenario,method,frame,log10_mnte,log10_rmse,time_us`.
std::string compareCsv(const CompareResult& result);
/// The table `kinetrack experiment compare` prints: per model, scenario and method the median
/// (IQR) of log10 MNTE, log10 RMSE and the time per frame, after `transient` s.
std::string compareTable(const CompareResult& result, double transient);

/// `kinetrack experiment compare`: runCompare and OUT/compare.csv.
struct CompareExperimentResult {
  CompareResult compare;
  double transient = 2.0;  ///< s excluded from the statistics (CompareOptions::transient)
  std::string csv;         ///< path of the CSV written
};
/// Creates `out`, runs runCompare(options, progress) and writes out/compare.csv. Throws
/// InvalidArgument for negative threads (--threads) or an empty `out` (--out), and as runCompare.
CompareExperimentResult runCompareExperiment(const CompareOptions& options, const std::string& out,
                                             const CompareProgress& progress = {});
/// The table (compareTable) and the "wrote" line, as `kinetrack experiment compare` prints them.
std::string summaryText(const CompareExperimentResult& result);

}  // namespace kinetrack::experiments
