// Whole retargeting runs onto the Unitree G1 (issue 38), one thread: the Bandai walk (273 frames
// at 30 Hz, ../shared/data/bvh) prepared once as `kinetrack retarget` prepares it
// (app::prepareRetarget: the G1's built-in map, sole frames, the plan standing on the ground),
// then per iteration the whole clip tracked (track::runTracking: the per-frame targets, the
// held soles, DYN's sub-steps, the collision rows; the tracker's set-up included, no I/O, no
// quality report):
//   BM_Retarget/g1_walk/contacts_collisions  the default: held soles, ground and self-collision
//                                            rows of the URDF's 37 collision proxies
//   BM_Retarget/g1_walk/contacts             held soles, no collision rows (--no-collisions)
//   BM_Retarget/g1_walk/plain                neither (the peer: orientation and root targets)
// items_per_second = capture frames per second. Counters: steps (DYN steps per frame).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

enum class Mode { Plain, Contacts, ContactsCollisions };

const kt::app::RetargetJob* job(Mode mode) {
  static const auto jobs = [] {
    std::vector<std::unique_ptr<kt::app::RetargetJob>> out(3);
    const std::string urdf = kt::testing::sharedFile("models/unitree/g1/g1_29dof.urdf");
    const std::string bvh = kt::testing::sharedFile("data/bvh/bandai/dataset-2_walk_normal_001.bvh");
    if (urdf.empty() || bvh.empty()) return out;
    for (int m = 0; m < 3; ++m) {
      kt::app::RetargetOptions o;
      o.robot = urdf;
      o.input = bvh;
      o.contacts = m != static_cast<int>(Mode::Plain);
      o.collisions = m == static_cast<int>(Mode::ContactsCollisions);
      out[static_cast<std::size_t>(m)] = std::make_unique<kt::app::RetargetJob>(kt::app::prepareRetarget(o));
    }
    return out;
  }();
  return jobs[static_cast<std::size_t>(mode)].get();
}

void runRetarget(benchmark::State& state, Mode mode) {
  const kt::app::RetargetJob* j = job(mode);
  if (j == nullptr) {
    state.SkipWithError("../shared/models/unitree or ../shared/data/bvh not found");
    return;
  }
  const int frames = j->capture->clip.numFrames();
  double steps = 0.0;
  long runs = 0;
  for (auto _ : state) {
    const kt::track::TrackRecord record = kt::track::runTracking(*j->model, *j->capture, j->plan, j->tracker, {});
    benchmark::DoNotOptimize(record.mnte.data());
    double s = 0.0;
    for (const int n : record.substeps) s += n;
    steps += s / frames;
    ++runs;
  }
  state.SetItemsProcessed(state.iterations() * frames);
  state.counters["steps"] = runs > 0 ? steps / static_cast<double>(runs) : 0.0;
}

}  // namespace

BENCHMARK_CAPTURE(runRetarget, contacts_collisions, Mode::ContactsCollisions)
    ->Name("BM_Retarget/g1_walk/contacts_collisions")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(runRetarget, contacts, Mode::Contacts)
    ->Name("BM_Retarget/g1_walk/contacts")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(runRetarget, plain, Mode::Plain)->Name("BM_Retarget/g1_walk/plain")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
