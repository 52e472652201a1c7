#pragma once
// `kinetrack experiment pindrag`: the scripted drags of issue 17 with PinDragIk (Nakamura Eq. 6–12);
// writes OUT/pindrag.csv (one row per update) and notes a table per phase.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct PinDragExperimentOptions {
  std::string model = "human66";
  std::string urdf = "../shared/models/icub/iCubGazeboV2_5_model.urdf";
  std::string out;
};

/// Runs the three phases and writes options.out/pindrag.csv; the table per phase is noted.
void runPinDragExperiment(const PinDragExperimentOptions& options, const app::Reporter& reporter = {});

}  // namespace kinetrack::experiments
