#pragma once
// `kinetrack experiment assembly`: Table 1 of the Nakamura seed (SPEC §5), serial chains and a figure
// on a bar, serial vs parallel schedule, measured times and counted operations; OUT/assembly.csv
// and the tables (summaryText).
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct AssemblyExperimentOptions {
  std::string out;                 ///< output directory
  std::string figure = "human48";  ///< the figure on the bar: human48 or human66
  int max_links = 1024;            ///< longest chain (8, 16, … up to this), ≥ 8
  int max_threads = 2;             ///< measure 1 … this many threads (1 to 64)
  int batches = 15;                ///< timed batches per case (the median is reported), ≥ 3
  double batch_ms = 20.0;          ///< length of one batch (ms), > 0
};

/// One measured case (a row of assembly.csv).
struct AssemblyRow {
  std::string kind;  ///< chain or figure
  int links = 0, dof = 0, loops = 0, threads = 1, height = 0;
  std::string schedule;                                ///< serial or parallel
  double time_us = 0.0, aba_us = 0.0;                  ///< median µs per call
  double total = 0.0, critical = 0.0, threaded = 0.0;  ///< counted flops
};

struct AssemblyExperimentResult {
  std::string out, figure_name;
  int figure_dof = 0, max_threads = 2, batches = 15;
  std::vector<int> sizes;  ///< chain lengths measured
  std::vector<AssemblyRow> rows;
};

/// Measures every case and writes options.out/assembly.csv. Throws InvalidArgument naming the flag.
AssemblyExperimentResult runAssemblyExperiment(const AssemblyExperimentOptions& options,
                                               const app::Reporter& reporter = {});
/// assembly.csv: one row per case.
std::string assemblyCsv(const AssemblyExperimentResult& result);
/// The tables `kinetrack experiment assembly` prints and the "wrote" line.
std::string summaryText(const AssemblyExperimentResult& result);

}  // namespace kinetrack::experiments
