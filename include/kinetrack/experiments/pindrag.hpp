#pragma once
// `kinetrack experiment pindrag`: the scripted drags of issue 17 with PinDragIk (Nakamura Eq. 6–12);
// writes OUT/pindrag.csv (one row per update) and a table per phase (summaryText).
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct PinDragExperimentOptions {
  std::string model = "human66";                                         ///< human66 or icub
  std::string urdf = "../shared/models/icub/iCubGazeboV2_5_model.urdf";  ///< the iCub's URDF (model icub)
  std::string out;                                                       ///< output directory
};

/// One update of the script (a row of pindrag.csv).
struct PinDragStep {
  int step = 0;
  double time = 0.0;                                                               ///< s
  std::string phase;                                                               ///< circle, switch, beyond
  double pin_position_error = 0.0, pin_orientation_error = 0.0, drag_error = 0.0;  ///< m, rad, m
  double max_speed_ratio = 0.0, sr_damping = 0.0, velocity_scale = 0.0, limit_violation = 0.0;
};

/// The worst of one phase (a row of the printed table).
struct PinDragPhase {
  std::string name;
  double pin_position = 0.0, pin_orientation = 0.0, speed_ratio = 0.0, limit_violation = 0.0, drag_error = 0.0;
  double sr_damping = 0.0;
  bool finite = true;
};

struct PinDragExperimentResult {
  std::string model_name, out;
  int dof = 0;
  double dt = 0.01;  ///< s
  std::vector<PinDragStep> steps;
  std::vector<PinDragPhase> phases;  ///< circle, switch, beyond
};

/// Runs the three phases and writes options.out/pindrag.csv (when out is set). Throws as
/// io::loadUrdf for the iCub.
PinDragExperimentResult runPinDragExperiment(const PinDragExperimentOptions& options,
                                             const app::Reporter& reporter = {});
/// pindrag.csv: one row per update.
std::string pinDragCsv(const PinDragExperimentResult& result);
/// The table per phase and the "wrote" line, as `kinetrack experiment pindrag` prints them.
std::string summaryText(const PinDragExperimentResult& result);

}  // namespace kinetrack::experiments
