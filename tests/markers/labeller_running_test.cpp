// The labeller on a trial it was not tuned on (issue 40): the Rajagopal running trial from the
// generic model calibrated on its static trial (app::loadLabellingSubject: uniform scale + marker
// placement), at its 100 Hz and resampled at 60 Hz; a medial/lateral pair or a foot marker pair
// swapped at the start (Labeller::start) corrected within a stated number of frames; the label
// confidences of a noisy run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/markers/scenarios.hpp"
#include "testing/shared_paths.hpp"

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

int markerIndex(const LabellerModel& m, const std::string& name) {
  const std::vector<std::string> names = m.names();
  return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

// Labels the scenario with the first frame started from its true labels, `a` and `b` exchanged;
// returns the first frame from which both are right to the end (−1: never), and the accuracy.
std::pair<int, double> swappedStart(const RunTrial& r, const ScenarioTrial& s, const std::string& a,
                                    const std::string& b) {
  Labeller labeller(r.model);
  const int m = r.model->numMarkers(), ia = markerIndex(*r.model, a), ib = markerIndex(*r.model, b);
  long present = 0, right = 0;
  int fixed_from = -1;
  std::vector<int> truth_of(static_cast<std::size_t>(m));
  for (int f = 0; f < s.cloud.numFrames(); ++f) {
    const std::size_t off = s.cloud.offsets[static_cast<std::size_t>(f)];
    const auto pts = s.cloud.frame(f);
    std::fill(truth_of.begin(), truth_of.end(), -1);
    for (std::size_t p = 0; p < pts.size(); ++p)
      if (s.truth[off + p] >= 0) truth_of[static_cast<std::size_t>(s.truth[off + p])] = static_cast<int>(p);
    const double t = s.cloud.times[static_cast<std::size_t>(f)];
    std::vector<int> start = truth_of;
    std::swap(start[static_cast<std::size_t>(ia)], start[static_cast<std::size_t>(ib)]);
    const FrameLabels& L = f == 0 ? labeller.start(pts, t, start) : labeller.label(pts, t);
    bool pair_ok = true;
    for (int i = 0; i < m; ++i) {
      const int want = truth_of[static_cast<std::size_t>(i)];
      if (want < 0) continue;
      ++present;
      right += L.marker_point[static_cast<std::size_t>(i)] == want;
      if ((i == ia || i == ib) && L.marker_point[static_cast<std::size_t>(i)] != want) pair_ok = false;
    }
    if (!pair_ok)
      fixed_from = -1;
    else if (fixed_from < 0)
      fixed_from = f;
  }
  return {fixed_from, static_cast<double>(right) / static_cast<double>(present)};
}

TEST(LabellerRunning, SwappedPairsAtTheStartAreCorrected) {
  KINETRACK_RUN(r, 60.0);
  for (const ScenarioOptions& o :
       {ScenarioOptions{.seed = 3},
        ScenarioOptions{
            .seed = 12, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2}}) {
    const ScenarioTrial s = makeScenario(r.trial, r.model->names(), o);
    for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"RFAradius", "RFAulna"},
                                                                               {"LFAradius", "LFAulna"},
                                                                               {"RLEL", "RMEL"},
                                                                               {"LLEL", "LMEL"},
                                                                               {"RTOE", "RMT5"},
                                                                               {"LTOE", "LMT5"},
                                                                               {"RCAL", "RMT5"},
                                                                               {"RTH1", "RTH2"},
                                                                               {"LUA1", "LUA3"}}) {
      const auto [from, accuracy] = swappedStart(r, s, a, b);
      std::printf("%s/%s: right from frame %d, accuracy %.4f\n", a.c_str(), b.c_str(), from, accuracy);
    }
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::markers
