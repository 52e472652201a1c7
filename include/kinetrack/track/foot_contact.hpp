#pragma once
// The person's foot contacts in a capture: when a foot stands on the ground, found from the
// heights and horizontal speeds of its points (the ankle, the toe) with hysteresis. Retargeting
// reads them to hold the robot's soles still while the person's foot is down, and the quality
// report measures the robot's sole slide over exactly those frames.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/io/capture/motion_clip.hpp"

namespace kinetrack::track {

/// Thresholds of the contact detector. Heights are above each point's own ground level (a low
/// percentile of its height over the clip, so the ankle's level is the ankle's standing height);
/// speeds are horizontal. A point enters contact when it is below height_on and slower than
/// speed_on; it leaves when it rises above height_off or moves faster than speed_off. A foot is
/// in contact while any of its points is.
struct FootContactOptions {
  double height_on = 0.03;   ///< m
  double height_off = 0.05;  ///< m (≥ height_on)
  double speed_on = 0.30;    ///< m/s
  double speed_off = 0.60;   ///< m/s (≥ speed_on)
  /// Percentile of a point's heights over the clip taken as its ground level (0 < p < 0.5).
  double ground_percentile = 0.05;
  /// Contacts shorter than this are dropped (s; 0 keeps every contact).
  double min_duration = 0.05;
};

/// One foot: its name and the clip segments whose origins touch the ground (ankle, toe).
struct FootPoints {
  std::string name;           ///< e.g. "LeftFoot"
  std::vector<int> segments;  ///< clip segment indices, at least one
};

/// Contacts per frame and foot.
struct FootContacts {
  std::vector<std::string> feet;  ///< foot names, in the order given
  int frames = 0;
  std::vector<std::uint8_t> contact;              ///< frame-major: contact[f * feet.size() + k]
  std::vector<double> ground_level;               ///< per foot: its lowest point's ground level (m, clip Z)
  std::vector<std::vector<double>> point_levels;  ///< per foot and point: its ground level (pointGroundLevels)
  [[nodiscard]] bool inContact(int frame, int foot) const {
    return contact[static_cast<std::size_t>(frame) * feet.size() + static_cast<std::size_t>(foot)] != 0;
  }
  /// Frames in which foot k is in contact.
  [[nodiscard]] int count(int foot) const;
};

/// Checks the options: finite, heights and speeds > 0, the off thresholds ≥ the on ones, the
/// percentile in (0, 0.5), min_duration ≥ 0. Throws InvalidArgument naming the field.
void checkFootContactOptions(const FootContactOptions& options);

/// Contacts of `feet` in `clip` (Z up, metres). A frame where a foot's segments have no valid
/// sample is not a contact. Throws InvalidArgument for a segment index out of range, a foot
/// without segments, or bad options.
FootContacts detectFootContacts(const io::MotionClip& clip, const std::vector<FootPoints>& feet,
                                const FootContactOptions& options = {});

/// Each point's ground level (m, clip Z) of `feet` in `clip`: the `percentile` of its valid
/// heights (nearest rank); NaN for a point with no valid sample. Per foot, per point.
std::vector<std::vector<double>> pointGroundLevels(const io::MotionClip& clip, const std::vector<FootPoints>& feet,
                                                   double percentile);

/// The same detector one frame at a time, causal, for a live stream: a point's speed is its
/// horizontal displacement since the previous sample over the time between (zero for its first
/// sample), its ground level starts at the given one (a reference capture's: the subject's
/// layout file; a NaN level starts at the point's first sample) and follows any lower sample.
/// Contacts shorter than min_duration are not dropped (a frame's contact is decided when it
/// arrives). No allocation per frame.
class FootContactTracker {
 public:
  /// `levels`: per foot and point (pointGroundLevels). Throws InvalidArgument for bad options,
  /// a foot without segments or levels that do not match the feet.
  FootContactTracker(std::vector<FootPoints> feet, std::vector<std::vector<double>> levels,
                     const FootContactOptions& options = {});
  /// The contacts at frame f of `clip` (time t, increasing): contact[k] for foot k. A segment
  /// index outside the clip counts as no sample.
  void update(double t, const io::MotionClip& clip, int f, std::span<std::uint8_t> contact);

 private:
  std::vector<FootPoints> feet_;
  std::vector<std::vector<double>> level_;
  FootContactOptions options_;
  std::vector<std::vector<Vector3d>> last_;  // each point's previous sample
  std::vector<std::vector<double>> last_t_;  // its time (NaN: none yet)
  std::vector<std::vector<std::uint8_t>> state_;
};

/// The feet of a clip through its canonical roles: `role_of[s]` is the canonical (Xsens) name
/// clip segment s stands for ("" when none). LeftFoot/RightFoot with their Toe when mapped; a
/// side without a Foot segment is left out, and so is a foot not in `only` when `only` is given.
std::vector<FootPoints> canonicalFeet(const std::vector<std::string>& role_of,
                                      const std::vector<std::string>& only = {});

}  // namespace kinetrack::track
