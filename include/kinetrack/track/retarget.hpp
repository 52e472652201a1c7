#pragma once
// From a clip and a segment map to the tracker's targets: which model frame each clip segment
// drives, the fixed rotation offsets between the clip's segment frames and the model's (computed
// from a calibration pose), and the map from the clip's world to the model's.
#include <string>
#include <vector>

#include <optional>
#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/model/data.hpp"

#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/sole_contacts.hpp"

namespace kinetrack::track {

/// One clip segment → model frame pair (a segment map entry).
struct SegmentPair {
  std::string clip_segment;
  std::string model_frame;
  /// Fixed rotation in the model segment's frame: the whole offset without calibration
  /// (R_target = W·R_clip·offset); applied after the calibrated offset with Calibration::Pose.
  Matrix3d offset = Matrix3d::Identity();
  double weight = 1.0;
  /// The canonical (Xsens) segment the pair stands for, when the model's frames are not named
  /// that way (robots): used to find the left-right hip axis for the heading. Empty: the model
  /// frame's name is used.
  std::string role = {};
};

/// Clip segment → model frame pairs through a segment map (clip → canonical names) and a robot
/// map (canonical → robot frames, io::builtinRobotMap): offsets compose (clip's, then robot's),
/// weights multiply; canonical segments the robot map lacks are dropped. Throws InvalidArgument
/// when no pair remains.
std::vector<SegmentPair> composeMaps(const io::SegmentMap& clip_map, const io::SegmentMap& robot_map);

enum class Calibration : std::uint8_t {
  /// Offsets as given (identity by default), clip world = model world: for clips whose segment
  /// frames are defined like the model's (MVNX on human-gazebo models: both are identity in the
  /// N-pose).
  None,
  /// Offsets from a calibration pose of the clip (its rest pose, a T-pose/N-pose frame): each
  /// model segment is turned, from the model's zero configuration, by the smallest rotation
  /// that points its bone (segment origin → next mapped segment down the chain; the centre of
  /// the next ones where the chain branches, as the trunk's two shoulders) like the clip's
  /// bone; the offset makes that the target at the calibration pose. The clip's heading is turned
  /// to the model's (left–right hip axis), and the root trajectory is scaled by the ratio of root
  /// heights and starts above the origin.
  Pose,
};

/// A point of the model's surface for the ground: a sphere of `radius` at `point` in the link's
/// frame (a contact sphere, a capsule's end, a box corner with radius 0).
struct SurfacePoint {
  LinkId link;
  Vector3d point = Vector3d::Zero();
  double radius = 0.0;
};

/// The surface points of a model's collision geoms (Model::geoms, collision = true), in their
/// links' frames: a sphere's centre with its radius, a capsule's two end centres with its radius,
/// a box's eight corners, a cylinder's rims (eight points each), an ellipsoid's six axis ends.
/// Meshes are left out (their vertices are not loaded here). Empty for a model without
/// collision primitives.
std::vector<SurfacePoint> surfacePoints(const Model& model);

/// The lowest point of `surface` along `up` at the configuration of `data` (after forward
/// kinematics): its height (m). With an empty `surface`, the lowest link origin.
double lowestSurfaceHeight(const Model& model, const Data& data, const std::vector<SurfacePoint>& surface,
                           const Vector3d& up);

struct RetargetOptions {
  Calibration calibration = Calibration::Pose;
  bool root_position = true;  ///< position target on the root segment's frame
  /// The model world's up direction (unit; the opposite of its gravity). Clips are Z up; for a
  /// Y-up model (OpenSim, −gravity = +Y) the clip world is first turned so that its Z is this
  /// axis, and the heading and the root height are taken about and along it.
  Vector3d model_up = Vector3d::UnitZ();
  /// Calibration::Pose: stand the model on the ground (height `ground_height` along model_up)
  /// as the person stands on theirs, and size the capture to the model by leg length. The
  /// capture's ground is where its lowest mapped point stands (the 5th percentile over the clip
  /// of the lowest mapped point's height, so a crouch or a jump in the calibration frame does not
  /// move it); the model's is its lowest `surface` point at the zero configuration, the feet
  /// straight (link origins when `surface` is empty). The scale is the model's leg length over
  /// the person's (hip → knee → ankle keypoints, the PoseAgreement's: the same in every pose of
  /// a rigid skeleton), else the ratio of root heights. Off: the clip's lowest calibration point
  /// on the model's lowest mapped point, root heights scaled (the model's floor is then that
  /// point's height with the base at the origin).
  bool stand_on_ground = false;
  double ground_height = 0.0;
  std::vector<SurfacePoint> surface;
  /// Factor on the root position target's weight (the orientation targets weigh 1 per rad, the
  /// position 1 per m by default: a robot whose soles are held then drops its pelvis to follow
  /// the orientations; 10 keeps the root height of the person's motion).
  double root_position_weight = 1.0;
};

struct Retargeting {
  std::vector<TargetBinding> bindings;
  ClipAlignment alignment;
  Configuration initial;                            ///< zero configuration with the base on the first target
  std::vector<std::string> model_frames_untracked;  ///< model frames with no target (report)
  /// Soles held on the ground while the person's feet are down (runTracking adds their targets
  /// after the bindings'); empty: none.
  std::optional<SoleContactPlan> soles;
};

/// Builds the bindings. `calibration_pose` is a clip with the same segments as `clip` whose
/// frame `calibration_frame` is the calibration pose (Calibration::Pose only; for BVH files
/// io::bvhRestPose gives the skeleton's rest pose). Throws InvalidArgument for an unknown clip
/// segment or model frame (listing the valid names), a frame mapped twice, an empty map, or an
/// invalid calibration sample.
Retargeting retarget(const Model& model, const io::MotionClip& clip, const std::vector<SegmentPair>& map,
                     const io::MotionClip* calibration_pose, int calibration_frame,
                     const RetargetOptions& options = {});

/// Every segment of a clip on the model built from it (`--model from-clip`): orientation
/// targets on the frames of the same names, identity offsets, a position target on the root.
Retargeting retargetFromClip(const Model& model, const io::MotionClip& clip);

/// Joint-angle error against ground truth on a model built from the clip, Euler-triple
/// independent: for every clip segment, the angle of the rotation between its true and its
/// tracked rotation relative to its parent segment (world rotation for the root) — the error of
/// a spherical joint. Two Euler-angle triples of the same rotation have zero error.
class SphericalJointError {
 public:
  /// Frames named like the clip's segments (modelFromBvh); throws InvalidArgument otherwise.
  SphericalJointError(const Model& model, const io::MotionClip& clip);
  /// Σ angle² (rad²) over the segments; `count` receives the number of segments.
  double sumSquared(const Configuration& tracked, const Configuration& truth, int& count);

 private:
  const Model& model_;
  std::vector<FrameId> frames_;
  std::vector<int> parent_;
  Data a_, b_;
};

/// Smallest rotation taking direction a to direction b (both non-zero).
Matrix3d rotationBetween(const Vector3d& a, const Vector3d& b);

}  // namespace kinetrack::track
