#pragma once
// Built-in human models (SPEC §1), generated without any file, with the link and joint names
// of the human-gazebo URDFs (23 Xsens segments: Pelvis, L5, L3, T12, T8, Neck, Head,
// Right/Left Shoulder, UpperArm, ForeArm, Hand, Right/Left UpperLeg, LowerLeg, Foot, Toe), so
// data and configurations are interchangeable with those models.
//
// Geometry: at s = 0 every segment frame is parallel to the Pelvis frame (x forward, y left,
// z up); arms point along ∓y, legs along −z. A segment with k DoF is reached through k revolute
// joints j<Name>_rotx → _roty → _rotz and k − 1 massless dummy links <Segment>_f1, _f2.
// Mass properties: each of the 23 segment links carries an Inertial from de Leva (1996) Table 4
// (docs/anthropometry.md: the table, the mapping onto the Xsens segments, the citation), scaled
// by body height (through the dimensions) and body mass; the dummy links stay massless.
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// Segment dimensions (m). fromHeight() scales textbook anthropometric proportions (segment
/// length / body height, after Winter's tables); any field may then be overridden.
struct HumanDimensions {
  double pelvis_to_l5 = 0, l5_to_l3 = 0, l3_to_t12 = 0, t12_to_t8 = 0, t8_to_neck = 0, neck_to_head = 0;
  double t8_to_shoulder_lateral = 0, t8_to_shoulder_vertical = 0;  ///< T8 → sterno-clavicular joint
  double clavicle = 0;        ///< sterno-clavicular → gleno-humeral joint (lateral)
  double upper_arm = 0;       ///< shoulder → elbow
  double forearm = 0;         ///< elbow → wrist
  double hand_com = 0;        ///< wrist → hand centre of mass frame (RightHandCOM / LeftHandCOM)
  double hip_half_width = 0;  ///< pelvis origin → hip joint centre (lateral)
  double thigh = 0;           ///< hip → knee
  double shank = 0;           ///< knee → ankle
  double ankle_to_ball_forward = 0, ankle_to_ball_down = 0;  ///< ankle → ball of the foot
  // End-segment lengths (no child joint to measure to), used only for the mass properties:
  double head_length = 0;  ///< C1Head joint → vertex (top of the head), along +z
  double hand_length = 0;  ///< wrist → tip of the middle finger, along the arm
  double toe_length = 0;   ///< ball of the foot → tip of the longest toe, along +x

  /// Proportions scaled to body height h (m). Throws InvalidArgument unless 0.5 ≤ h ≤ 2.5.
  static HumanDimensions fromHeight(double h);
};

/// Which column of de Leva's Table 4 gives the segment mass properties.
enum class Sex : std::uint8_t { Male, Female };

/// Default body mass (kg): the mean of de Leva's (1996) male reference sample (73.0 kg at
/// 1.741 m), whose proportions the table describes; the default height 1.75 m is close to it.
inline constexpr double kDefaultBodyMass = 73.0;

struct HumanModelOptions {
  HumanDimensions dimensions = HumanDimensions::fromHeight(1.75);
  BaseType base = BaseType::Floating;
  /// Body mass (kg), 20 to 300; the model's total mass equals it (Model::totalMass()).
  double mass = kDefaultBodyMass;
  Sex sex = Sex::Male;  ///< de Leva's male or female segment parameters
  /// human66 only: bound its joints (revolute instead of continuous) — an axis human48 has by
  /// human48's clinical limit widened by `limit_margin_deg` on each side, the other axes (a knee's
  /// and an elbow's x, a wrist's y, …) by ±`extra_axis_limit_deg`. Without bounds a 3-DoF
  /// Euler joint reaches any orientation on several branches, so a wrong labelling (a foot turned
  /// round under a heel/toe swap, a forearm rolled under a wrist-bar swap) fits as well as the
  /// right one; the labeller uses this (markers/labeller.hpp).
  bool clinical_limits = false;
  double limit_margin_deg = 15.0;
  double extra_axis_limit_deg = 30.0;
};

/// "human66" and "human48" throw InvalidArgument for a dimension outside [0, 2] m or a body mass
/// outside [20, 300] kg.
///
/// "human66": 22 spherical joints (x→y→z), 66 DoF, continuous (no position limits; Euler-angle
/// coordinates must be free to wrap), no velocity limits.
Model makeHuman66(const HumanModelOptions& options = {});

/// "human48": 48 DoF with the human-gazebo 48-DoF clinical axes and position limits; no
/// velocity limits.
Model makeHuman48(const HumanModelOptions& options = {});

/// The 23 Xsens segment names, root first: Pelvis, L5, L3, T12, T8, Neck, Head, RightShoulder,
/// RightUpperArm, RightForeArm, RightHand, LeftShoulder, …, RightUpperLeg, RightLowerLeg,
/// RightFoot, RightToe, LeftUpperLeg, …, LeftToe (links of human66/human48 and human-gazebo).
const std::vector<std::string>& humanSegmentNames();

/// Names accepted by makeBuiltinModel: "human66", "human48".
const std::vector<std::string>& builtinModelNames();

/// Builds a built-in model by name at the given body height (m) and body mass (kg, male
/// parameters). Throws InvalidArgument for an unknown name (listing the valid ones), a height
/// outside [0.5, 2.5] m or a mass outside [20, 300] kg.
Model makeBuiltinModel(std::string_view name, double height = 1.75, double mass = kDefaultBodyMass);

}  // namespace kinetrack
