#pragma once
// How good a retargeted motion is, in the figures robot-learning pipelines ask for: the soles'
// slide while the person's foot is down, the lowest point below the ground, self-penetration,
// limit and velocity-limit excess, jerk, MNTE, and pose agreement — the elbow, knee,
// shoulder-to-trunk and hip-to-trunk angles of the robot against the person's, which no
// heading, size or segment-frame convention changes.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/ik/collision.hpp"
#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/model/collision_proxy.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/track/foot_contact.hpp"
#include "kinetrack/track/retarget.hpp"

namespace kinetrack::track {

/// The angles of the pose agreement, each between two body vectors (rad, in [0, π]):
/// elbow: upper arm (shoulder→elbow) vs forearm (elbow→wrist), 0 when straight; knee: thigh vs
/// shank; shoulder-to-trunk: upper arm vs the trunk pointing down (hip centre − shoulder centre),
/// 0 with the arm hanging; hip-to-trunk: thigh vs the trunk pointing down, 0 standing.
enum class PoseAngle : std::uint8_t {
  LeftElbow,
  RightElbow,
  LeftKnee,
  RightKnee,
  LeftShoulderTrunk,
  RightShoulderTrunk,
  LeftHipTrunk,
  RightHipTrunk,
};
inline constexpr int kPoseAngles = 8;
using PoseAngles = std::array<double, kPoseAngles>;  ///< NaN where a keypoint is missing
const char* toString(PoseAngle a);                   ///< "left_elbow", …, "right_hip_trunk"

/// Keypoints: shoulder, elbow, wrist, hip, knee, ankle of the left then the right side.
inline constexpr int kKeypoints = 12;
enum KeypointJoint : int { kShoulder = 0, kElbow = 1, kWrist = 2, kHip = 3, kKnee = 4, kAnkle = 5 };
/// Index of a joint's keypoint: side 0 left, 1 right.
constexpr std::size_t keypointIndex(int side, KeypointJoint joint) {
  return static_cast<std::size_t>(side * 6 + joint);
}
struct Keypoints {
  std::array<Vector3d, kKeypoints> p{};
  std::array<bool, kKeypoints> valid{};
};
/// The angles of a set of keypoints (NaN for an angle whose points are missing or coincide).
PoseAngles poseAngles(const Keypoints& k);

/// Where the keypoints of the person (clip segments) and the robot (model frames) are, from the
/// segment pairs and their canonical roles (SegmentPair::role, else the model frame's name):
/// elbow, wrist, knee and ankle are the origins of the ForeArm, Hand, LowerLeg and Foot frames
/// (the clip segments' origins, at the joints); the shoulder and the hip are the origins of the
/// first link of the chain from the trunk (the T8 frame's link, else the root) to the UpperArm /
/// UpperLeg frame, where the limb's first joint sits, since a robot's upper-arm link often
/// starts half-way down the arm (the G1's shoulder yaw).
class PoseAgreement {
 public:
  PoseAgreement(const Model& robot, const io::MotionClip& clip, const std::vector<SegmentPair>& pairs);
  /// The person's keypoints at clip frame f (a segment without a valid sample is not valid).
  [[nodiscard]] Keypoints person(const io::MotionClip& clip, int f) const;
  /// The robot's keypoints in `data` (after framesForwardKinematics).
  [[nodiscard]] Keypoints robot(const Data& data) const;
  /// Roles no pair provides ("LeftHand", …): the angles using them are not measured.
  [[nodiscard]] const std::vector<std::string>& missing() const { return missing_; }

 private:
  std::array<int, kKeypoints> segment_{};
  std::array<int, kKeypoints> frame_{};  // model frame whose origin is the keypoint, −1 when none
  std::vector<std::string> missing_;
};

/// A robot sole: the foot role it belongs to ("LeftFoot") and the model frame at its centre.
struct Sole {
  std::string foot;
  FrameId frame;  ///< its origin is the sole's centre
};

struct RetargetQualityOptions {
  /// The surface points checked against the ground; empty: every link frame's origin.
  std::vector<SurfacePoint> surface;
  /// The soles whose slide is measured; empty: the origin of the frame of each foot role's pair.
  std::vector<Sole> soles;
  double ground_height = 0.0;  ///< m, along Model::up()
  /// The capsules whose self-penetration is measured (io::collisionProxies); empty: not measured.
  std::vector<CollisionProxy> proxies;
  /// Which pairs are measured: the pair filter of these options (ignore_within_joints, exclude,
  /// and pairs closer than margin + reference_clearance at the reference configuration), the
  /// one the solver's rows used; `enabled` and the row settings are not read. Pairs filtered out
  /// at the reference are named in the notes.
  ik::SelfCollisionOptions self_collision = [] {
    ik::SelfCollisionOptions o;
    o.margin = 0.0;
    return o;
  }();
};

/// The quality figures of one retargeted clip. Lengths in mm, angles in degrees.
struct RetargetQuality {
  int frames = 0;
  std::vector<std::string> feet;    ///< the feet whose contacts were detected
  std::vector<int> contact_frames;  ///< per foot: frames the person's foot was down

  // Per frame.
  /// The largest horizontal displacement since the previous frame of a sole whose foot was down
  /// on both frames; NaN when no foot was down on both.
  std::vector<double> slide_mm;
  /// Height of the robot's lowest surface point above the ground (negative: below it).
  std::vector<double> lowest_mm;
  /// |robot angle − person angle| per pose angle (NaN when either is not measured).
  std::vector<PoseAngles> angle_error_deg;

  // Summary.
  int slide_samples = 0;
  double slide_mean_mm = 0.0, slide_p95_mm = 0.0, slide_max_mm = 0.0;
  double below_ground_mm = 0.0;  ///< deepest point below the ground over the clip (≥ 0)
  /// Deepest self-penetration of the collision proxies (mm; bounding capsules of the meshes, so
  /// an upper bound; pairs within two joints are not counted, and those overlapping at the zero
  /// configuration count from their overlap there, or not at all, as `self_collision` says; NaN:
  /// not measured, the model has no collision geometry).
  double penetration_mm = std::numeric_limits<double>::quiet_NaN();
  double limit_excess = 0.0;           ///< largest joint position-limit excess (rad or m)
  double velocity_limit_excess = 0.0;  ///< largest joint velocity-limit excess (rad/s or m/s)
  double jerk_rms = 0.0;               ///< RMS joint jerk, third differences (rad/s³)
  double mnte_median = 0.0, mnte_p95 = 0.0;
  PoseAngles pose_median_deg{}, pose_p95_deg{};
  std::vector<std::string> notes;  ///< what could not be measured and why
};

/// Measures a retargeted clip: `q` one configuration per clip frame, `contacts` the person's foot
/// contacts (detectFootContacts; feet named by role), `mnte` the per-frame MNTE of the tracking
/// run (may be empty). Throws InvalidArgument when q and the clip differ in length.
RetargetQuality assessRetargeting(const Model& robot, const io::MotionClip& clip, const std::vector<SegmentPair>& pairs,
                                  const std::vector<Configuration>& q, const FootContacts& contacts,
                                  const std::vector<double>& mnte, const RetargetQualityOptions& options = {});

/// The summary as JSON (text with a trailing newline): the figures above, the pose agreement per
/// angle (median, p95) and the notes.
std::string qualityJson(const RetargetQuality& quality);

/// The report as summary-table lines ("  <label padded to 28> <value>\n"): contacts, sole slide,
/// ground, self-penetration, limit excess, jerk and the pose agreement per angle pair.
std::string qualityText(const RetargetQuality& quality);

/// The per-frame series as CSV: time, slide_mm, lowest_mm, one column per foot contact, then the
/// eight angle errors (deg); for the quality plot.
std::string qualityCsv(const RetargetQuality& quality, const std::vector<double>& times, const FootContacts& contacts);

}  // namespace kinetrack::track
