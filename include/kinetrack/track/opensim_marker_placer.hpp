#pragma once
// OpenSim's MarkerPlacer on kinetrack: the static pose of a (scaled) OpenSim model and its markers
// moved onto the static trial. The marker positions are averaged over the frames of the time
// range (each marker over the frames where it is present), one frame of OpenSim's IK is solved on
// that mean (bindOpenSimIk: the setup's marker weights and coordinate tasks, clamped and locked
// coordinates, couplers), and every marker that is not `fixed` and is present in the trial is
// moved to its measured position expressed in its body's frame at that pose. The solve starts
// from the default pose as OpenSim's does, and once more from the root body fitted alone to its
// markers; the start giving the smaller marker error wins (OpenSim has only the first: a subject
// turned away from the model's heading can leave it in a worse minimum).
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/track/marker_trial.hpp"

namespace kinetrack::track {

struct MarkerPlacerOptions {
  double time_start = -std::numeric_limits<double>::infinity();  ///< s
  double time_end = std::numeric_limits<double>::infinity();     ///< s
  /// m; ≥ 0: a marker that moves farther than this from its mean within the range is an error
  /// (OpenSim's max_marker_movement); < 0: unchecked.
  double max_marker_movement = -1.0;
  /// Move the markers marked fixed too (OpenSim keeps them where they are; a labeller wants every
  /// marker where the subject wears it).
  bool move_fixed = false;
};

/// One model marker.
struct PlacedMarker {
  std::string name, body;
  bool fixed = false;
  bool in_trial = false;                                    ///< present in the averaged trial
  Vector3d before = Vector3d::Zero();                       ///< location in the body frame before placement (m)
  Vector3d after = Vector3d::Zero();                        ///< after (= before when fixed or absent)
  double moved = 0.0;                                       ///< ‖after − before‖ (m)
  double error = std::numeric_limits<double>::quiet_NaN();  ///< IK distance at the static pose (m), NaN: not fitted
};

struct MarkerPlacement {
  Configuration pose;                       ///< the static pose
  double time = 0.0;                        ///< mean time of the frames averaged (s)
  int frames = 0;                           ///< frames averaged
  MarkerTrialResult solve;                  ///< the one-frame IK (status, iterations, errors)
  io::MotTable coordinates;                 ///< the pose as OpenSim's IK writes it (degrees / m)
  std::vector<PlacedMarker> markers;        ///< model markers, model order
  double rms_error = 0.0, max_error = 0.0;  ///< weighted markers at the static pose (m)
  std::string worst_marker = "-";
  std::vector<std::string> warnings;  ///< bindOpenSimIk's (setup markers absent from the trial, …)
};

/// Places the markers of `model` (tasks from `setup`, may be null: every model marker in the
/// trial, weight 1) on `trial` (positions in the model's world, m). Throws InvalidArgument for no
/// weighted marker in the trial or a marker that moves more than max_marker_movement, and what
/// bindOpenSimIk throws (ParseError naming the setup for a task naming an unknown marker or
/// coordinate).
MarkerPlacement placeOpenSimMarkers(const io::OpenSimModel& model, const io::IkSetup* setup,
                                    const io::MarkerTrajectories& trial, const MarkerPlacerOptions& options = {});

}  // namespace kinetrack::track
