#include "kinetrack/core/worker_pool.hpp"

#include <chrono>

namespace kinetrack::detail {

namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

WorkerPool::WorkerPool(int threads, double spin_microseconds) : spin_microseconds_(spin_microseconds) {
  const int workers = threads > 1 ? threads - 1 : 0;
  workers_.reserve(static_cast<std::size_t>(workers));
  // Each worker starts from the generation before any run: a thread that starts after the first
  // run() was opened must still see that run as new (reading the generation on the thread itself
  // made such a late worker skip the first run: a pool used for one run stayed serial).
  const std::uint64_t start = generation_.load(std::memory_order_acquire);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this, start] { workerLoop(start); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void WorkerPool::drain() {
  for (;;) {
    // acq_rel: a successful claim synchronises with the run's opening store of next_ (task_,
    // context_ and the task data are visible).
    const int i = next_.fetch_add(1, std::memory_order_acq_rel);
    if (i >= count_.load(std::memory_order_relaxed)) return;
    task_(context_, i);
    done_.fetch_add(1, std::memory_order_release);
  }
}

void WorkerPool::run(int count, Task task, void* context) {
  if (count <= 0) return;
  if (workers_.empty()) {
    for (int i = 0; i < count; ++i) task(context, i);
    return;
  }
  task_ = task;
  context_ = context;
  count_.store(count, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  next_.store(0, std::memory_order_release);  // open: claims from here on see this run
  generation_.fetch_add(1, std::memory_order_seq_cst);
  // Dekker pair with workerLoop (seq_cst): a worker that missed the new generation has
  // registered as a sleeper, or it will see the generation before it blocks.
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_.notify_all();
  }
  drain();
  for (int spins = 0; done_.load(std::memory_order_acquire) < count; ++spins) {
    if (spins < 256)
      cpuRelax();
    else
      std::this_thread::yield();  // a worker was preempted mid-task: let it run
  }
  next_.store(kClosed, std::memory_order_relaxed);  // late workers of this run claim nothing
}

void WorkerPool::workerLoop(std::uint64_t seen) {
  using Clock = std::chrono::steady_clock;
  const auto spin =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(spin_microseconds_));
  for (;;) {
    std::uint64_t g = generation_.load(std::memory_order_acquire);
    if (g == seen && spin.count() > 0) {
      const Clock::time_point until = Clock::now() + spin;
      do {
        for (int k = 0; k < 64 && g == seen; ++k) {
          cpuRelax();
          g = generation_.load(std::memory_order_acquire);
        }
      } while (g == seen && !stop_.load(std::memory_order_relaxed) && Clock::now() < until);
    }
    if (g == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] {
        g = generation_.load(std::memory_order_seq_cst);
        return g != seen || stop_.load();
      });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load()) return;
    seen = g;
    drain();
  }
}

}  // namespace kinetrack::detail
