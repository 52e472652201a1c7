// The labeller on a trial it was not tuned on (issue 40): the Rajagopal running trial from the
// generic model calibrated on its static trial (app::loadLabellingSubject: uniform scale, robust
// static pose, markers placed), at its 100 Hz and resampled at 60 Hz (markers move 5/3 as far
// between frames); a medial/lateral pair, a foot pair or a cluster pair swapped at the start
// (Labeller::start) corrected within a stated number of frames; the label confidences of a noisy
// run; no allocation per frame with the cluster checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/markers/scenarios.hpp"
#include "testing/shared_paths.hpp"
#include "tracking_allocations.hpp"

namespace kinetrack::markers {
namespace KINETRACK_UNITY_ID {

struct RunTrial {
  io::MarkerTrajectories trial;  // model world (Y up), m
  std::shared_ptr<const LabellerModel> model;
};

RunTrial loadRun(const std::string& dir, double rate) {
  app::LabellingSubjectOptions spec;
  spec.model = dir + "/Rajagopal2016_GENERIC.osim";
  spec.static_trial = dir + "/static_run.trc";
  spec.quiet = true;
  RunTrial r;
  r.trial = io::readMarkerTrial(dir + "/motion_capture_run.trc", true);
  if (rate > 0.0) r.trial = resampleTrajectories(r.trial, rate);
  r.model = app::loadLabellingSubject(spec, r.trial.names).model;
  return r;
}

#define KINETRACK_RUN(r, rate)                                                                        \
  KINETRACK_REQUIRE_SHARED(osim_path_, "data/opensim/rajagopal_run_walk/Rajagopal2016_GENERIC.osim"); \
  const RunTrial r = loadRun(osim_path_.substr(0, osim_path_.rfind('/')), rate)

// The target case: 2 mm noise, 5 % dropouts, 3 ghosts a frame (2 within 3 cm of a marker).
ScenarioOptions target(std::uint64_t seed) {
  return {.seed = seed, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2};
}

int markerIndex(const LabellerModel& m, const std::string& name) {
  const std::vector<std::string> names = m.names();
  return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

struct SwapOutcome {
  int first_right = -1;  // first frame with both markers of the pair right (−1: never)
  double accuracy = 0.0;
  long swaps_corrected = 0;
};

// Labels the scenario with its first frame started from the true labels, `a` and `b` exchanged.
SwapOutcome swappedStart(const RunTrial& r, const ScenarioTrial& s, const std::string& a, const std::string& b) {
  Labeller labeller(r.model);
  const int m = r.model->numMarkers(), ia = markerIndex(*r.model, a), ib = markerIndex(*r.model, b);
  long present = 0, right = 0;
  SwapOutcome o;
  std::vector<int> truth_of(static_cast<std::size_t>(m));
  for (int f = 0; f < s.cloud.numFrames(); ++f) {
    const auto pts = s.cloud.frame(f);
    s.truePoints(f, truth_of);
    const double t = s.cloud.times[static_cast<std::size_t>(f)];
    std::vector<int> start = truth_of;
    std::swap(start[static_cast<std::size_t>(ia)], start[static_cast<std::size_t>(ib)]);
    const FrameLabels& L = f == 0 ? labeller.start(pts, t, start) : labeller.label(pts, t);
    o.swaps_corrected += L.swaps_corrected;
    bool pair_right = true;
    for (int i = 0; i < m; ++i) {
      const int want = truth_of[static_cast<std::size_t>(i)];
      const bool ok = L.marker_point[static_cast<std::size_t>(i)] == want;
      if (i == ia || i == ib) pair_right = pair_right && ok;
      if (want < 0) continue;
      ++present;
      right += ok;
    }
    if (pair_right && o.first_right < 0) o.first_right = f;
  }
  o.accuracy = static_cast<double>(right) / static_cast<double>(present);
  return o;
}

// From the generic model and the static trial, clean: every marker right in every frame, one
// initialisation (before issue 40: nothing labelled, the track lost on all 510 frames).
TEST(LabellerRunning, CleanRunFromTheGenericModelIsAllCorrect) {
  for (double rate : {0.0, 60.0}) {
    KINETRACK_RUN(r, rate);
    EXPECT_EQ(r.model->numMarkers(), 42);
    const ScenarioTrial s = makeScenario(r.trial, r.model->names(), {.seed = 1});
    const LabelTrialResult res = labelTrial(r.model, s.cloud);
    const LabellingScore sc = scoreLabelling(s, res);
    EXPECT_EQ(sc.correct, sc.present) << "rate " << rate;
    EXPECT_EQ(res.initialisations(), 1);
    EXPECT_EQ(res.lostFrames(), 0);
  }
}

// The target case at 60 Hz over the experiment's five seeds (`experiment labelling --seeds 5`):
// measured 99.84 – 99.92 %, mean 99.88 %.
TEST(LabellerRunning, SixtyHertzNoiseDropoutsAndGhosts) {
  KINETRACK_RUN(r, 60.0);
  double sum = 0.0;
  for (std::uint64_t seed : {12, 112, 212, 312, 412}) {
    const ScenarioTrial s = makeScenario(r.trial, r.model->names(), target(seed));
    const double a = scoreLabelling(s, labelTrial(r.model, s.cloud)).accuracy();
    EXPECT_GE(a, 0.995) << "seed " << seed;
    sum += a;
  }
  EXPECT_GE(sum / 5.0, 0.997);
}

// A medial/lateral pair (wrist: radius/ulna styloid 7 cm apart; elbow epicondyles, 9 cm), foot
// markers (toe/5th metatarsal, heel/5th metatarsal) and cluster markers (thigh, upper arm)
// labelled exchanged on the first frame (Labeller::start). Labels that fit that badly (over
// init_max_rms: the exchanged epicondyles fit at 70 mm RMS) are checked at the start as an
// initialisation's are; the others are taken and the tracking corrects them. Measured (first frame
// with the pair right; clean / 2 mm + 5 % + 3 ghosts): wrists, elbows, toe/MT5, thigh and upper-arm
// clusters 0–1 / 0–1, every run ≥ 99.8 % right.
TEST(LabellerRunning, SwappedPairsAtTheStartAreCorrected) {
  KINETRACK_RUN(r, 60.0);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"RFAradius", "RFAulna"}, {"LFAradius", "LFAulna"}, {"RLEL", "RMEL"}, {"LLEL", "LMEL"}, {"RTOE", "RMT5"},
      {"LTOE", "LMT5"},         {"RCAL", "RMT5"},         {"RTH1", "RTH2"}, {"LUA1", "LUA3"}};
  const ScenarioTrial clean = makeScenario(r.trial, r.model->names(), {.seed = 3});
  const ScenarioTrial noisy = makeScenario(r.trial, r.model->names(), target(12));
  for (const auto& [a, b] : pairs) {
    const SwapOutcome c = swappedStart(r, clean, a, b), n = swappedStart(r, noisy, a, b);
    std::printf("%s/%s: right from frame %d (clean, %.4f) / %d (noisy, %.4f)\n", a.c_str(), b.c_str(), c.first_right,
                c.accuracy, n.first_right, n.accuracy);
    EXPECT_GE(c.first_right, 0) << a << "/" << b;
    EXPECT_LE(c.first_right, 3) << a << "/" << b;  // 0.05 s
    EXPECT_GE(c.accuracy, 0.999) << a << "/" << b;
    EXPECT_GE(n.first_right, 0) << a << "/" << b;
    EXPECT_LE(n.first_right, 3) << a << "/" << b;
    EXPECT_GE(n.accuracy, 0.995) << a << "/" << b;
  }
}

// Confidence separates wrong labels from right ones (three seeds of the target case at 60 Hz):
// measured 39 of 46 wrong labels below the 0.8 threshold and 227 of 36 581 right ones (0.6 %); the
// frame counts and the option that drops unsure labels.
TEST(LabellerRunning, ConfidenceFlagsWrongLabels) {
  KINETRACK_RUN(r, 60.0);
  long right = 0, wrong = 0, right_low = 0, wrong_low = 0;
  for (std::uint64_t seed : {12, 112, 212}) {
    const ScenarioTrial s = makeScenario(r.trial, r.model->names(), target(seed));
    const LabelTrialResult res = labelTrial(r.model, s.cloud);
    const std::size_t nm = res.names.size();
    int unsure_frames = 0;
    for (int f = 0; f < s.cloud.numFrames(); ++f) {
      const std::size_t off = s.cloud.offsets[static_cast<std::size_t>(f)];
      int unsure = 0;
      for (std::size_t i = 0; i < nm; ++i) {
        const int p = res.point(f, static_cast<int>(i));
        const double c = res.confidence[static_cast<std::size_t>(f) * nm + i];
        if (p < 0) {
          EXPECT_TRUE(std::isnan(c));
          continue;
        }
        ASSERT_TRUE(c >= 0.0 && c <= 1.0);
        const bool low = c < 0.8;
        unsure += low;
        if (s.truth[off + static_cast<std::size_t>(p)] == static_cast<int>(i))
          ++right, right_low += low;
        else
          ++wrong, wrong_low += low;
      }
      EXPECT_EQ(res.frames[static_cast<std::size_t>(f)].unsure, unsure);
      unsure_frames += unsure > 0;
    }
    EXPECT_EQ(res.unsureFrames(), unsure_frames);
    // Dropped: no label left below the threshold, the right ones kept.
    const LabelTrialResult dropped = labelTrial(r.model, s.cloud, {.drop_unsure = true});
    long kept_low = 0;
    for (std::size_t k = 0; k < dropped.marker_point.size(); ++k)
      kept_low += dropped.marker_point[k] >= 0 && dropped.confidence[k] < 0.8;
    EXPECT_EQ(kept_low, 0);
    EXPECT_GE(scoreLabelling(s, dropped).accuracy(), 0.99);
  }
  EXPECT_GE(static_cast<double>(wrong_low), 0.75 * static_cast<double>(wrong)) << wrong_low << " of " << wrong;
  EXPECT_LE(static_cast<double>(right_low), 0.01 * static_cast<double>(right)) << right_low << " of " << right;
}

// The cluster checks, the re-assignment at the solved pose and the confidences allocate nothing.
TEST(LabellerRunning, DoesNotAllocatePerFrameOnceWarm) {
  KINETRACK_RUN(r, 60.0);
  const ScenarioTrial s = makeScenario(r.trial, r.model->names(), target(7));
  Labeller labeller(r.model);
  const testing_support::TrackingAllocations t = testing_support::trackingAllocations(labeller, s);
  EXPECT_EQ(t.tracked, t.frames);
  EXPECT_EQ(t.allocations, 0);
}

// Labeller::start refuses what it cannot use, naming it.
TEST(LabellerRunning, StartRefusesBadLabels) {
  KINETRACK_RUN(r, 60.0);
  const ScenarioTrial s = makeScenario(r.trial, r.model->names(), {.seed = 1});
  Labeller labeller(r.model);
  const auto pts = s.cloud.frame(0);
  std::vector<int> labels(static_cast<std::size_t>(r.model->numMarkers()), -1);
  EXPECT_THROW(labeller.start(pts, 0.0, std::vector<int>{0, 1}), InvalidArgument);  // wrong size
  EXPECT_THROW(labeller.start(pts, 0.0, labels), InvalidArgument);                  // fewer than 3
  labels[0] = labels[1] = 2;
  labels[2] = 3;
  EXPECT_THROW(labeller.start(pts, 0.0, labels), InvalidArgument);  // one point, two markers
  labels[1] = static_cast<int>(pts.size());
  EXPECT_THROW(labeller.start(pts, 0.0, labels), InvalidArgument);  // out of range
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::markers
