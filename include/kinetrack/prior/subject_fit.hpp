#pragma once
// A subject's 25-DoF DH model and "recorded joint angles" from the subject's own captures
// (GPM §III; SPEC §6): joint centres and bone vectors from the calibration (rest) pose, joint axes
// from an anatomical frame built on that pose and a functional elbow axis from the motion, and per
// frame the angles that reproduce the segments' orientations on the model (docs/gpm.md, "Model").
#include <string>
#include <vector>

#include "kinetrack/prior/upper_body.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::prior {

/// Which clip segments (indices into the clip) make the upper body, found through a segment map.
struct UpperBodySegments {
  int pelvis = -1;  ///< the base
  int lumbar = -1;  ///< first trunk segment above the pelvis on the way to the shoulders
  int neck = -1;    ///< Neck (else Head) segment: a third torso point
  int chest = -1;   ///< the right clavicle's parent: its orientation steadies the torso fit
  std::array<int, 2> clavicle{-1, -1}, upper_arm{-1, -1}, forearm{-1, -1};
  /// The segment below the forearm on the way to the mapped hand (the wrist joint), or −1 when
  /// the skeleton has no hand: then the wrist is `wrist_in_forearm` and the wrist angles are 0.
  std::array<int, 2> hand{-1, -1};
  /// Fallback wrist position in the forearm frame (m) when hand == −1 (BVH End Site).
  std::array<Vector3d, 2> wrist_in_forearm{Vector3d::Zero(), Vector3d::Zero()};
};

/// The upper-body segments of `capture` via the segment map `map_spec` (io::resolveSegmentMap:
/// "" = detected or automatic). Throws InvalidArgument naming the source file and every missing
/// segment (Pelvis, Left/Right Shoulder, UpperArm, ForeArm, Neck or Head), or a skeleton without
/// hands whose forearm has no End Site.
UpperBodySegments findUpperBodySegments(const track::Capture& capture, const std::string& map_spec = "");

/// How well the subject's model reproduces its captures with the recorded angles.
struct FitQuality {
  double hand_position_rms = 0.0;     ///< m, over hands and frames (model FK vs the capture's wrist)
  double hand_position_max = 0.0;     ///< m
  double hand_orientation_rms = 0.0;  ///< rad
  int frames = 0;
  int limits_widened = 0;  ///< joints whose generic limit was widened to hold the recorded range
};

/// One clip of a subject, after fitting.
struct FittedClip {
  std::string path;
  int first = 0;  ///< index of the clip's first frame in SubjectFit::theta
  int frames = 0;
};

struct SubjectFit {
  std::string subject;
  UpperBodyModel model;
  std::vector<FittedClip> clips;
  /// Recorded joint angles per frame (rad), all clips in order; angles are continuous (unwrapped).
  std::vector<Vector25d> theta;
  /// Hand frames of the model at the recorded angles (base frame): the IK targets.
  std::vector<std::array<Transform, 2>> hands;
  FitQuality quality;
};

struct SubjectFitOptions {
  std::string map_spec;  ///< segment map for every clip ("" = detected / automatic)
  /// Keep every stride-th frame of each clip (1 = all). A clip's first frame is dropped when it
  /// is its calibration pose (a synthetic T-pose at frame 0, CMU cgspeed and Xsens).
  int stride = 1;
  /// When > 0, overrides `stride` per clip: stride = max(1, round(fps / rate)).
  double rate = 0.0;
  /// Put the zero of the three bone-axis twists per arm (clavicle, humerus, forearm pronation)
  /// at the subject's median: the skeleton's bone frames, not the person, fix their zero.
  bool center_twists = false;
};

/// Fits the 25-DoF model of `subject` to `clip_paths` (at least one; all of one skeleton: same
/// segment names) and records its joint angles. The model comes from the first clip's
/// calibration pose ("rest" for BVH, else "tpose", "npose", "identity"). Frames with an invalid
/// (gap) upper-body segment are skipped. Throws ParseError for unreadable files and
/// InvalidArgument for missing segments (findUpperBodySegments), clips of different skeletons or
/// no usable frame.
SubjectFit fitSubject(const std::string& subject, const std::vector<std::string>& clip_paths,
                      const SubjectFitOptions& options = {});

/// Generic anatomical joint ranges (rad) relative to the calibration pose (docs/gpm.md).
void genericLimits(Vector25d& lower, Vector25d& upper);

}  // namespace kinetrack::prior
