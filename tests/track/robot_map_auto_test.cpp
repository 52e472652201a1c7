// Robot maps (issue 38): the built-in maps of the Unitree G1 (29 and 23 DoF), H1, H1-2 and the
// iCub are detected from the robot's names; the automatic map (track::autoRobotMap) finds the same
// links from the tree and the zero pose, also on a G1 whose links and joints are renamed and whose
// children are listed in another order; what it cannot find is named in the error.
#include "kinetrack/track/robot_map_auto.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "testing/robot_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::track {
namespace KINETRACK_UNITY_ID {

// canonical segment → robot frame
std::map<std::string, std::string> segmentsOf(const io::SegmentMap& map) {
  std::map<std::string, std::string> out;
  for (const io::SegmentMapEntry& e : map.entries) out[e.clip_segment] = e.model_frame;
  return out;
}

// One revolute joint of a synthetic robot: name, parent, child, origin xyz and rpy, axis.
struct J {
  std::string name, parent, child;
  Vector3d xyz, rpy, axis;  // (Eigen leaves a {} Vector3d uninitialised: every J gives all three)
};

// The left joints mirrored to the right: "left_" → "right_", y → −y, roll and yaw → −roll, −yaw.
std::vector<J> withRight(const std::vector<J>& left) {
  std::vector<J> out = left;
  auto mirror = [](std::string s) {
    for (const std::string from : {"left_", "L_"})
      for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + 1))
        s.replace(p, from.size(), from == "left_" ? "right_" : "R_");
    return s;
  };
  for (J j : left) {
    if (j.name.find("left_") == std::string::npos && j.name.find("L_") == std::string::npos) continue;
    j.name = mirror(j.name), j.parent = mirror(j.parent), j.child = mirror(j.child);
    j.xyz.y() = -j.xyz.y();
    j.rpy.x() = -j.rpy.x(), j.rpy.z() = -j.rpy.z();
    out.push_back(j);
  }
  return out;
}

Model build(const std::string& name, const std::vector<J>& joints,
            const std::vector<std::pair<std::string, std::string>>& fixed = {}) {
  ModelBuilder b(name, "pelvis", BaseType::Floating);
  for (const J& j : joints) {
    JointSpec s;
    s.name = j.name, s.parent = j.parent, s.child = j.child;
    s.placement.R = so3::fromRpy(j.rpy), s.placement.p = j.xyz;
    s.axis = j.axis, s.lower = -2.0, s.upper = 2.0, s.velocity = 20.0;
    b.addJoint(s);
  }
  for (const auto& [frame, parent] : fixed) b.addFixedLink(frame, parent, Transform{});
  return b.build();
}

const Vector3d X = Vector3d::UnitX(), Y = Vector3d::UnitY(), Z = Vector3d::UnitZ(), O = Vector3d::Zero();

// The Unitree H1-2 by the names of unitree_ros h1_2.urdf, its joint origins rounded, with two
// fingers on each hand (the real hand has six; only the branching matters).
Model makeH12() {
  std::vector<J> j = {
      {"left_hip_yaw_joint", "pelvis", "left_hip_yaw_link", {0, 0.0875, -0.1632}, O, Z},
      {"left_hip_pitch_joint", "left_hip_yaw_link", "left_hip_pitch_link", {0, 0.0755, 0}, O, Y},
      {"left_hip_roll_joint", "left_hip_pitch_link", "left_hip_roll_link", {0, 0, 0}, O, X},
      {"left_knee_joint", "left_hip_roll_link", "left_knee_link", {0, 0, -0.4}, O, Y},
      {"left_ankle_pitch_joint", "left_knee_link", "left_ankle_pitch_link", {0, 0, -0.4}, O, Y},
      {"left_ankle_roll_joint", "left_ankle_pitch_link", "left_ankle_roll_link", {0, 0, -0.02}, O, X},
      {"torso_joint", "pelvis", "torso_link", {0, 0, 0}, O, Z},
      {"left_shoulder_pitch_joint", "torso_link", "left_shoulder_pitch_link", {0, 0.148, 0.423}, {0.2618, 0, 0}, Y},
      {"left_shoulder_roll_joint",
       "left_shoulder_pitch_link",
       "left_shoulder_roll_link",
       {0.034, 0.062, -0.006},
       {-0.2618, 0, 0},
       X},
      {"left_shoulder_yaw_joint", "left_shoulder_roll_link", "left_shoulder_yaw_link", {-0.034, 0, -0.146}, O, Z},
      {"left_elbow_joint", "left_shoulder_yaw_link", "left_elbow_link", {0.006, 0.033, -0.182}, O, Y},
      {"left_wrist_roll_joint", "left_elbow_link", "left_wrist_roll_link", {0.121, -0.033, -0.011}, O, X},
      {"left_wrist_pitch_joint", "left_wrist_roll_link", "left_wrist_pitch_link", {0.087, 0, 0}, O, Y},
      {"left_wrist_yaw_joint", "left_wrist_pitch_link", "left_wrist_yaw_link", {0.02, 0, 0}, O, Z},
      {"L_index_joint", "left_wrist_yaw_link", "L_index_link", {0.12, 0.02, 0}, O, Y},
      {"L_thumb_joint", "left_wrist_yaw_link", "L_thumb_link", {0.06, -0.03, 0}, O, Z},
  };
  return build("h1_2", withRight(j),
               {{"imu_link", "torso_link"}, {"logo_link", "torso_link"}, {"camera_link", "torso_link"}});
}

// The Unitree G1 with 23 DoF by the names of unitree_ros g1_23dof.urdf, joint origins rounded.
Model makeG1Dof23() {
  std::vector<J> j = {
      {"left_hip_pitch_joint", "pelvis", "left_hip_pitch_link", {0, 0.0645, -0.1027}, O, Y},
      {"left_hip_roll_joint", "left_hip_pitch_link", "left_hip_roll_link", {0, 0.052, -0.0305}, {0, -0.1749, 0}, X},
      {"left_hip_yaw_joint", "left_hip_roll_link", "left_hip_yaw_link", {0.025, 0, -0.124}, O, Z},
      {"left_knee_joint", "left_hip_yaw_link", "left_knee_link", {-0.078, 0.002, -0.177}, {0, 0.1749, 0}, Y},
      {"left_ankle_pitch_joint", "left_knee_link", "left_ankle_pitch_link", {0, 0, -0.3}, O, Y},
      {"left_ankle_roll_joint", "left_ankle_pitch_link", "left_ankle_roll_link", {0, 0, -0.0176}, O, X},
      {"waist_yaw_joint", "pelvis", "torso_link", {-0.004, 0, 0.054}, O, Z},
      {"left_shoulder_pitch_joint",
       "torso_link",
       "left_shoulder_pitch_link",
       {0.004, 0.1002, 0.2378},
       {0.2793, 0, 0},
       Y},
      {"left_shoulder_roll_joint",
       "left_shoulder_pitch_link",
       "left_shoulder_roll_link",
       {0, 0.038, -0.0138},
       {-0.2793, 0, 0},
       X},
      {"left_shoulder_yaw_joint", "left_shoulder_roll_link", "left_shoulder_yaw_link", {0, 0.0062, -0.1032}, O, Z},
      {"left_elbow_joint", "left_shoulder_yaw_link", "left_elbow_link", {0.0158, 0, -0.0805}, O, Y},
      {"left_wrist_roll_joint", "left_elbow_link", "left_wrist_roll_rubber_hand", {0.1, 0.0019, -0.01}, O, X},
  };
  return build("g1_23dof", withRight(j),
               {{"head_link", "torso_link"},
                {"logo_link", "torso_link"},
                {"waist_yaw_fixed_link", "torso_link"},
                {"pelvis_contour_link", "pelvis"}});
}

// A toy humanoid of `legs` legs and `arms` arms (left first), the legs' hips `hip_y` m to the side.
// Names say nothing unless `named`.
Model makeToy(int legs, int arms, double hip_y = 0.1, bool named = false) {
  std::vector<J> j;
  const char* side[2] = {named ? "l_" : "a", named ? "r_" : "b"};
  for (int k = 0; k < legs; ++k) {
    const std::string s = side[k];
    const double y = k == 0 ? hip_y : -hip_y;
    j.push_back({s + "j1", "pelvis", s + "k1", {0, y, -0.1}, O, Z});
    j.push_back({s + "j2", s + "k1", s + "k2", {0, 0, 0}, O, X});
    j.push_back({s + "j3", s + "k2", s + "k3", {0, 0, 0}, O, Y});
    j.push_back({s + "j4", s + "k3", s + "k4", {0, 0, -0.42}, O, Y});
    j.push_back({s + "j5", s + "k4", s + "k5", {0, 0, -0.4}, O, Y});
    j.push_back({s + "j6", s + "k5", s + "k6", {0, 0, 0}, O, X});
  }
  j.push_back({"waist", "pelvis", "chest", {0, 0, 0.1}, O, Z});
  for (int k = 0; k < arms; ++k) {
    const std::string s = std::string(side[k]) + "arm";
    const double y = k == 0 ? 0.2 : -0.2;
    j.push_back({s + "1", "chest", s + "_1", {0, y, 0.35}, O, Y});
    j.push_back({s + "2", s + "_1", s + "_2", {0, 0, 0}, O, X});
    j.push_back({s + "3", s + "_2", s + "_3", {0, 0, -0.05}, O, Z});
    j.push_back({s + "4", s + "_3", s + "_4", {0, 0, -0.25}, O, Y});
    j.push_back({s + "5", s + "_4", s + "_5", {0, 0, -0.25}, O, Y});
  }
  j.push_back({"neck", "chest", "skull", {0, 0, 0.45}, O, Z});
  return build("toy", j);
}

void expectAutoEqualsBuiltin(const Model& robot, const std::string& builtin) {
  EXPECT_EQ(resolveRobotMap(robot, "").name, builtin);
  const auto expected = segmentsOf(io::builtinRobotMap(builtin));
  const io::SegmentMap automatic = autoRobotMap(robot);
  EXPECT_EQ(automatic.name, "auto");
  EXPECT_EQ(segmentsOf(automatic), expected) << automatic.description;
  EXPECT_EQ(segmentsOf(resolveRobotMap(robot, "auto")), expected);
}

TEST(RobotMapAuto, TheUnitreeG1AndH1FromUrdf) {
  KINETRACK_REQUIRE_SHARED(g1_path, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(h1_path, "models/unitree/h1/h1.urdf");
  const Model g1 = io::loadUrdf(g1_path), h1 = io::loadUrdf(h1_path);
  expectAutoEqualsBuiltin(g1, "g1_29dof");
  expectAutoEqualsBuiltin(h1, "h1");
  // Every frame of the built-in maps is a frame of its robot.
  for (const auto& [robot, name] : {std::pair{&g1, "g1_29dof"}, std::pair{&h1, "h1"}})
    for (const io::SegmentMapEntry& e : io::builtinRobotMap(name).entries)
      EXPECT_TRUE(robot->findFrame(e.model_frame).has_value()) << name << ": " << e.model_frame;
}

TEST(RobotMapAuto, TheH12AndThe23DofG1BuiltFromTheirNames) {
  expectAutoEqualsBuiltin(makeH12(), "h1_2");  // the hands' fingers end the arm at the wrist yaw link
  expectAutoEqualsBuiltin(makeG1Dof23(), "g1_23dof");
}

TEST(RobotMapAuto, TheIcubSameBodiesButTheForearm) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model icub = io::loadUrdf(path);
  EXPECT_EQ(resolveRobotMap(icub, "").name, "icub");
  // The built-in map names two frames fixed to the links the automatic map names (r_upper_arm on
  // r_shoulder_3, r_foot on r_ankle_2, and the left ones): the same bodies. The forearm differs:
  // the built-in r_forearm (after the pronation joint, 4.5 cm down the forearm; the map of the DYN
  // paper, kept) against r_elbow_1 (after the elbow, at its centre: the automatic rule).
  const auto builtin = segmentsOf(io::builtinRobotMap("icub"));
  const io::SegmentMap automatic = autoRobotMap(icub);
  const auto found = segmentsOf(automatic);
  ASSERT_EQ(found.size(), builtin.size()) << automatic.description;
  int renamed = 0;
  for (const auto& [segment, frame] : builtin) {
    ASSERT_TRUE(found.contains(segment)) << segment;
    renamed += found.at(segment) != frame;
    if (segment.ends_with("ForeArm")) continue;
    EXPECT_EQ(icub.frameLink(icub.frameId(found.at(segment))), icub.frameLink(icub.frameId(frame))) << segment;
  }
  EXPECT_EQ(renamed, 6);
  EXPECT_EQ(found.at("RightUpperArm"), "r_shoulder_3");
  EXPECT_EQ(found.at("LeftFoot"), "l_ankle_2");
  EXPECT_EQ(found.at("RightForeArm"), "r_elbow_1");
  EXPECT_EQ(found.at("LeftHand"), "l_hand");
}

TEST(RobotMapAuto, TheBuiltinHumanMapsItsOwnSegments) {
  // human66's links are the canonical segments: the automatic map finds them (the spine's L5, L3,
  // T12 and the neck are between the mapped links and left out).
  const Model human = makeHuman66();
  const io::SegmentMap automatic = autoRobotMap(human);
  for (const io::SegmentMapEntry& e : automatic.entries) EXPECT_EQ(e.clip_segment, e.model_frame);
  std::vector<std::string> mapped;
  for (const io::SegmentMapEntry& e : automatic.entries) mapped.push_back(e.clip_segment);
  std::vector<std::string> expected;
  for (const std::string& s : humanSegmentNames())
    if (s != "L5" && s != "L3" && s != "T12" && s != "Neck") expected.push_back(s);
  EXPECT_EQ(mapped, expected) << automatic.description;
}

TEST(RobotMapAuto, ARenamedReorderedG1MapsLikeTheG1) {
  KINETRACK_REQUIRE_SHARED(path, "models/unitree/g1/g1_29dof.urdf");
  std::map<std::string, std::string> renamed;
  const Model g1 = io::loadUrdf(path);
  const Model other = io::parseUrdf(testing::renamedUrdf(testing::readText(path), renamed), "renamed_g1.urdf");
  ASSERT_EQ(other.numJoints(), g1.numJoints());
  ASSERT_FALSE(other.findFrame("pelvis").has_value());
  // The children are in another order: the pelvis' first child is not the renamed one of the G1's.
  EXPECT_NE(other.linkName(LinkId(1)), renamed.at(g1.linkName(LinkId(1))));
  EXPECT_FALSE(io::detectRobotMap(other.frameNames()).has_value());
  const io::SegmentMap automatic = resolveRobotMap(other, "");
  EXPECT_EQ(automatic.name, "auto");
  std::map<std::string, std::string> expected;
  for (const auto& [segment, frame] : segmentsOf(io::builtinRobotMap("g1_29dof")))
    expected[segment] = renamed.at(frame);
  EXPECT_EQ(segmentsOf(automatic), expected) << automatic.description;
}

TEST(RobotMapAuto, WhatItCannotFindIsNamed) {
  EXPECT_NO_THROW(autoRobotMap(makeToy(2, 2)));
  const auto message = [](const Model& m) {
    try {
      autoRobotMap(m);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(makeToy(1, 2)).find("auto robot map for 'toy': found 1 leg chain (needs 2)"), std::string::npos)
      << message(makeToy(1, 2));
  EXPECT_NE(message(makeToy(2, 0)).find("auto robot map for 'toy': found 0 arm chains (needs 2)"), std::string::npos)
      << message(makeToy(2, 0));
  EXPECT_NE(message(makeToy(2, 1)).find("found 1 arm chain (needs 2), left (ending at 'aarm_5')"), std::string::npos)
      << message(makeToy(2, 1));
  // A model without joints has no legs.
  EXPECT_NE(message(ModelBuilder("toy", "pelvis").build()).find("found 0 leg chains"), std::string::npos);
  // Legs at the same lateral place: the names decide, and when they do not, the error says so.
  const io::SegmentMap named = autoRobotMap(makeToy(2, 2, 0.0, true));
  EXPECT_EQ(segmentsOf(named).at("LeftUpperLeg"), "l_k3");
  EXPECT_NE(message(makeToy(2, 2, 0.0)).find("cannot tell the left leg from the right"), std::string::npos)
      << message(makeToy(2, 2, 0.0));
  // The toy's segments: the hip, knee and ankle clusters; shoulder, elbow and wrist; the head is
  // the neck's link.
  const auto toy = segmentsOf(autoRobotMap(makeToy(2, 2)));
  EXPECT_EQ(toy.at("Pelvis"), "pelvis");
  EXPECT_EQ(toy.at("T8"), "chest");
  EXPECT_EQ(toy.at("Head"), "skull");
  EXPECT_EQ(toy.at("RightUpperLeg"), "bk3");
  EXPECT_EQ(toy.at("RightLowerLeg"), "bk4");
  EXPECT_EQ(toy.at("RightFoot"), "bk6");
  EXPECT_EQ(toy.at("LeftUpperArm"), "aarm_3");
  EXPECT_EQ(toy.at("LeftForeArm"), "aarm_4");
  EXPECT_EQ(toy.at("LeftHand"), "aarm_5");
}

TEST(RobotMapAuto, ExplicitMapsStillWin) {
  // A built-in name or a JSON file is used as given, on any robot.
  EXPECT_EQ(resolveRobotMap(makeToy(2, 2), "h1").name, "h1");
  EXPECT_THROW(resolveRobotMap(makeToy(2, 2), "no_such_robot"), InvalidArgument);
  EXPECT_THROW(resolveRobotMap(makeToy(1, 2), "auto"), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::track
