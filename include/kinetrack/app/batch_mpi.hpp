#pragma once
// `kinetrack batch --mpi`: the batch's pending inputs over the ranks of an MPI job
// (`mpirun -np N kinetrack batch --mpi …`), largest first, handed out one at a time; rank 0 runs
// inputs too and gathers every rank's records for the report. Its own library target
// (kinetrack::app_mpi), so that only what asks for MPI links it (the CLI; not the Python module).
#include <map>
#include <string>
#include <vector>

#include "kinetrack/app/batch.hpp"

namespace kinetrack::app {

/// True when this kinetrack was built with MPI (KINETRACK_MPI).
bool haveMpi();

/// A BatchDistributor over MPI_COMM_WORLD (initialises and finalises MPI). Rank 0 notes
/// "batch: N inputs (…) on R MPI ranks" and reports progress. Throws InvalidArgument when built
/// without MPI or when the MPI library lacks MPI_THREAD_SERIALIZED.
std::map<int, BatchRecord> runBatchMpi(const std::vector<BatchJob>& jobs, const std::vector<int>& pending,
                                       const BatchModels& models, const std::string& outdir,
                                       const BatchCommandLine& command_line, const Reporter& reporter, bool& primary);

}  // namespace kinetrack::app
