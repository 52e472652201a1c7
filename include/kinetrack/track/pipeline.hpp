#pragma once
// The `kinetrack track` job as library calls: load a capture (BVH, MVNX or pose-target CSV),
// decide its targets on a model, and run the tracker over every frame, handing each frame's
// configuration to a sink (a CSV writer, a BVH buffer, a test).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/retarget.hpp"

namespace kinetrack::track {

enum class CaptureKind : std::uint8_t { Bvh, Mvnx, TargetCsv };

struct CaptureOptions {
  io::BvhUnits units = io::BvhUnits::Auto;  ///< BVH only
  /// When > 0, the frame times become k / rate (s), replacing the file's.
  double rate = 0.0;
};

/// A capture ready to track: the clip, what each segment carries, and its calibration poses.
struct Capture {
  CaptureKind kind = CaptureKind::Bvh;
  io::MotionClip clip;                        ///< BVH: without velocities (not needed to track)
  std::optional<io::BvhFile> bvh;             ///< the parsed file (BVH only: from-clip model, truth)
  std::vector<std::uint8_t> has_position;     ///< per segment (all 1 for BVH/MVNX)
  std::vector<std::uint8_t> has_orientation;  ///< per segment (all 1 for BVH/MVNX)
  /// Named calibration poses (one-frame clips with the clip's segments): "rest" for BVH,
  /// the file's calibration frames for MVNX ("identity", "npose", "tpose").
  std::vector<std::pair<std::string, io::MotionClip>> calibrations;
};

/// Reads a capture by extension (.bvh, .mvnx, .csv). Throws ParseError for a missing or
/// malformed file and InvalidArgument for an unknown extension or a bad rate.
Capture loadCapture(const std::string& path, const CaptureOptions& options = {});

/// A capture of segment poses held in memory (Python's Capture.from_arrays): every segment
/// carries a position and an orientation, calibrated as a BVH is (its first frame by default);
/// kind Bvh without a file (no from-clip model, no rest pose). A sample with a NaN is a gap
/// (valid = 0). Throws InvalidArgument naming the frame and segment: no frame or segment, sizes
/// that do not match, a duplicate name, a parent that is not an earlier segment, times not finite
/// or not increasing, an infinite position, a rotation that is not one (|RᵀR − I| > 1e-6 or
/// det R < 0).
Capture captureFromClip(io::MotionClip clip);

/// How the clip is calibrated against the model (see Calibration): "none", "first" (the clip's
/// first frame), "frame:N", or the name of one of Capture::calibrations. Empty: "first" for BVH,
/// "npose"/"identity"/"tpose" (the first present) for MVNX, "none" for target CSV.
struct PlanOptions {
  std::string calibration;
  bool root_position = true;
  Vector3d model_up = Vector3d::UnitZ();  ///< RetargetOptions::model_up
  bool stand_on_ground = false;           ///< RetargetOptions::stand_on_ground
  double ground_height = 0.0;             ///< RetargetOptions::ground_height
  std::vector<SurfacePoint> surface;      ///< RetargetOptions::surface
  double root_position_weight = 1.0;      ///< RetargetOptions::root_position_weight
};

/// Targets of `capture` on `model` through `map` (clip segment → model frame pairs).
/// Orientation/position per segment follow what the capture carries.
Retargeting planTracking(const Model& model, const Capture& capture, const std::vector<SegmentPair>& map,
                         const PlanOptions& options = {});

/// What a track job needs besides the capture and the options: the model to track on, its
/// targets and calibration, and ground truth when known.
struct TrackSetup {
  Model model;
  Retargeting plan;
  std::vector<Configuration> truth;   ///< one configuration per frame, or empty
  std::vector<std::string> skipped;   ///< map entries whose frame the model lacks ("segment -> frame")
  std::vector<std::string> unmapped;  ///< clip segments the map does not name
};

/// `--model from-clip`: the BVH's own skeleton (io::modelFromBvh with `units`), every segment
/// targeted (retargetFromClip), and, with `with_truth`, the file's own joint values as ground
/// truth. Throws InvalidArgument for a capture that is not a BVH.
TrackSetup setupFromClip(const Capture& capture, io::BvhUnits units, bool with_truth);
/// `model`: segment pairs through `map_spec` (resolveSegmentPairs: "" = auto, a built-in map
/// name or a JSON file) and planTracking with `options`. Throws as those do.
TrackSetup setupOnModel(Model model, const Capture& capture, const std::string& map_spec,
                        const PlanOptions& options = {});
/// The demo's embedded job: a syntheticWalk of `model` (`duration` s at `rate` Hz) as a
/// pose-target capture (orientations of the 23 segments, the pelvis position), tracked from the
/// zero pose without calibration, with the walk's configurations as ground truth.
std::pair<Capture, TrackSetup> syntheticWalkJob(Model model, double duration, double rate);

/// Called after every frame with the frame index, the model's configuration (held at gaps) and
/// the frame's outcome.
using FrameSink = std::function<void(int frame, const Configuration& q, const FrameOutcome& outcome)>;

/// Tracks every frame of `capture` and returns the per-frame record (times, MNTE, RMSE, wall
/// time per frame in µs). `truth` (one configuration per frame, e.g. io::bvhConfigurations on a
/// from-clip model) adds the spherical joint error. `sink` may be empty.
TrackRecord runTracking(const Model& model, const Capture& capture, const Retargeting& plan,
                        const TrackerOptions& options, const FrameSink& sink,
                        const std::vector<Configuration>* truth = nullptr);

}  // namespace kinetrack::track
