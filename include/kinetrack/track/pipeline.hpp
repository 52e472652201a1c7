#pragma once
// The `kinetrack track` job as library calls: load a capture (BVH, MVNX or pose-target CSV),
// decide its targets on a model, and run the tracker over every frame, handing each frame's
// configuration to a sink (a CSV writer, a BVH buffer, a test).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/io/bvh.hpp"
#include "kinetrack/io/motion_clip.hpp"
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
  io::MotionClip clip;                     ///< BVH: without velocities (not needed to track)
  std::optional<io::BvhFile> bvh;          ///< the parsed file (BVH only: from-clip model, truth)
  std::vector<std::uint8_t> has_position;     ///< per segment (all 1 for BVH/MVNX)
  std::vector<std::uint8_t> has_orientation;  ///< per segment (all 1 for BVH/MVNX)
  /// Named calibration poses (one-frame clips with the clip's segments): "rest" for BVH,
  /// the file's calibration frames for MVNX ("identity", "npose", "tpose").
  std::vector<std::pair<std::string, io::MotionClip>> calibrations;
};

/// Reads a capture by extension (.bvh, .mvnx, .csv). Throws ParseError for a missing or
/// malformed file and InvalidArgument for an unknown extension or a bad rate.
Capture loadCapture(const std::string& path, const CaptureOptions& options = {});

/// How the clip is calibrated against the model (see Calibration): "none", "first" (the clip's
/// first frame), "frame:N", or the name of one of Capture::calibrations. Empty: "first" for BVH,
/// "npose"/"identity"/"tpose" (the first present) for MVNX, "none" for target CSV.
struct PlanOptions {
  std::string calibration;
  bool root_position = true;
};

/// Targets of `capture` on `model` through `map` (clip segment → model frame pairs).
/// Orientation/position per segment follow what the capture carries.
Retargeting planTracking(const Model& model, const Capture& capture, const std::vector<SegmentPair>& map,
                         const PlanOptions& options = {});

/// Called after every frame with the frame index, the model's configuration (held at gaps) and
/// the frame's outcome.
using FrameSink = std::function<void(int frame, const Configuration& q, const FrameOutcome& outcome)>;

/// Tracks every frame of `capture` and returns the per-frame record (times, MNTE, RMSE, wall
/// time per frame in µs). `truth` (one configuration per frame, e.g. io::bvhConfigurations on a
/// from-clip model) adds the spherical joint error. `sink` may be empty.
TrackRecord runTracking(const Model& model, const Capture& capture, const Retargeting& plan, const TrackerOptions& options,
                        const FrameSink& sink, const std::vector<Configuration>* truth = nullptr);

}  // namespace kinetrack::track
