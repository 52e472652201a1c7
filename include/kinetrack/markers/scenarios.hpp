#pragma once
// Test scenarios for the labeller from a real labelled trial (issue 16's experiment): strip the
// labels, shuffle every frame, then add noise, dropouts, ghosts, planted label swaps or a full
// occlusion, remembering which point is which marker; and the score of a labelling against that
// truth. Seeded: the same options give the same points.
#include <cstdint>
#include <limits>
#include <vector>

#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/markers/labelling_trial.hpp"

namespace kinetrack::markers {

struct ScenarioOptions {
  std::uint64_t seed = 1;
  bool shuffle = true;       ///< random point order every frame
  double noise_sigma = 0.0;  ///< Gaussian noise per coordinate (m)
  /// Fraction of marker-frames dropped, in runs of dropout_min … dropout_max seconds.
  double dropout_fraction = 0.0;
  double dropout_min = 0.05, dropout_max = 1.0;
  int ghosts_uniform = 0;  ///< ghost points per frame, uniform in the trial's bounding box grown by 0.5 m
  int ghosts_near = 0;     ///< ghost points per frame within ghost_near_radius of a random real marker
  double ghost_near_radius = 0.03;
  /// Label swaps planted in a labelled input: pairs of nearest markers exchange labels over
  /// swap_duration s. Labels are stripped, so the points are unchanged; the truth follows the
  /// points, and the score counts the swapped marker-frames labelled right.
  int swaps = 0;
  double swap_duration = 0.5;
  /// Every marker hidden from occlusion_start for occlusion_duration s (NaN: none).
  double occlusion_start = std::numeric_limits<double>::quiet_NaN();
  double occlusion_duration = 0.0;
};

struct ScenarioTrial {
  io::PointCloud cloud;  ///< the unlabelled points (model world, m)
  /// Per point of cloud.points: the marker (index into the names given to makeScenario) or −1
  /// for a ghost or a trial marker outside the set.
  std::vector<int> truth;
  /// Per frame and marker (frames × markers): true where a planted swap relabelled it.
  std::vector<char> swapped;
  int occlusion_first = -1, occlusion_last = -1;  ///< frames of the full occlusion (−1: none)
  /// Per marker (point_of sized to the markers), the index of its true point within `frame`'s
  /// points, −1 when absent.
  void truePoints(int frame, std::vector<int>& point_of) const;
};

/// `trial` resampled at `rate` Hz from its first time (linear interpolation between the two frames
/// around each new time; NaN where either is missing): a 100 Hz capture seen as a 60 Hz one, whose
/// markers move 5/3 as far between frames. Throws InvalidArgument for a rate that is not positive
/// or a trial with fewer than 2 frames.
io::MarkerTrajectories resampleTrajectories(const io::MarkerTrajectories& trial, double rate);

/// The scenario from `trial` (positions in the model's world). `names` are the labeller's markers:
/// trial columns with those names carry truth, other columns are points with truth −1.
ScenarioTrial makeScenario(const io::MarkerTrajectories& trial, const std::vector<std::string>& names,
                           const ScenarioOptions& options);

struct LabellingScore {
  long present = 0;            ///< marker-frames whose marker has a point in the cloud
  long correct = 0;            ///< … labelled with that point
  long wrong = 0;              ///< … labelled with another point
  long missed = 0;             ///< … left a gap
  long ghost_points = 0;       ///< points that are no marker of the set
  long ghosts_labelled = 0;    ///< … given a marker's label
  long swapped_present = 0;    ///< planted-swap marker-frames present …
  long swapped_correct = 0;    ///< … labelled right
  int reacquire_frames = -1;   ///< frames after the occlusion until ≥ 90 % are right (−1: no occlusion)
  int frames_all_correct = 0;  ///< frames with every present marker right
  [[nodiscard]] double accuracy() const { return present > 0 ? static_cast<double>(correct) / present : 1.0; }
};

/// Scores a labelling of `scenario.cloud` against its truth. `frame_ok`, when given, receives per
/// frame whether every present marker was labelled right.
LabellingScore scoreLabelling(const ScenarioTrial& scenario, const LabelTrialResult& result,
                              std::vector<char>* frame_ok = nullptr);

}  // namespace kinetrack::markers
