#pragma once
// Pose-target CSV: world poses of named segments over time, the neutral input of tracking when
// the motion does not come from a capture format (docs/formats.md):
//
//   time,<Seg>.px,<Seg>.py,<Seg>.pz,<Seg>.qw,<Seg>.qx,<Seg>.qy,<Seg>.qz,…
//
// Units: s and m, kinetrack's world (Z up); (qw, qx, qy, qz) is the unit quaternion of R_W,Seg.
// A segment has 3 position columns, 4 orientation columns or all 7 (any column order). An empty
// field or "nan" is a gap; lines starting with '#' are comments.
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/io/capture/motion_clip.hpp"

namespace kinetrack::io {

/// Pose targets read from (or to be written to) a pose-target CSV. The MotionClip carries the
/// poses; the flags say which parts each segment has and which samples are measured.
///
/// Layout of the per-sample vectors: [frame * numSegments() + segment], as MotionClip::poses.
/// clip.valid is 1 when every part the segment has (position, orientation) is measured.
/// A part the segment does not have is p = 0 or R = I (not meaningful); a part missing in a
/// frame (a gap) is NaN. clip.segment_parent is −1 for every segment (the CSV has no hierarchy).
struct PoseTargets {
  MotionClip clip;
  std::vector<std::uint8_t> has_position;       ///< per segment: .px .py .pz columns present
  std::vector<std::uint8_t> has_orientation;    ///< per segment: .qw .qx .qy .qz columns present
  std::vector<std::uint8_t> position_valid;     ///< per sample: position present and finite
  std::vector<std::uint8_t> orientation_valid;  ///< per sample: orientation present and finite

  [[nodiscard]] bool hasPosition(int segment) const { return has_position[static_cast<std::size_t>(segment)] != 0; }
  [[nodiscard]] bool hasOrientation(int segment) const {
    return has_orientation[static_cast<std::size_t>(segment)] != 0;
  }
  [[nodiscard]] bool positionValid(int frame, int segment) const { return position_valid[index(frame, segment)] != 0; }
  [[nodiscard]] bool orientationValid(int frame, int segment) const {
    return orientation_valid[index(frame, segment)] != 0;
  }

 private:
  [[nodiscard]] std::size_t index(int frame, int segment) const {
    return static_cast<std::size_t>(frame) * clip.segment_names.size() + static_cast<std::size_t>(segment);
  }
};

/// Reads a pose-target CSV. The first line that is neither blank nor a comment is the header;
/// segments appear in the order of their first column. Velocities are filled by
/// computeVelocities (zero linear velocity for orientation-only segments, zero angular velocity
/// for position-only ones). A quaternion is normalised; one whose norm differs from 1 by more
/// than 1e-3 is an error. Throws ParseError(file, line, "column 'name': …") for a missing file, a
/// header whose first column is not "time", a column not named <segment>.px|py|pz|qw|qx|qy|qz, a
/// repeated column, a segment with an incomplete position or orientation group, a row with the
/// wrong number of fields, a non-numeric value, an infinite value, an empty or NaN time, a time
/// that does not increase, a non-unit quaternion, or no header.
PoseTargets readTargetCsv(const std::string& path);
/// Same as readTargetCsv for text in memory; `source` is used in error messages.
PoseTargets parseTargetCsv(const std::string& text, const std::string& source);

/// Every segment of `clip` with position and orientation, each sample measured where
/// clip.valid is 1.
PoseTargets poseTargetsFromClip(const MotionClip& clip);

/// The CSV text of `targets`: a comment line, the header, then one row per frame, numbers in
/// the shortest form that reads back to the same double (≤ 17 significant digits); gaps as empty
/// fields, quaternions with w ≥ 0.
/// Throws InvalidArgument when the flag vectors do not match the clip's size or a segment name
/// is empty, contains ',', '"' or a line break, starts or ends with a space, or the segment has
/// neither position nor orientation.
std::string toTargetCsv(const PoseTargets& targets);
/// Writes toTargetCsv(targets) to "<path>.part" and renames it to `path`. Throws ParseError when
/// the file cannot be written (the temporary file is removed).
void writeTargetCsv(const PoseTargets& targets, const std::string& path);
/// writeTargetCsv(poseTargetsFromClip(clip), path).
void writeTargetCsv(const MotionClip& clip, const std::string& path);

}  // namespace kinetrack::io
