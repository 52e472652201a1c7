#pragma once
// Paired postures of two models doing the same motion, for fitting the human figure ↔
// musculoskeletal model mapping (biomech/posture_mapping.hpp, Eq. 14–15): one capture (BVH, MVNX)
// tracked on both models from the same segment orientations — the human figure through the
// capture's segment map (as `kinetrack track`), the musculoskeletal model through the segment
// map composed with a robot map naming its bodies (as `kinetrack retarget`, e.g. the built-in
// "gait2354"), each calibrated on the same calibration pose. Frame k of both is one pair.
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/track/frame_solver.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::track {

struct PosturePairOptions {
  std::string segment_map;             ///< the capture's segment map ("" = auto)
  std::string model_map = "gait2354";  ///< robot map of the second model (name or JSON file)
  PlanOptions plan;                    ///< calibration pose (default: first frame for BVH)
  /// Up direction of the second model's world (Y for OpenSim models); the first's is plan.model_up.
  Vector3d second_up = Vector3d::UnitY();
  TrackerOptions tracker;  ///< the solver used for both models
  int stride = 1;          ///< keep every stride-th frame (all are tracked)
  double transient = 0.0;  ///< seconds at the start not kept (the tracker settling)
  /// Frames where either model's MNTE exceeds this are dropped: that model could not take the
  /// capture's posture (e.g. gait2354's pelvis_rotation limit of ±90° in a turning clip).
  double max_mnte = std::numeric_limits<double>::infinity();
  /// Frames where a joint of the second model is within this of a position limit (rad or m) are
  /// dropped (its posture there is the limit's, not the capture's); negative: keep them.
  double limit_margin = -1.0;
};

struct PosturePairs {
  std::vector<double> times;                   ///< kept frames
  MatrixXd first, second;                      ///< joint values (rad or m), numJoints × kept frames, of each model
  double first_mnte = 0.0, second_mnte = 0.0;  ///< median MNTE over the kept frames (fit quality)
  int gaps = 0;                                ///< frames dropped because either model had a gap
  int poor = 0;                                ///< frames dropped by max_mnte or limit_margin
};

/// Tracks `capture` on `first` (segment map) and on `second` (segment map ∘ options.model_map)
/// and returns the joint values of the frames where both tracked (no gap, finite). Throws as
/// resolveSegmentPairs, resolveRobotPairs and planTracking do, and InvalidArgument for
/// stride < 1 or transient < 0.
PosturePairs pairPostures(const Model& first, const Model& second, const Capture& capture,
                          const PosturePairOptions& options = {});

/// The joints that move `frames` relative to `root_frame` (each frame's support minus the root
/// frame's: for the gait2354 bodies below the pelvis, the lumbar, hip, knee, ankle, subtalar and
/// mtp coordinates but not the pelvis' six), in model order — the posture variables of a map.
/// Throws InvalidArgument for an unknown frame name (listing the valid ones).
std::vector<int> postureJoints(const Model& model, const std::string& root_frame,
                               const std::vector<std::string>& frames);

}  // namespace kinetrack::track
