// `kinetrack batch` over every shared BVH clip on human66 (issue 20): frames/s on 1 and 2
// threads, the whole CLI run (reading, model setup, tracking, writing) timed in real time.
// Run: build/bench/bench_batch --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "testing/shared_paths.hpp"

namespace {

namespace fs = std::filesystem;

/// The manifest of every shared clip (written once) and the frames of one batch run.
struct Corpus {
  fs::path dir = fs::temp_directory_path() / "kinetrack_bench_batch";
  std::string manifest;
  double frames = 0.0;

  Corpus() {
    fs::create_directories(dir);
    manifest = (dir / "manifest.csv").string();
    std::ofstream out(manifest);
    out << "input,model\n";
    for (const std::string& clip : kinetrack::testing::sharedBvhClips())
      out << kinetrack::testing::sharedFile("data/" + clip) << ",human66\n";
  }
  ~Corpus() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  bool run(int threads) {
    const std::string cmd = std::string(KINETRACK_CLI_PATH) + " batch --quiet --manifest " + manifest + " --out " +
                            (dir / "out").string() + " --threads " + std::to_string(threads) + " > /dev/null";
    return std::system(cmd.c_str()) == 0;
  }

  /// Sum of the frames column of report.csv (the 7th field).
  void countFrames() {
    std::ifstream in(dir / "out" / "report.csv");
    std::string line;
    std::getline(in, line);
    frames = 0.0;
    while (std::getline(in, line)) {
      std::stringstream ss(line);
      std::string cell;
      for (int i = 0; i < 7 && std::getline(ss, cell, ','); ++i) {
      }
      frames += std::stod(cell);
    }
  }
};

Corpus& corpus() {
  static Corpus c;
  return c;
}

void BM_BatchAllClipsHuman66(benchmark::State& state) {
  Corpus& c = corpus();
  if (kinetrack::testing::sharedBvhClips().empty()) {
    state.SkipWithError("../shared BVH clips not found");
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  if (!c.run(threads)) {
    state.SkipWithError("kinetrack batch failed");
    return;
  }
  c.countFrames();
  for (auto _ : state)
    if (!c.run(threads)) state.SkipWithError("kinetrack batch failed");
  state.counters["frames"] = c.frames;
  state.counters["frames_per_s"] = benchmark::Counter(c.frames, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BatchAllClipsHuman66)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
