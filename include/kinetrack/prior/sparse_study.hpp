#pragma once
// Sparse-input tracking with the learned prior (docs/gpm.md, "Sparse-input tracking"): every
// subject's clips are tracked onto the whole-body model with all segments (the reference
// "full capture"), then replayed with only a few targets (head + hands) from that reference,
// by the same gradient-projection IK with and without a prior learned from the *other* subjects
// (leave one subject out), and by DYN with the same targets. Joint RMS over the model's joints.
#include <functional>
#include <string>
#include <vector>

#include "kinetrack/prior/gpm_study.hpp"
#include "kinetrack/prior/human_prior.hpp"
#include "kinetrack/prior/prior_posture.hpp"

namespace kinetrack::prior {

/// A subject's reference motion on the model: one configuration sequence per clip.
struct ReferenceMotion {
  std::string subject;
  std::vector<std::vector<Configuration>> clips;
  double dt = 1.0 / 30.0;  ///< s between kept frames
  [[nodiscard]] int frames() const;
};

/// Tracks every clip of `subject` onto `model` with all mapped segments (the default tracker,
/// calibration "first"), keeping about `rate` frames per second. Throws as track::loadCapture /
/// setupOnModel do.
ReferenceMotion referenceMotion(const Model& model, const StudySubject& subject, double rate);

struct SparseStudyOptions {
  std::vector<std::string> targets = {"Head", "RightHand", "LeftHand"};
  DensityOptions density;  ///< inc 1 by default: one density per joint and group
  SparseIkOptions ik;
  /// Also DYN (per-step gain 1, the tracker's options) with the same targets, without ("DYN") and
  /// with the same prior as its posture term ("DYN+GP", PriorPosture).
  bool dyn_peer = true;
  PriorPostureOptions posture;
  std::function<void(int, int, const std::string&)> progress;
};

struct SparseRow {
  std::string subject;
  std::string method;  ///< "LN" (no prior), "GP" (prior of the other subjects), "DYN", "DYN+GP"
  /// RMS over every frame and the 23 segments of the angle between the reference's and the
  /// solver's rotation of each segment relative to its parent (world rotation for the pelvis):
  /// the error of a spherical joint, independent of Euler-angle windings (deg)
  double joint_rms_deg = 0.0;
  double hand_error_mm = 0.0;  ///< RMS target position error after each frame (mm)
  double frame_us = 0.0;       ///< mean wall time per frame (µs)
};

/// Leave-one-subject-out over `motions` (≥ 2). Every clip starts at its reference first frame.
std::vector<SparseRow> runSparseStudy(const Model& model, const std::vector<ReferenceMotion>& motions,
                                      const SparseStudyOptions& options);

/// CSV text "subject,method,joint_rms_deg,hand_error_mm,frame_us".
std::string sparseCsv(const std::vector<SparseRow>& rows);

}  // namespace kinetrack::prior
