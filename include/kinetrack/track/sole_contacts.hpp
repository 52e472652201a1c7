#pragma once
// The robot's soles on the ground while the person's feet are: each robot foot gets a sole frame
// (the centre of its lowest surface points), and while the person's foot is down (FootContacts)
// a pose target holds that sole where it touched down, on the ground. With the ground rows of
// the collision limits it keeps the robot's feet from sliding, sinking or floating.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/foot_contact.hpp"
#include "kinetrack/track/stream_tracker.hpp"

namespace kinetrack::track {

struct SurfacePoint;
struct SegmentPair;
struct Retargeting;

/// The sole frames of a robot: one per foot role ("LeftFoot", "RightFoot") of `pairs`, named
/// "<foot frame>_sole", on the foot frame's link at the centre of that link's lowest surface
/// points at the zero configuration (within 5 mm of the lowest; a sphere's radius below its
/// centre), else at the foot frame's origin; oriented as the world at the zero configuration
/// (a robot stands there with its soles flat: the sole's z axis is then `up`).
struct Soles {
  Model model;                      ///< the robot with the sole frames added
  std::vector<std::string> feet;    ///< foot roles, left first
  std::vector<std::string> frames;  ///< the sole frame of each foot
};
Soles addSoleFrames(const Model& robot, const std::vector<SegmentPair>& pairs,
                    const std::vector<SurfacePoint>& surface);

/// What holds the soles during a run.
struct SoleContactPlan {
  std::vector<std::string> frames;  ///< model sole frames, one per foot of `contacts`, same order
  /// Per foot: the model frame the person's foot drives (its origin at the ankle) and that clip
  /// segment; a held sole is put where the person's foot is at touchdown (through the clip's
  /// alignment, so footholds and the root trajectory are scaled alike), shifted by the robot's
  /// own sole-to-ankle offset, on the ground.
  std::vector<std::string> foot_frames;
  std::vector<int> segments;
  FootContacts contacts;  ///< the person's foot contacts, one per clip frame
  /// For a live stream (stream::LiveTracker), where contacts are found as frames arrive
  /// (FootContactTracker, its ground levels those of `contacts`): the person's feet (same order
  /// as `contacts`) and the thresholds.
  std::vector<FootPoints> feet;
  FootContactOptions detector;
  Vector3d up = Vector3d::UnitZ();
  double ground_height = 0.0;  ///< m along up: where a held sole is put
  double weight = 100.0;  ///< of the sole pose targets (per m and per rad; the person's orientation targets weigh 1)
};

/// Levels the robot's feet against the person's stance: the calibration turns a foot with its
/// shank (a leaf of the segment tree), so a foot that is not flat at the calibration frame (a
/// walk's toe-off, a crouch) would be tilted for the whole run. For each foot of `plan.soles`,
/// at the frame of its contacts where the foot target is tilted the median amount, the offset of
/// its binding is turned so the target is level there (the sole's z axis on `up`, its heading
/// kept). A plan without soles, and a foot without contacts, are left as they are.
void levelFootOffsets(const Model& model, const io::MotionClip& clip, Retargeting& plan);

/// Per-run state of the sole targets: where each held sole touched down.
class SoleContacts {
 public:
  /// Throws InvalidArgument when the frames and the feet differ in number or a frame is unknown.
  SoleContacts(const Model& model, const SoleContactPlan& plan);
  /// The stream targets (pose), in foot order.
  [[nodiscard]] std::vector<StreamTarget> targets() const;
  /// Values and active flags at clip frame f given the model's kinematics before the frame and
  /// the person's contacts at f (`down`, one per foot: a row of SoleContactPlan::contacts, or a
  /// FootContactTracker's): a foot down is held at its anchor, set when it touches down
  /// (SoleContactPlan), and level: its orientation target is the sole's present one turned
  /// (about a horizontal axis) until its z axis is `up`, so the heading stays free. No allocation.
  void frame(std::span<const std::uint8_t> down, const io::MotionClip& clip, int f, const ClipAlignment& alignment,
             const Data& data, std::span<Matrix3d> R, std::span<Vector3d> p, std::span<std::uint8_t> active);
  /// The contacts of frame f in the plan (a row of SoleContactPlan::contacts; none outside it).
  [[nodiscard]] std::span<const std::uint8_t> plannedContacts(int f) const;

 private:
  SoleContactPlan plan_;
  std::vector<LinkId> links_;
  std::vector<Vector3d> offset_;    // sole − foot frame origin, in the link frame
  std::vector<Matrix3d> rotation_;  // the sole frame's orientation in the link frame
  std::vector<Vector3d> anchor_;
  std::vector<std::uint8_t> held_;
  std::vector<std::uint8_t> none_;  // no contact, one per foot
};

}  // namespace kinetrack::track
