// The fork–join pool: every worker takes part from the very first run (a pool made for one run,
// as `kinetrack batch` makes it, must not stay serial), every index runs exactly once, and runs
// repeat.
#include "kinetrack/core/worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kinetrack::detail {
namespace KINETRACK_UNITY_ID {

/// Tasks that wait (at most 3 s) until `parties` of them are running at once.
struct Rendezvous {
  int parties = 2;
  std::mutex mutex;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> met{0};
  std::set<std::thread::id> threads;

  static void task(void* context, int /*i*/) {
    auto& r = *static_cast<Rendezvous*>(context);
    std::unique_lock lock(r.mutex);
    r.threads.insert(std::this_thread::get_id());
    ++r.arrived;
    r.cv.notify_all();
    if (r.cv.wait_for(lock, std::chrono::seconds(3), [&] { return r.arrived >= r.parties; })) ++r.met;
  }
};

TEST(WorkerPool, EveryWorkerTakesPartInTheFirstRun) {
  for (int trial = 0; trial < 20; ++trial) {  // the race is at thread start: try it many times
    WorkerPool pool(2, 0.0);
    Rendezvous r;
    pool.run(2, &Rendezvous::task, &r);  // two tasks that only finish when both run at once
    EXPECT_EQ(r.met.load(), 2) << "trial " << trial << ": the second thread never joined the first run";
    EXPECT_EQ(r.threads.size(), 2U) << "trial " << trial;
  }
}

TEST(WorkerPool, EveryIndexRunsExactlyOnceOverRepeatedRuns) {
  for (const double spin : {0.0, 50.0}) {
    WorkerPool pool(3, spin);
    for (int run = 0; run < 200; ++run) {
      std::vector<std::atomic<int>> hits(97);
      pool.run(
          97, [](void* c, int i) { ++(*static_cast<std::vector<std::atomic<int>>*>(c))[static_cast<std::size_t>(i)]; },
          &hits);
      for (const auto& h : hits) ASSERT_EQ(h.load(), 1) << "run " << run << " spin " << spin;
    }
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::detail
