#pragma once
// A whole trial through the labeller (markers::Labeller, one frame after the other, causal) and
// the labelled result as marker trajectories. The IK problem the labeller solves, for a run on
// known labels, is subject::makeMarkerIk of its model.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/model/configuration.hpp"

namespace kinetrack::markers {

/// One output row per input frame.
struct LabelledFrame {
  long frame_number = 0;
  double time = 0.0;
  int points = 0, invalid_points = 0, assigned = 0, gaps = 0, ghosts = 0, rigid_rejections = 0, relabelled = 0;
  int swaps_corrected = 0;      ///< marker pairs found swapped and exchanged this frame
  int unsure = 0;               ///< labels below the confidence threshold
  double min_confidence = 1.0;  ///< lowest label confidence of the frame (1 when nothing is labelled)
  TrackState state = TrackState::Lost;
  ik::Status ik_status = ik::Status::Converged;
  int ik_iterations = 0;
  double ik_rms = 0.0;           ///< marker RMS of the IK on the labelled points (m); NaN when not solved
  double microseconds = 0.0;     ///< label() wall time: labelling + IK (+ initialisation)
  double ik_microseconds = 0.0;  ///< of which the marker IK
};

struct LabelTrialResult {
  std::vector<std::string> names;  ///< marker names (LabellerModel order)
  std::vector<LabelledFrame> frames;
  /// frames × markers: index of the marker's point within its frame (PointCloud::frame), −1 = gap.
  std::vector<int> marker_point;
  /// frames × markers: confidence of each label in [0, 1], NaN for a gap.
  std::vector<float> confidence;
  std::vector<Configuration> poses;  ///< solved (or held) pose per frame
  [[nodiscard]] int point(int frame, int marker) const {
    return marker_point[static_cast<std::size_t>(frame) * names.size() + static_cast<std::size_t>(marker)];
  }
  [[nodiscard]] int initialisations() const;  ///< frames that (re)started the track
  [[nodiscard]] int lostFrames() const;       ///< frames without a solved pose
  [[nodiscard]] int unsureFrames() const;     ///< frames with at least one unsure label
  [[nodiscard]] long swapsCorrected() const;  ///< marker pairs found swapped and exchanged
  /// The labelled trajectories: the picked points as they are in `cloud` (never moved), NaN for
  /// a gap; times and frame numbers of the cloud.
  [[nodiscard]] io::MarkerTrajectories trajectories(const io::PointCloud& cloud) const;
};

struct LabelTrialOptions {
  /// Called after each frame with (frames done, frames).
  std::function<void(int, int)> progress;
};

/// Labels every frame of `cloud` (points in the model's world) in order. Never drops a frame: a
/// frame without points is a row of gaps (state Lost, pose held).
LabelTrialResult labelTrial(std::shared_ptr<const LabellerModel> model, const io::PointCloud& cloud,
                            const LabellerOptions& options = {}, const LabelTrialOptions& trial_options = {});

}  // namespace kinetrack::markers
