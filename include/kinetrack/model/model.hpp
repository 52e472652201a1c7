#pragma once
// The immutable multibody model: a tree of links joined by 1-DoF joints, a fixed or floating
// base, joint limits, linear joint constraints, frames and geometric shapes (geoms) rigidly
// attached to links. Built by ModelBuilder (model_builder.hpp) or a loader (io/model/urdf.hpp,
// io/model/mjcf.hpp); per-thread scratch lives
// in Data (data.hpp). All arrays are flat and ordered parents before children.
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/joint_function.hpp"

namespace kinetrack {

enum class BaseType : std::uint8_t { Fixed, Floating };
/// Revolute / Continuous / Prismatic: rotation by s about, or translation by s along, a fixed
/// axis. Custom: a function-driven motion M(s) (model/joint_function.hpp; OpenSim CustomJoint).
enum class JointType : std::uint8_t { Revolute, Continuous, Prismatic, Custom };

/// How a joint axis is stored, so forward kinematics can skip the general axis-angle formula
/// for joints about ±x, ±y, ±z of their joint frame (every human-model joint).
enum class AxisKind : std::uint8_t { X, Y, Z, NegX, NegY, NegZ, General };

/// Why a frame exists: the body frame of a link, a link merged away by a fixed joint (URDF),
/// or one added by the user (marker, sensor, target site).
enum class FrameKind : std::uint8_t { Link, Fixed, User };

const char* toString(BaseType t);
const char* toString(JointType t);
const char* toString(FrameKind k);

/// Shape of a Geom. Planes (MJCF's floor) are not link geometry and have no shape here.
enum class GeomShape : std::uint8_t { Sphere, Capsule, Cylinder, Box, Ellipsoid, Mesh };
const char* toString(GeomShape s);

/// A rigid transform: rotation R and translation p (maps child coordinates to parent ones).
struct Transform {
  Matrix3d R = Matrix3d::Identity();
  Vector3d p = Vector3d::Zero();
};

/// Mass properties of a link in its own frame (URDF <inertial>); mass 0 for massless links.
struct Inertial {
  double mass = 0.0;
  Vector3d com = Vector3d::Zero();      ///< centre of mass in the link frame (m)
  Matrix3d inertia = Matrix3d::Zero();  ///< rotational inertia about the COM, link axes (kg m²)
};

/// One row of the linear joint constraints lower ≤ a·s ≤ upper (DYN Eq. 11), with the velocity
/// bound b_ν used by the limit-avoidance shaping (Eq. 13). ±infinity means no bound.
struct LinearConstraint {
  std::string name;
  VectorXd coefficients;  ///< (n_joints), one entry per joint
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  double velocity_bound = std::numeric_limits<double>::infinity();  ///< b_ν ≥ 0 (rad/s)
};

/// A URDF <mimic> relation s_joint = multiplier·s_master + offset, kept as information and
/// enforced as an equality LinearConstraint named "mimic:<joint>".
struct Mimic {
  JointId joint;
  JointId master;
  double multiplier = 1.0;
  double offset = 0.0;
};

/// A geometric shape rigidly attached to a link: collision geometry (self-collision, ground
/// contact) and what a viewer draws. URDF <collision> and <visual> elements and MJCF <geom>s.
/// The shape's own frame is `placement` in the link frame; a capsule's and a cylinder's axis is
/// the shape frame's z, centred on its origin. Mesh vertices are not loaded: `mesh` is the path.
struct Geom {
  /// Unique in practice, not checked (URDF files repeat names); readers give unnamed geoms a
  /// stable default ("<source link or body>/geom<k>", see the readers), the builder
  /// "<link>/geom<k>" (k counting that link's geoms).
  std::string name;
  /// The moving link it is attached to (after fixed-joint merging); set by ModelBuilder::addGeom.
  LinkId link;
  Transform placement;  ///< shape frame in the link frame
  GeomShape shape = GeomShape::Sphere;
  /// Sphere: (radius, 0, 0); Capsule and Cylinder: (radius, half-length along the shape's z, 0);
  /// Box: half extents; Ellipsoid: semi-axes; Mesh: the scale applied to the file's vertices.
  /// Metres (a mesh's scale is unitless).
  Vector3d size = Vector3d::Zero();
  /// Mesh only: the file's absolute path as resolved by the reader (the file may be missing).
  std::string mesh;
  bool collision = true;          ///< used for collision (URDF <collision>; MJCF contype | conaffinity ≠ 0)
  bool visual = false;            ///< drawn (URDF <visual>; MJCF group 0–2, what MuJoCo's viewer shows)
  std::uint32_t contype = 1;      ///< MJCF's collision bit masks (URDF: 1, 1)
  std::uint32_t conaffinity = 1;  ///< (two geoms may collide when either's contype & the other's conaffinity)
  int group = 0;                  ///< MJCF's group (URDF: 0)
  Vector4d rgba = Vector4d(0.5, 0.5, 0.5, 1.0);  ///< colour, each in [0, 1]
};

class ModelBuilder;

/// Immutable kinematic model. Link 0 is the root (the base); joint j moves link j + 1, so
/// joint j's coordinate is s[j] and its velocity column is nvBase() + j.
class Model {
 public:
  Model() = default;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] BaseType baseType() const { return base_type_; }
  /// Number of 1-DoF joints n (the length of s).
  [[nodiscard]] int numJoints() const { return static_cast<int>(joint_names_.size()); }
  /// Number of base velocity coordinates: 6 for a floating base, 0 for a fixed one.
  [[nodiscard]] int nvBase() const { return base_type_ == BaseType::Floating ? 6 : 0; }
  /// Dimension of the velocity ν = (ṗ_B, ω_B, ṡ): nvBase() + numJoints().
  [[nodiscard]] int nv() const { return nvBase() + numJoints(); }
  [[nodiscard]] int numLinks() const { return static_cast<int>(link_names_.size()); }
  [[nodiscard]] int numFrames() const { return static_cast<int>(frame_names_.size()); }

  // --- names and ids ------------------------------------------------------------------------
  /// Resolve a name; throw InvalidArgument listing the valid names when unknown.
  [[nodiscard]] LinkId linkId(std::string_view name) const;
  [[nodiscard]] JointId jointId(std::string_view name) const;
  [[nodiscard]] FrameId frameId(std::string_view name) const;
  [[nodiscard]] std::optional<LinkId> findLink(std::string_view name) const;
  [[nodiscard]] std::optional<JointId> findJoint(std::string_view name) const;
  [[nodiscard]] std::optional<FrameId> findFrame(std::string_view name) const;
  [[nodiscard]] const std::string& linkName(LinkId l) const { return link_names_[l.value]; }
  [[nodiscard]] const std::string& jointName(JointId j) const { return joint_names_[j.value]; }
  [[nodiscard]] const std::string& frameName(FrameId f) const { return frame_names_[f.value]; }
  [[nodiscard]] const std::vector<std::string>& linkNames() const { return link_names_; }
  [[nodiscard]] const std::vector<std::string>& jointNames() const { return joint_names_; }
  [[nodiscard]] const std::vector<std::string>& frameNames() const { return frame_names_; }

  // --- tree ---------------------------------------------------------------------------------
  /// Parent link of l (invalid id for the root).
  [[nodiscard]] LinkId parent(LinkId l) const { return LinkId(link_parent_[l.value]); }
  /// The joint that moves link l (invalid for the root).
  [[nodiscard]] JointId jointOfLink(LinkId l) const { return JointId(l.value - 1); }
  /// The link joint j moves.
  [[nodiscard]] LinkId childLink(JointId j) const { return LinkId(j.value + 1); }
  [[nodiscard]] LinkId parentLink(JointId j) const { return LinkId(link_parent_[j.value + 1]); }
  /// Joints on the path root → l, root side first: the only joints with non-zero Jacobian
  /// columns for frames on l.
  [[nodiscard]] const std::vector<std::int32_t>& support(LinkId l) const { return support_[l.value]; }
  [[nodiscard]] const Inertial& inertial(LinkId l) const { return inertials_[l.value]; }
  /// Sum of the link masses (kg); 0 for a kinematic model.
  [[nodiscard]] double totalMass() const;
  /// A copy with link l's mass properties replaced (e.g. OpenSim RRA's mass-centre adjustment).
  /// Throws InvalidArgument for an unknown link, a negative or non-finite mass, or a non-finite
  /// centre of mass or inertia.
  [[nodiscard]] Model withInertial(LinkId l, const Inertial& inertial) const;

  // --- joints -------------------------------------------------------------------------------
  [[nodiscard]] JointType jointType(JointId j) const { return joint_type_[j.value]; }
  /// Unit axis in the joint frame.
  [[nodiscard]] const Vector3d& jointAxis(JointId j) const { return joint_axis_[j.value]; }
  [[nodiscard]] AxisKind axisKind(JointId j) const { return axis_kind_[j.value]; }
  /// Placement of the joint frame in the parent link frame (the URDF <origin>).
  [[nodiscard]] const Transform& jointPlacement(JointId j) const { return placement_[j.value]; }
  [[nodiscard]] bool placementRotationIsIdentity(JointId j) const { return placement_rot_identity_[j.value] != 0; }
  [[nodiscard]] bool placementTranslationIsZero(JointId j) const { return placement_trans_zero_[j.value] != 0; }
  /// Position limits (rad or m); ±infinity for continuous joints.
  [[nodiscard]] const VectorXd& lowerPositionLimits() const { return lower_; }
  [[nodiscard]] const VectorXd& upperPositionLimits() const { return upper_; }
  /// Velocity limits (rad/s or m/s), symmetric in URDF; ±infinity when not given.
  [[nodiscard]] const VectorXd& lowerVelocityLimits() const { return vel_lower_; }
  [[nodiscard]] const VectorXd& upperVelocityLimits() const { return vel_upper_; }
  /// Effort limits (N m or N); infinity when not given.
  [[nodiscard]] const VectorXd& effortLimits() const { return effort_; }
  /// The motion of a JointType::Custom joint (empty for the other types).
  [[nodiscard]] const JointMotion& jointMotion(JointId j) const { return motions_[j.value]; }
  /// True when some joint is JointType::Custom (algorithms that need a fixed axis refuse such
  /// models: the rigid-body dynamics and DYN's composite reduction).
  [[nodiscard]] bool hasCustomJoints() const { return has_custom_; }
  [[nodiscard]] const std::vector<LinearConstraint>& linearConstraints() const { return constraints_; }
  [[nodiscard]] const std::vector<Mimic>& mimics() const { return mimics_; }
  /// The world's up direction (unit): +Z for kinetrack's models, URDF and MJCF, +Y for OpenSim
  /// models (against their gravity). Marker data must come in the same axes (io::MarkerTrajectories::up).
  [[nodiscard]] const Vector3d& up() const { return up_; }

  // --- frames -------------------------------------------------------------------------------
  /// Link the frame is attached to.
  [[nodiscard]] LinkId frameLink(FrameId f) const { return LinkId(frame_link_[f.value]); }
  /// Placement of the frame in its link's frame.
  [[nodiscard]] const Transform& framePlacement(FrameId f) const { return frame_placement_[f.value]; }
  [[nodiscard]] FrameKind frameKind(FrameId f) const { return frame_kind_[f.value]; }
  /// For a Fixed frame from a URDF, the name of the fixed joint that attached it (else empty).
  [[nodiscard]] const std::string& frameJointName(FrameId f) const { return frame_joint_name_[f.value]; }
  /// For a Fixed frame, the frame it was attached to in the source tree (its URDF parent link).
  [[nodiscard]] FrameId frameParent(FrameId f) const { return FrameId(frame_parent_[f.value]); }
  /// Body frame of a link (always exists, same name as the link).
  [[nodiscard]] FrameId linkFrame(LinkId l) const { return FrameId(link_frame_[l.value]); }
  /// True when the frame coincides with its link's body frame (no placement to apply).
  [[nodiscard]] bool frameIsLinkFrame(FrameId f) const { return frame_is_link_[f.value] != 0; }

  // --- geometry -----------------------------------------------------------------------------
  /// The geoms (each with its link and link-relative placement), grouped by link in link order,
  /// in the order they were added within a link.
  [[nodiscard]] const std::vector<Geom>& geoms() const { return geoms_; }

 private:
  friend class ModelBuilder;

  std::string name_;
  BaseType base_type_ = BaseType::Floating;
  Vector3d up_ = Vector3d::UnitZ();

  std::vector<std::string> link_names_;
  std::vector<std::int32_t> link_parent_;
  std::vector<std::int32_t> link_frame_;
  std::vector<std::vector<std::int32_t>> support_;
  std::vector<Inertial> inertials_;

  std::vector<std::string> joint_names_;
  std::vector<JointType> joint_type_;
  std::vector<Vector3d> joint_axis_;
  std::vector<AxisKind> axis_kind_;
  std::vector<JointMotion> motions_;
  bool has_custom_ = false;
  std::vector<Transform> placement_;
  std::vector<std::uint8_t> placement_rot_identity_;
  std::vector<std::uint8_t> placement_trans_zero_;
  VectorXd lower_, upper_, vel_lower_, vel_upper_, effort_;
  std::vector<LinearConstraint> constraints_;
  std::vector<Mimic> mimics_;

  std::vector<std::string> frame_names_;
  std::vector<std::int32_t> frame_link_;
  std::vector<Transform> frame_placement_;
  std::vector<FrameKind> frame_kind_;
  std::vector<std::string> frame_joint_name_;
  std::vector<std::int32_t> frame_parent_;
  std::vector<std::uint8_t> frame_is_link_;

  std::unordered_map<std::string, std::int32_t> link_index_, joint_index_, frame_index_;

  std::vector<Geom> geoms_;
};

}  // namespace kinetrack
