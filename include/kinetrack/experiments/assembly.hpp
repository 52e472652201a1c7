#pragma once
// `kinetrack experiment assembly`: Table 1 of the Nakamura seed (SPEC §5), serial chains and a figure
// on a bar, serial vs parallel schedule, measured times and counted operations; OUT/assembly.csv.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct AssemblyExperimentOptions {
  std::string out, figure = "human48";
  int max_links = 1024, max_threads = 2, batches = 15;
  double batch_ms = 20.0;
};

/// Measures every case, writes options.out/assembly.csv and notes the tables.
void runAssemblyExperiment(const AssemblyExperimentOptions& options, const app::Reporter& reporter = {});

}  // namespace kinetrack::experiments
