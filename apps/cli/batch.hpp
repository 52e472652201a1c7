#pragma once
// `kinetrack batch`: many inputs, each run as one command's job in this process (the library's
// batch, kinetrack/app/batch.hpp), on a thread pool (batch_command.cpp) or across MPI ranks
// (batch_mpi.cpp).
#include <map>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/batch.hpp"

namespace kinetrack::cli {

/// Runs a batch row's command line (`markers ik --markers … --out …`) in this process: the same
/// parser and job as the single command, its output captured into `log`.
int runCommandLine(const std::vector<std::string>& args, std::string& log);

/// Runs the pending jobs over the MPI ranks (batch_mpi.cpp); every rank returns the records of
/// all `pending` jobs on rank 0 (empty on the others). Throws UsageError when kinetrack was
/// built without MPI.
std::map<int, app::BatchRecord> runBatchMpi(const std::vector<app::BatchJob>& jobs, const std::vector<int>& pending,
                                            const app::BatchModels& models, const std::string& outdir, bool progress,
                                            int& rank);

}  // namespace kinetrack::cli
