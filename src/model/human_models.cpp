#include "kinetrack/model/human_models.hpp"

#include <cmath>

#include "anthropometry.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack {

HumanDimensions HumanDimensions::fromHeight(double h) {
  if (!(h >= 0.5 && h <= 2.5))
    throw InvalidArgument("human model: body height must be within [0.5, 2.5] m, got " + std::to_string(h));
  HumanDimensions d;
  // Trunk: hip height 0.530 h to C7 ≈ 0.818 h, split over the Xsens spine segments.
  d.pelvis_to_l5 = 0.056 * h;
  d.l5_to_l3 = 0.054 * h;
  d.l3_to_t12 = 0.049 * h;
  d.t12_to_t8 = 0.049 * h;
  d.t8_to_neck = 0.068 * h;
  d.neck_to_head = 0.051 * h;
  // Shoulders: biacromial width 0.259 h.
  d.t8_to_shoulder_lateral = 0.015 * h;
  d.t8_to_shoulder_vertical = 0.038 * h;
  d.clavicle = 0.1295 * h - d.t8_to_shoulder_lateral;
  d.upper_arm = 0.186 * h;
  d.forearm = 0.146 * h;
  d.hand_com = 0.5 * 0.108 * h;
  // Legs: hip-joint centres 0.096 h apart, thigh 0.245 h, shank 0.246 h, foot height 0.039 h.
  d.hip_half_width = 0.048 * h;
  d.thigh = 0.245 * h;
  d.shank = 0.246 * h;
  d.ankle_to_ball_forward = 0.55 * 0.152 * h;
  d.ankle_to_ball_down = 0.035 * h;
  // End segments (mass properties only): C1Head at 0.857 h, so the vertex is at h; hand length
  // 0.108 h; the foot's 0.152 h less the ankle → ball 55 %.
  d.head_length = 0.143 * h;
  d.hand_length = 0.108 * h;
  d.toe_length = 0.45 * 0.152 * h;
  return d;
}

namespace {

constexpr double kDeg = M_PI / 180.0;

struct Dof {
  char axis;         // 'x', 'y' or 'z'
  double lower_deg;  // clinical limits (human48)
  double upper_deg;
};

struct SegmentJoint {
  const char* joint;   // Xsens joint name without the 'j' and axis suffix, e.g. "RightKnee"
  const char* parent;  // parent segment
  const char* child;   // child segment
  Vector3d offset;     // child joint origin in the parent segment frame (m)
  std::vector<Dof> dofs48;
};

std::vector<SegmentJoint> segmentTable(const HumanDimensions& d) {
  // Limits of the human-gazebo 48-DoF model (DYN §4.2), in degrees; left side mirrored.
  // One joint per line, columns aligned.
  // clang-format off
  return {
      {"L5S1", "Pelvis", "L5", {0, 0, d.pelvis_to_l5}, {{'x', -35, 35}, {'y', -30, 75}}},
      {"L4L3", "L5", "L3", {0, 0, d.l5_to_l3}, {{'x', -35, 35}, {'y', -30, 75}}},
      {"L1T12", "L3", "T12", {0, 0, d.l3_to_t12}, {{'x', -35, 35}, {'y', -30, 75}}},
      {"T9T8", "T12", "T8", {0, 0, d.t12_to_t8}, {{'x', -20, 20}, {'y', -15, 40}, {'z', -35, 35}}},
      {"T1C7", "T8", "Neck", {0, 0, d.t8_to_neck}, {{'x', -35, 35}, {'y', -55, 90}, {'z', -70, 70}}},
      {"C1Head", "Neck", "Head", {0, 0, d.neck_to_head}, {{'x', -35, 35}, {'y', -25, 10}}},
      {"RightC7Shoulder", "T8", "RightShoulder", {0, -d.t8_to_shoulder_lateral, d.t8_to_shoulder_vertical}, {{'x', -45, 5}}},
      {"RightShoulder", "RightShoulder", "RightUpperArm", {0, -d.clavicle, 0}, {{'x', -135, 90}, {'y', -90, 90}, {'z', -45, 180}}},
      {"RightElbow", "RightUpperArm", "RightForeArm", {0, -d.upper_arm, 0}, {{'y', -90, 85}, {'z', 0, 145}}},
      {"RightWrist", "RightForeArm", "RightHand", {0, -d.forearm, 0}, {{'x', -50, 60}, {'z', -30, 20}}},
      {"LeftC7Shoulder", "T8", "LeftShoulder", {0, d.t8_to_shoulder_lateral, d.t8_to_shoulder_vertical}, {{'x', -5, 45}}},
      {"LeftShoulder", "LeftShoulder", "LeftUpperArm", {0, d.clavicle, 0}, {{'x', -90, 135}, {'y', -90, 90}, {'z', -180, 45}}},
      {"LeftElbow", "LeftUpperArm", "LeftForeArm", {0, d.upper_arm, 0}, {{'y', -90, 85}, {'z', -145, 0}}},
      {"LeftWrist", "LeftForeArm", "LeftHand", {0, d.forearm, 0}, {{'x', -60, 50}, {'z', -20, 30}}},
      {"RightHip", "Pelvis", "RightUpperLeg", {0, -d.hip_half_width, 0}, {{'x', -45, 30}, {'y', -120, 15}, {'z', -45, 45}}},
      {"RightKnee", "RightUpperLeg", "RightLowerLeg", {0, 0, -d.thigh}, {{'y', 0, 135}, {'z', -40, 30}}},
      {"RightAnkle", "RightLowerLeg", "RightFoot", {0, 0, -d.shank}, {{'x', -35, 45}, {'y', -30, 50}, {'z', -25, 50}}},
      {"RightBallFoot", "RightFoot", "RightToe", {d.ankle_to_ball_forward, 0, -d.ankle_to_ball_down}, {{'y', -10, 90}}},
      {"LeftHip", "Pelvis", "LeftUpperLeg", {0, d.hip_half_width, 0}, {{'x', -30, 45}, {'y', -120, 15}, {'z', -45, 45}}},
      {"LeftKnee", "LeftUpperLeg", "LeftLowerLeg", {0, 0, -d.thigh}, {{'y', 0, 135}, {'z', -30, 40}}},
      {"LeftAnkle", "LeftLowerLeg", "LeftFoot", {0, 0, -d.shank}, {{'x', -45, 35}, {'y', -30, 50}, {'z', -50, 25}}},
      {"LeftBallFoot", "LeftFoot", "LeftToe", {d.ankle_to_ball_forward, 0, -d.ankle_to_ball_down}, {{'y', -10, 90}}},
  };
  // clang-format on
}

Vector3d unitAxis(char a) { return a == 'x' ? Vector3d::UnitX() : a == 'y' ? Vector3d::UnitY() : Vector3d::UnitZ(); }

Model makeHuman(const HumanModelOptions& options, bool full66) {
  const HumanDimensions& d = options.dimensions;
  for (double v : {d.pelvis_to_l5,
                   d.l5_to_l3,
                   d.l3_to_t12,
                   d.t12_to_t8,
                   d.t8_to_neck,
                   d.neck_to_head,
                   d.t8_to_shoulder_lateral,
                   d.t8_to_shoulder_vertical,
                   d.clavicle,
                   d.upper_arm,
                   d.forearm,
                   d.hand_com,
                   d.hip_half_width,
                   d.thigh,
                   d.shank,
                   d.ankle_to_ball_forward,
                   d.ankle_to_ball_down,
                   d.head_length,
                   d.hand_length,
                   d.toe_length})
    if (!std::isfinite(v) || v < 0.0 || v > 2.0)
      throw InvalidArgument("human model: every segment dimension must be finite and within [0, 2] m");
  if (full66 && options.clinical_limits &&
      !(options.limit_margin_deg >= 0.0 && options.limit_margin_deg <= 180.0 && options.extra_axis_limit_deg > 0.0 &&
        options.extra_axis_limit_deg <= 180.0))
    throw InvalidArgument(
        "human66 clinical limits: limit_margin_deg must be within [0, 180] and extra_axis_limit_deg within (0, 180]");
  const std::vector<detail::SegmentInertial> inertials = detail::humanSegmentInertials(d, options.mass, options.sex);
  auto inertialOf = [&](const std::string& link) {
    for (const auto& s : inertials)
      if (s.link == link) return s.inertial;
    return Inertial{};  // not reached: every segment has one
  };
  ModelBuilder b(full66 ? "human66" : "human48", "Pelvis", options.base, inertialOf("Pelvis"));
  for (const SegmentJoint& s : segmentTable(d)) {
    std::vector<Dof> dofs = s.dofs48;
    if (full66) {
      // x, y, z; an axis human48 has keeps its limits (used with clinical_limits).
      const double e = options.extra_axis_limit_deg, w = options.limit_margin_deg;
      dofs = {{'x', -e, e}, {'y', -e, e}, {'z', -e, e}};
      for (const Dof& d48 : s.dofs48)
        for (Dof& d : dofs)
          if (d.axis == d48.axis) d = {d.axis, d48.lower_deg - w, d48.upper_deg + w};
    }
    const bool limited = !full66 || options.clinical_limits;
    std::string parent = s.parent;
    for (std::size_t k = 0; k < dofs.size(); ++k) {
      JointSpec j;
      j.name = std::string("j") + s.joint + "_rot" + dofs[k].axis;
      j.type = limited ? JointType::Revolute : JointType::Continuous;
      j.parent = parent;
      j.child = k + 1 == dofs.size() ? std::string(s.child) : std::string(s.child) + "_f" + std::to_string(k + 1);
      if (k == 0) j.placement.p = s.offset;
      if (k + 1 == dofs.size()) j.child_inertial = inertialOf(s.child);  // dummy links stay massless
      j.axis = unitAxis(dofs[k].axis);
      if (limited) {
        j.lower = dofs[k].lower_deg * kDeg;
        j.upper = dofs[k].upper_deg * kDeg;
      }
      b.addJoint(j);
      parent = j.child;
    }
    // Hand centre-of-mass frames right after their hand, as in the human-gazebo files.
    const std::string child = s.child;
    if (child == "RightHand" || child == "LeftHand") {
      Transform com;
      com.p = {0, child == "RightHand" ? -d.hand_com : d.hand_com, 0};
      b.addFixedLink(child + "COM", child, com, {}, "j" + child + "COM");
    }
  }
  return b.build();
}

}  // namespace

Model makeHuman66(const HumanModelOptions& options) { return makeHuman(options, true); }
Model makeHuman48(const HumanModelOptions& options) { return makeHuman(options, false); }

const std::vector<std::string>& humanSegmentNames() {
  // Xsens order: pelvis, spine, head, right arm, left arm, right leg, left leg.
  // clang-format off
  static const std::vector<std::string> names = {
      "Pelvis", "L5", "L3", "T12", "T8", "Neck", "Head",
      "RightShoulder", "RightUpperArm", "RightForeArm", "RightHand",
      "LeftShoulder", "LeftUpperArm", "LeftForeArm", "LeftHand",
      "RightUpperLeg", "RightLowerLeg", "RightFoot", "RightToe",
      "LeftUpperLeg", "LeftLowerLeg", "LeftFoot", "LeftToe"};
  // clang-format on
  return names;
}

const std::vector<std::string>& builtinModelNames() {
  static const std::vector<std::string> names = {"human66", "human48"};
  return names;
}

Model makeBuiltinModel(std::string_view name, double height, double mass) {
  HumanModelOptions o;
  o.dimensions = HumanDimensions::fromHeight(height);
  o.mass = mass;
  if (name == "human66") return makeHuman66(o);
  if (name == "human48") return makeHuman48(o);
  throw InvalidArgument("unknown built-in model '" + std::string(name) + "'; valid: human66, human48");
}

}  // namespace kinetrack
