#pragma once
// Allocations of markers::Labeller::label over a scenario once warm (the per-frame no-allocation
// rule), shared by the labeller tests.
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/scenarios.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::markers::testing_support {

struct TrackingAllocations {
  long allocations = 0;
  int tracked = 0;  ///< frames after the warm ones in the Tracking state
  int frames = 0;   ///< frames after the warm ones
};

/// Labels the first `warm` frames, then counts the allocations of every later label() call.
inline TrackingAllocations trackingAllocations(Labeller& labeller, const ScenarioTrial& s, int warm = 10) {
  for (int f = 0; f < warm; ++f) (void)labeller.label(s.cloud.frame(f), s.cloud.times[static_cast<std::size_t>(f)]);
  TrackingAllocations t;
  for (int f = warm; f < s.cloud.numFrames(); ++f) {
    ::kinetrack::testing::AllocationCounter counter;
    const FrameLabels& L = labeller.label(s.cloud.frame(f), s.cloud.times[static_cast<std::size_t>(f)]);
    t.allocations += counter.count();
    t.tracked += L.state == TrackState::Tracking;
    ++t.frames;
  }
  return t;
}

}  // namespace kinetrack::markers::testing_support
