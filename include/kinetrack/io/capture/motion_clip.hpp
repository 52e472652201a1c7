#pragma once
// MotionClip: the neutral result of every capture reader (BVH, MVNX, …): per frame and per
// segment a world pose, in kinetrack's conventions (metres, Z up, rotations as matrices), with
// optional velocities and a validity flag per frame and segment.
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

struct MotionClip {
  std::string source;                      ///< file the clip was read from
  std::vector<std::string> segment_names;  ///< in the source's order (parents before children)
  std::vector<int> segment_parent;         ///< index of the parent segment, −1 for the root
  std::vector<double> times;               ///< s, strictly increasing, one per frame
  /// World pose of segment s at frame f: poses[f * numSegments() + s] (m, Z up).
  std::vector<Transform> poses;
  /// World-frame linear velocity of the segment origin and angular velocity (m/s, rad/s), same
  /// layout; empty when not available.
  std::vector<Vector3d> linear_velocity, angular_velocity;
  /// 1 when the sample is measured and finite, 0 for a gap (NaN or missing data).
  std::vector<std::uint8_t> valid;

  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numSegments() const { return static_cast<int>(segment_names.size()); }
  [[nodiscard]] const Transform& pose(int frame, int segment) const {
    return poses[static_cast<std::size_t>(frame) * segment_names.size() + static_cast<std::size_t>(segment)];
  }
  [[nodiscard]] bool isValid(int frame, int segment) const {
    return valid[static_cast<std::size_t>(frame) * segment_names.size() + static_cast<std::size_t>(segment)] != 0;
  }
  /// Index of a segment by name, or −1.
  [[nodiscard]] int findSegment(const std::string& name) const;
};

/// Fills linear_velocity and angular_velocity by central differences of the poses (one-sided at
/// the ends and next to gaps); angular velocity from the SO(3) logarithm, ω ≈ log(R_{f+1} R_{f−1}ᵀ)
/// / (t_{f+1} − t_{f−1}), never from differences of Euler angles. Samples next to an invalid one
/// use the valid neighbour; a sample with no valid neighbour gets zero velocity.
void computeVelocities(MotionClip& clip);

}  // namespace kinetrack::io
