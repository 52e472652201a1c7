#pragma once
// ModelBuilder: assembles a Model link by link, parents before children, and validates it.
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// A moving (1-DoF) joint and the new child link it creates.
struct JointSpec {
  std::string name;
  JointType type = JointType::Revolute;
  std::string parent;                 ///< an existing link or frame (e.g. a link merged by a fixed joint)
  std::string child;                  ///< name of the new link
  Transform placement;                ///< joint frame in the parent frame (URDF <origin>)
  Vector3d axis = Vector3d::UnitZ();  ///< in the joint frame; normalised by the builder
  /// JointType::Custom only: the motion M(s) (axes normalised by the builder; `axis` is then
  /// the first rotation axis, or the first translation axis when there is no rotation).
  JointMotion motion;
  double lower = -std::numeric_limits<double>::infinity();  ///< rad or m
  double upper = std::numeric_limits<double>::infinity();
  double velocity = std::numeric_limits<double>::infinity();  ///< symmetric bound, rad/s or m/s
  double effort = std::numeric_limits<double>::infinity();
  Inertial child_inertial;
};

/// Builds a Model. Every call validates its input and throws InvalidArgument naming the
/// offending element ("joint 'elbow': parent 'arm' is not a link or frame; known: ...").
class ModelBuilder {
 public:
  ModelBuilder(std::string model_name, std::string root_link, BaseType base = BaseType::Floating,
               Inertial root_inertial = {});

  /// Starts from an existing model (same links, joints, frames, constraints, mimics, in the same
  /// order), e.g. to add markers or coupled-joint constraints to a loaded URDF; build() then
  /// returns a model identical to `model` plus whatever was added.
  explicit ModelBuilder(const Model& model);

  /// Adds a moving joint and its child link. Continuous joints ignore lower/upper.
  ModelBuilder& addJoint(const JointSpec& spec);

  /// Adds a link rigidly attached to `parent` (link or frame) by a fixed joint: it becomes a
  /// Fixed frame of the parent's link (its inertia is merged into that link), and later joints
  /// and frames may name it as their parent.
  ModelBuilder& addFixedLink(const std::string& name, const std::string& parent, const Transform& placement,
                             const Inertial& inertial = {}, const std::string& joint_name = {});

  /// Adds a user frame (marker, sensor, target site) rigidly attached to `parent` (link or frame).
  ModelBuilder& addFrame(const std::string& name, const std::string& parent, const Transform& placement);

  /// Adds a geom attached to `parent` (a link or frame): geom.placement is in the parent's frame
  /// and is composed with the frame's placement when the parent is a merged (Fixed) or User
  /// frame; geom.link is set to the parent's link. An empty geom.name becomes "<link>/geom<k>"
  /// (k: the number of geoms already on that link). Throws InvalidArgument naming the geom for an
  /// unknown parent (listing the links and frames), a non-finite or non-rotation placement, a
  /// size that is not finite and positive where the shape uses it (sphere: x; capsule and
  /// cylinder: x, y; box and ellipsoid: x, y, z), a mesh scale with a zero or non-finite entry,
  /// a mesh geom without a path, or a non-finite colour. build() orders the geoms by link.
  ModelBuilder& addGeom(const std::string& parent, const Geom& geom);

  /// Replaces the velocity limit (rad/s or m/s, > 0) of an added joint, e.g. a URDF placeholder.
  /// Throws InvalidArgument for an unknown joint (listing the joints) or a limit ≤ 0 or NaN.
  ModelBuilder& setVelocityLimit(const std::string& joint, double limit);

  /// Adds lower ≤ Σ c_k s_{joint_k} ≤ upper with velocity bound b_ν (DYN Eq. 11–13).
  ModelBuilder& addLinearConstraint(const std::string& name, const std::vector<std::pair<std::string, double>>& terms,
                                    double lower, double upper,
                                    double velocity_bound = std::numeric_limits<double>::infinity());

  /// Records s_joint = multiplier·s_master + offset and adds it as an equality constraint.
  /// The world's up direction of the model (Model::up; default +Z). Throws InvalidArgument unless
  /// finite and of unit length (±1e-9).
  ModelBuilder& setUp(const Vector3d& up);
  ModelBuilder& addMimic(const std::string& joint, const std::string& master, double multiplier, double offset);

  [[nodiscard]] bool hasName(const std::string& name) const;
  [[nodiscard]] int numJoints() const { return static_cast<int>(joints_.size()); }

  /// Validates and returns the model. The builder may be reused afterwards.
  [[nodiscard]] Model build() const;

 private:
  struct FrameEntry {
    std::string name;
    int link;
    Transform placement;  // in the link frame
    FrameKind kind;
    std::string joint_name;
    int parent_frame;
  };
  struct ConstraintEntry {
    std::string name;
    std::vector<std::pair<std::string, double>> terms;
    double lower, upper, velocity_bound;
  };
  struct MimicEntry {
    std::string joint, master;
    double multiplier, offset;
  };
  int frameIndex(const std::string& name, const std::string& context) const;
  int linkFrameIndex(int link) const;

  std::string model_name_;
  BaseType base_;
  Vector3d up_ = Vector3d::UnitZ();
  std::vector<int> link_parent_;
  std::vector<Inertial> inertials_;
  std::vector<JointSpec> joints_;
  std::vector<FrameEntry> frames_;  // link frames, fixed frames and user frames, in insertion order
  std::vector<ConstraintEntry> constraints_;
  std::vector<MimicEntry> mimics_;
  std::vector<Geom> geoms_;  // placements in the link frame, links set
};

/// Composition a ∘ b (b expressed in a's child frame).
inline Transform compose(const Transform& a, const Transform& b) { return {a.R * b.R, a.p + a.R * b.p}; }
/// Inverse transform.
inline Transform inverse(const Transform& a) { return {a.R.transpose(), -(a.R.transpose() * a.p)}; }

/// Mass properties of two rigid bodies joined, in the frame of the first; `b_in_a` places the
/// second body's frame in the first's.
Inertial combineInertials(const Inertial& a, const Inertial& b, const Transform& b_in_a);

/// The JointSpec that re-creates joint j of `model`: names, type, placement, axis, limits and
/// the child link's inertial.
JointSpec jointSpecOf(const Model& model, JointId j);

/// The (joint name, coefficient) terms of a linear row of `model`, as addLinearConstraint takes
/// them (zero coefficients left out).
std::vector<std::pair<std::string, double>> rowTermsOf(const Model& model, const LinearConstraint& row);

}  // namespace kinetrack
