// `kinetrack batch --mpi` (kinetrack/app/batch_mpi.hpp): the pending inputs over the MPI ranks,
// largest first, handed out one at a time. Rank 0 runs inputs too; a dispatcher thread on rank 0
// answers the other ranks' requests from the same counter. Each rank writes the results it
// computed; the records are gathered on rank 0 for the report.
#include "kinetrack/app/batch_mpi.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kinetrack/core/errors.hpp"

#ifdef KINETRACK_HAVE_MPI
#include <mpi.h>

#include <chrono>
#include <thread>
#endif

namespace kinetrack::app {

#ifdef KINETRACK_HAVE_MPI
namespace {

constexpr int kRequestTag = 1, kAssignTag = 2;

// Ipopt's sequential MUMPS (libdmumps_seq) exports stubs named MPI_Init, MPI_Comm_rank,
// MPI_Finalize and MPI_Wtime, and the dynamic linker may bind ours to them (every rank then
// believes it is rank 0). The PMPI_ profiling names exist only in the real MPI library.
int commRank() {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

class MpiSession {
 public:
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) {
      PMPI_Finalize();
      throw InvalidArgument("--mpi: the MPI library does not provide MPI_THREAD_SERIALIZED");
    }
  }
  ~MpiSession() { PMPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

/// Rank 0's dispatcher: answers each request with the next pending position, or −1 once none is
/// left, until every other rank got its −1. Polls (1 ms) so that it does not spin a core.
void dispatch(int ranks, int count, std::atomic<int>& next) {
  int active = ranks - 1;
  while (active > 0) {
    int dummy = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, kRequestTag, MPI_COMM_WORLD, &request);
    MPI_Status status;
    int arrived = 0;
    for (;;) {
      MPI_Test(&request, &arrived, &status);
      if (arrived != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const int position = next.fetch_add(1);
    int assigned = position < count ? position : -1;
    if (assigned < 0) --active;
    MPI_Send(&assigned, 1, MPI_INT, status.MPI_SOURCE, kAssignTag, MPI_COMM_WORLD);
  }
}

}  // namespace

bool haveMpi() { return true; }

std::map<int, BatchRecord> runBatchMpi(const std::vector<BatchJob>& jobs, const std::vector<int>& pending,
                                       const BatchModels& models, const std::string& outdir,
                                       const BatchCommandLine& command_line, const Reporter& reporter, bool& primary) {
  const MpiSession session;
  int ranks = 1;
  const int rank = commRank();
  primary = rank == 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Every rank decided what is pending before any rank writes a result.
  MPI_Barrier(MPI_COMM_WORLD);
  const int count = static_cast<int>(pending.size());
  if (rank == 0)
    reporter.say(fmt::format("batch: {} inputs ({} to do, {} already done) on {} MPI ranks\n", jobs.size(),
                             pending.size(), jobs.size() - pending.size(), ranks));

  std::string mine;  // this rank's records, one JSON text per line
  std::atomic<std::int64_t> frames{0};
  const auto runPosition = [&](int position) {
    const int i = pending[static_cast<std::size_t>(position)];
    const BatchRecord r = runBatchJob(jobs[static_cast<std::size_t>(i)], models, outdir, &frames, command_line);
    nlohmann::json line = nlohmann::json::parse(recordToJson(r));
    line["index"] = i;
    mine += line.dump() + "\n";
  };
  if (rank == 0) {
    std::atomic<int> next{0};
    std::thread dispatcher(dispatch, ranks, count, std::ref(next));
    for (int position = next.fetch_add(1); position < count; position = next.fetch_add(1)) {
      runPosition(position);
      reporter.report(position + 1, count, fmt::format("rank 0: {} frames", frames.load()));
    }
    dispatcher.join();
  } else {
    for (;;) {
      int request = 0, position = -1;
      MPI_Send(&request, 1, MPI_INT, 0, kRequestTag, MPI_COMM_WORLD);
      MPI_Recv(&position, 1, MPI_INT, 0, kAssignTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (position < 0) break;
      runPosition(position);
    }
  }

  // Gather every rank's records on rank 0.
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < ranks; ++r)
      offsets[static_cast<std::size_t>(r)] = total, total += lengths[static_cast<std::size_t>(r)];
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::map<int, BatchRecord> records;
  if (rank != 0) return records;
  std::size_t begin = 0;
  while (begin < all.size()) {
    const std::size_t end = all.find('\n', begin);
    const std::string line = all.substr(begin, end - begin);
    begin = end == std::string::npos ? all.size() : end + 1;
    if (line.empty()) continue;
    const int index = nlohmann::json::parse(line).at("index").get<int>();
    records[index] = recordFromJson(line, "MPI rank record");
  }
  return records;
}

#else

bool haveMpi() { return false; }

std::map<int, BatchRecord> runBatchMpi(const std::vector<BatchJob>&, const std::vector<int>&, const BatchModels&,
                                       const std::string&, const BatchCommandLine&, const Reporter&, bool&) {
  throw InvalidArgument("--mpi: this kinetrack was built without MPI (configure with -DKINETRACK_MPI=ON and OpenMPI)");
}

#endif

}  // namespace kinetrack::app
