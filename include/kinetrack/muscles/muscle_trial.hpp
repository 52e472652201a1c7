#pragma once
// A whole motion through MuscleForceSolver, as OpenSim's static-optimisation analysis does it:
// coordinates from a .mot (degrees converted), a zero-lag low-pass (lowPassMotion), speeds and
// accelerations by finite differences (differentiate), inverse dynamics (RNEA, the model's
// gravity), then the per-frame muscle forces; frames outside [time_start, time_end] are dropped
// after filtering.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/muscles/muscle_forces.hpp"

namespace kinetrack::muscles {

/// True when a .mot/.sto holds angles in degrees: inDegrees=yes, or a legacy file with neither
/// inDegrees= nor version= (OpenSim's Storage reads those as degrees).
bool motInDegrees(const std::string& text);

struct MuscleTrialOptions {
  MuscleForceOptions forces;
  double lowpass_hz = -1.0;
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  bool in_degrees = false;  ///< rotational coordinates of the motion are in degrees
  /// External loads (OpenSim ExternalLoads, e.g. ground reactions). When set, the coordinates are
  /// prepared and τ computed by OpenSim's ID pipeline (biomech/opensim_id.hpp: padding, 3rd-order
  /// zero-lag Butterworth, quintic splines, RNEA with the loads); must outlive the call.
  const io::ExternalLoads* loads = nullptr;
  /// Threads the frames are split across (contiguous blocks, one solver each); 0 = one per
  /// hardware thread. Every frame is solved from the same start (forces.warm_start is set to
  /// false), so the result is byte-identical for any number of threads.
  int threads = 0;
};

struct MuscleTrialResult {
  std::vector<std::string> names;        ///< muscles then actuators
  std::vector<std::string> coordinates;  ///< residual columns (constrained coordinates)
  std::vector<double> times;
  MatrixXd control, force;  ///< (frames × names)
  MatrixXd residual;        ///< (frames × coordinates), τ − produced
  std::vector<std::uint8_t> feasible;
  std::vector<std::string> notices;  ///< ignored motion columns, coordinates at their default
  [[nodiscard]] int infeasibleFrames() const;
};

/// Runs the motion. Throws ParseError naming `motion_source` for a motion with no model
/// coordinate, fewer than 3 frames or a time range that does not overlap the motion.
/// `progress(done, total)` after frames are done, from the calling thread only. Throws
/// InvalidArgument for threads < 0.
MuscleTrialResult solveMuscleTrial(std::shared_ptr<const MusclePaths> paths, const io::MotTable& motion,
                                   const std::string& motion_source, const MuscleTrialOptions& options,
                                   const std::function<void(int, int)>& progress = {});

/// The result as OpenSim writes it: `<name>_activation.sto`-style tables (control or force).
io::MotTable toTable(const MuscleTrialResult& r, bool forces, const std::string& title);
io::MotTable residualTable(const MuscleTrialResult& r);

}  // namespace kinetrack::muscles
