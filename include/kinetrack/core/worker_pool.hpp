#pragma once
// A persistent fork–join pool (pair-wise IK, assembly–disassembly dynamics): run(count, task)
// executes task(context, i) for i in [0, count) on the calling thread and the pool's workers and
// returns when all are done. Tasks are claimed through one atomic counter; nothing is allocated
// per run. The calling thread always drains the counter itself, so a run never waits for a
// worker to wake up: a late worker merely finds no task left.
//
// Idle workers poll for the next run for `spin_microseconds`, then block on a condition
// variable (a run wakes them only when some are blocked).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace kinetrack::detail {

class WorkerPool {
 public:
  using Task = void (*)(void* context, int index);

  /// threads: total threads including the caller (≥ 1; threads − 1 workers are started).
  WorkerPool(int threads, double spin_microseconds);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  [[nodiscard]] int threads() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs task(context, i) for every i in [0, count); returns when every call has returned.
  /// Tasks must not throw. Not reentrant: one run at a time.
  void run(int count, Task task, void* context);

 private:
  static constexpr int kClosed = 1 << 30;  // next_ between runs: every claim fails

  void workerLoop(std::uint64_t seen);
  void drain();

  std::vector<std::thread> workers_;
  double spin_microseconds_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> next_{kClosed};
  std::atomic<int> count_{0};
  std::atomic<int> done_{0};
  // Written before next_ is opened (release) and read only after a successful claim (acquire).
  Task task_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace kinetrack::detail
