// Segment maps: the built-in maps against every clip of ../shared/data/bvh (detection, joints
// that exist, completeness, canonical targets), the automatic mapper against the built-in maps
// and against mixamo, 3ds Max biped and MVNX names, and JSON errors naming source, line, field.
#include "kinetrack/io/model/segment_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

// The map each clip of CLIPS.csv must be detected as.
const std::map<std::string, std::string> kExpectedMap = {
    {"bvh/cmu_cgspeed/cmu_01_01.bvh", "cmu_cgspeed"},
    {"bvh/cmu_cgspeed/cmu_131_01.bvh", "cmu_cgspeed_joint_names"},
    {"bvh/cmu_cgspeed/cmu_131_02.bvh", "cmu_cgspeed_joint_names"},
    {"bvh/cmu_cgspeed/cmu_131_03.bvh", "cmu_cgspeed_joint_names"},
    {"bvh/cmu_iclone/cmu_ic_003_01.bvh", "iclone_cc"},
    {"bvh/cmu_iclone/cmu_ic_005_01.bvh", "iclone_cc"},
    {"bvh/cmu_iclone/cmu_ic_006_01.bvh", "iclone_cc"},
    {"bvh/cmu_iclone/cmu_ic_007_01.bvh", "iclone_cc_rl"},
    {"bvh/cmu_iclone/cmu_ic_007_12.bvh", "iclone_cc"},
    {"bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh", "pymo"},
    {"bvh/reactidle/002_genuine.bvh", "reactidle"},
    {"bvh/reactidle/003_genuine.bvh", "reactidle"},
    {"bvh/xsens/xsens_test_mocap.bvh", "xsens_bvh"},
};

std::string expectedMap(const std::string& file) {
  if (file.rfind("bvh/bandai/", 0) == 0) return "bandai";
  const auto it = kExpectedMap.find(file);
  return it == kExpectedMap.end() ? "" : it->second;
}

struct Clip {
  std::string file;
  std::vector<std::string> joints;  // BVH joints without End Sites, file order
};

// Every clip of CLIPS.csv, read once (empty when ../shared is absent).
const std::vector<Clip>& clips() {
  static const std::vector<Clip> all = [] {
    std::vector<Clip> v;
    for (const std::string& file : testing::sharedBvhClips()) {
      Clip c;
      c.file = file;
      for (const auto& j : readBvh(testing::sharedFile("data/" + c.file)).joints)
        if (!j.end_site) c.joints.push_back(j.name);
      v.push_back(std::move(c));
    }
    return v;
  }();
  return all;
}

#define REQUIRE_CLIPS()                                       \
  KINETRACK_REQUIRE_SHARED(clips_csv_, "data/bvh/CLIPS.csv"); \
  ASSERT_EQ(clips().size(), 20u)

std::map<std::string, std::string> asMap(const SegmentMap& m) {
  std::map<std::string, std::string> out;
  for (const auto& e : m.entries) out[e.clip_segment] = e.model_frame;
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(SegmentMapBuiltin, EveryMapParsesWithCanonicalTargets) {
  const auto names = builtinSegmentMapNames();
  EXPECT_EQ(names, (std::vector<std::string>{"bandai", "cmu_cgspeed", "cmu_cgspeed_joint_names", "iclone_cc",
                                             "iclone_cc_rl", "pymo", "reactidle", "xsens_bvh"}));
  const auto& canonical = humanSegmentNames();
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const SegmentMap m = builtinSegmentMap(name);
    EXPECT_EQ(m.name, name);
    EXPECT_FALSE(m.description.empty());
    EXPECT_FALSE(m.detect.empty());
    std::set<std::string> targets;
    for (const auto& e : m.entries) {
      EXPECT_TRUE(contains(canonical, e.model_frame)) << e.clip_segment << " → " << e.model_frame;
      EXPECT_TRUE(targets.insert(e.model_frame).second) << e.model_frame << " mapped twice";
      EXPECT_TRUE(e.offset.isIdentity());
      EXPECT_EQ(e.weight, 1.0);
    }
    // The embedded text is the source tree's file.
    EXPECT_EQ(asMap(readSegmentMap(kinetrack::testing::sourceDir() + "/maps/" + name + ".json")), asMap(m));
  }
  EXPECT_THROW(builtinSegmentMap("nope"), InvalidArgument);
  try {
    builtinSegmentMap("nope");
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("cmu_cgspeed"), std::string::npos) << e.what();
  }
}

TEST(SegmentMapBuiltin, DetectedOnEveryClipAndNamesItsJoints) {
  REQUIRE_CLIPS();
  std::set<std::string> used;
  for (const Clip& c : clips()) {
    SCOPED_TRACE(c.file);
    const std::string expected = expectedMap(c.file);
    ASSERT_FALSE(expected.empty()) << "clip not in this test's table";
    const auto detected = detectSegmentMap(c.joints);
    ASSERT_TRUE(detected.has_value());
    EXPECT_EQ(*detected, expected);
    used.insert(expected);
    const SegmentMap m = builtinSegmentMap(expected);
    for (const auto& d : m.detect) EXPECT_TRUE(contains(c.joints, d)) << d;
    // Every joint of the clip is either mapped or listed as unmapped, and nothing else.
    std::set<std::string> listed;
    for (const auto& e : m.entries) {
      EXPECT_TRUE(contains(c.joints, e.clip_segment)) << e.clip_segment;
      listed.insert(e.clip_segment);
    }
    for (const auto& u : m.unmapped) EXPECT_TRUE(listed.insert(u).second) << u;
    EXPECT_EQ(listed, std::set<std::string>(c.joints.begin(), c.joints.end()));
    // "auto" resolves to the detected map: entries in clip order, the rest unmapped.
    const SegmentMap r = resolveSegmentMap(c.joints, "auto");
    EXPECT_EQ(r.name, expected);
    EXPECT_EQ(asMap(r), asMap(m));
    EXPECT_EQ(r.unmapped.size(), c.joints.size() - m.entries.size());
    for (std::size_t k = 1; k < r.entries.size(); ++k) {
      const auto pos = [&](const std::string& s) {
        return std::find(c.joints.begin(), c.joints.end(), s) - c.joints.begin();
      };
      EXPECT_LT(pos(r.entries[k - 1].clip_segment), pos(r.entries[k].clip_segment));
    }
  }
  EXPECT_EQ(used.size(), builtinSegmentMapNames().size()) << "a built-in map without a clip";
}

TEST(SegmentMapBuiltin, LimbSegmentsMappedOnEveryFamilyThatHasTheBone) {
  REQUIRE_CLIPS();
  const std::vector<std::string> limbs = {
      "Pelvis",    "Head",         "LeftUpperArm",  "RightUpperArm", "LeftForeArm",   "RightForeArm", "LeftHand",
      "RightHand", "LeftUpperLeg", "RightUpperLeg", "LeftLowerLeg",  "RightLowerLeg", "LeftFoot",     "RightFoot"};
  for (const Clip& c : clips()) {
    SCOPED_TRACE(c.file);
    const SegmentMap m = builtinSegmentMap(expectedMap(c.file));
    std::set<std::string> targets;
    for (const auto& e : m.entries) targets.insert(e.model_frame);
    for (const auto& limb : limbs) {
      if (m.name == "reactidle" && limb.find("Hand") != std::string::npos) {
        // ReActIdle's arms end at the forearm: no hand bone to map.
        for (const auto& j : c.joints) EXPECT_EQ(j.find("hand"), std::string::npos) << j;
        EXPECT_FALSE(targets.contains(limb));
        continue;
      }
      EXPECT_TRUE(targets.contains(limb)) << limb;
    }
  }
}

TEST(SegmentMapAuto, ReproducesTheBuiltinMaps) {
  REQUIRE_CLIPS();
  for (const Clip& c : clips()) {
    SCOPED_TRACE(c.file);
    const SegmentMap builtin = builtinSegmentMap(expectedMap(c.file));
    const SegmentMap a = autoSegmentMap(c.joints);
    EXPECT_EQ(a.name, "auto");
    auto expected = asMap(builtin);
    // The one documented difference: from names alone, two spine bones become L3, T8; the
    // ReActIdle map puts "spine" (its frame at the pelvis origin) on L5.
    if (builtin.name == "reactidle") expected["spine"] = "L3";
    EXPECT_EQ(asMap(a), expected);
    EXPECT_EQ(a.entries.size() + a.unmapped.size(), c.joints.size());
  }
}

TEST(SegmentMapAuto, MixamoAndBipedNames) {
  std::vector<std::string> mixamo = {"mixamorig:Hips", "mixamorig:Spine", "mixamorig:Spine1",     "mixamorig:Spine2",
                                     "mixamorig:Neck", "mixamorig:Head",  "mixamorig:HeadTop_End"};
  for (const std::string side : {"Left", "Right"}) {
    for (const char* b : {"Shoulder", "Arm", "ForeArm", "Hand"}) mixamo.push_back("mixamorig:" + side + b);
    for (const char* f : {"Thumb", "Index", "Middle", "Ring", "Pinky"})
      for (int k = 1; k <= 4; ++k) mixamo.push_back("mixamorig:" + side + "Hand" + f + std::to_string(k));
    for (const char* b : {"UpLeg", "Leg", "Foot", "ToeBase", "Toe_End"}) mixamo.push_back("mixamorig:" + side + b);
  }
  const SegmentMap m = autoSegmentMap(mixamo);
  std::map<std::string, std::string> expected = {{"mixamorig:Hips", "Pelvis"}, {"mixamorig:Spine", "L5"},
                                                 {"mixamorig:Spine1", "L3"},   {"mixamorig:Spine2", "T8"},
                                                 {"mixamorig:Neck", "Neck"},   {"mixamorig:Head", "Head"}};
  for (const std::string side : {"Left", "Right"}) {
    expected["mixamorig:" + side + "Shoulder"] = side + "Shoulder";
    expected["mixamorig:" + side + "Arm"] = side + "UpperArm";
    expected["mixamorig:" + side + "ForeArm"] = side + "ForeArm";
    expected["mixamorig:" + side + "Hand"] = side + "Hand";
    expected["mixamorig:" + side + "UpLeg"] = side + "UpperLeg";
    expected["mixamorig:" + side + "Leg"] = side + "LowerLeg";
    expected["mixamorig:" + side + "Foot"] = side + "Foot";
    expected["mixamorig:" + side + "ToeBase"] = side + "Toe";
  }
  EXPECT_EQ(asMap(m), expected);
  EXPECT_EQ(m.unmapped.size(), mixamo.size() - expected.size());
  EXPECT_TRUE(contains(m.unmapped, "mixamorig:HeadTop_End"));
  EXPECT_TRUE(contains(m.unmapped, "mixamorig:LeftHandThumb1"));

  // 3ds Max biped: "Bip01 L Thigh", a root named "Bip01", toes "Toe0", fingers "Finger0".
  std::vector<std::string> biped = {"Bip01",      "Bip01 Pelvis", "Bip01 Spine",  "Bip01 Spine1",
                                    "Bip01 Neck", "Bip01 Head",   "Bip01 HeadNub"};
  for (const std::string s : {"L", "R"})
    for (const char* b : {"Clavicle", "UpperArm", "Forearm", "Hand", "Finger0", "Thigh", "Calf", "Foot", "Toe0"})
      biped.push_back("Bip01 " + s + " " + b);
  std::map<std::string, std::string> biped_expected = {{"Bip01 Pelvis", "Pelvis"},
                                                       {"Bip01 Spine", "L3"},
                                                       {"Bip01 Spine1", "T8"},
                                                       {"Bip01 Neck", "Neck"},
                                                       {"Bip01 Head", "Head"}};
  for (const auto& [s, side] : {std::pair<std::string, std::string>{"L", "Left"}, {"R", "Right"}}) {
    for (const auto& [b, c] : {std::pair<std::string, std::string>{"Clavicle", "Shoulder"},
                               {"UpperArm", "UpperArm"},
                               {"Forearm", "ForeArm"},
                               {"Hand", "Hand"},
                               {"Thigh", "UpperLeg"},
                               {"Calf", "LowerLeg"},
                               {"Foot", "Foot"},
                               {"Toe0", "Toe"}})
      biped_expected["Bip01 " + s + " " + b] = side + c;
  }
  EXPECT_EQ(asMap(autoSegmentMap(biped)), biped_expected);
}

TEST(SegmentMapAuto, MvnxSegmentNamesMapToThemselves) {
  auto identity = [](const std::vector<std::string>& names) {
    const SegmentMap m = autoSegmentMap(names);
    EXPECT_TRUE(m.unmapped.empty());
    ASSERT_EQ(m.entries.size(), names.size());
    for (const auto& e : m.entries) EXPECT_EQ(e.clip_segment, e.model_frame);
  };
  identity(humanSegmentNames());
  EXPECT_FALSE(detectSegmentMap(humanSegmentNames()).has_value());
  EXPECT_EQ(resolveSegmentMap(humanSegmentNames(), "").entries.size(), 23u);
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/Meri-020.mvnx");
  std::vector<std::string> labels;
  for (const auto& s : readMvnx(path).segments) labels.push_back(s.label);
  ASSERT_EQ(labels.size(), 23u);
  identity(labels);
}

TEST(SegmentMapAuto, NeverMapsTwoSegmentsToOneTarget) {
  // Hand > Wrist; Hips > Root; a twist bone only as a fallback; sides from prefixes and suffixes.
  const std::vector<std::string> names = {"Root",      "Hips",   "LeftWrist",     "LeftHand",
                                          "l_hand",    "Hand_L", "RightArmTwist", "RightArm",
                                          "NeckTwist", "Spine",  "upperarm.L",    "LeftUpperArm"};
  const SegmentMap m = autoSegmentMap(names);
  std::set<std::string> targets;
  for (const auto& e : m.entries) EXPECT_TRUE(targets.insert(e.model_frame).second) << e.model_frame;
  const auto got = asMap(m);
  EXPECT_EQ(got, (std::map<std::string, std::string>{{"Hips", "Pelvis"},
                                                     {"LeftHand", "LeftHand"},
                                                     {"RightArm", "RightUpperArm"},
                                                     {"NeckTwist", "Neck"},
                                                     {"Spine", "T8"},
                                                     {"upperarm.L", "LeftUpperArm"}}));
  EXPECT_EQ(m.unmapped.size(), names.size() - got.size());
}

TEST(SegmentMapParse, OffsetsWeightsAndOrder) {
  const std::string text = R"({
  "name": "test",
  "segments": {"Zed": "Head", "Arm": "LeftUpperArm", "Leg": "LeftUpperLeg"},
  "unmapped": ["Finger"],
  "offsets": {"Arm": {"rpy_deg": [90, 0, 0]}, "Leg": {"quaternion_wxyz": [2, 0, 0, 2]}},
  "weights": {"Zed": 0.5}
})";
  const SegmentMap m = parseSegmentMap(text, "test.json");
  EXPECT_EQ(m.name, "test");
  ASSERT_EQ(m.entries.size(), 3u);
  EXPECT_EQ(m.entries[0].clip_segment, "Zed");  // file order
  EXPECT_EQ(m.entries[0].weight, 0.5);
  EXPECT_TRUE(m.entries[0].offset.isIdentity());
  EXPECT_TRUE(m.entries[1].offset.isApprox(so3::fromRpy(Vector3d(M_PI / 2, 0, 0)), 1e-12));
  EXPECT_TRUE(m.entries[2].offset.isApprox(Eigen::AngleAxisd(M_PI / 2, Vector3d::UnitZ()).toRotationMatrix(), 1e-12));
  EXPECT_EQ(m.unmapped, std::vector<std::string>{"Finger"});
}

struct BadMap {
  const char* text;
  int line;
  const char* needle;  // in the message: the field and what is wrong
};

TEST(SegmentMapParse, ErrorsNameSourceLineAndField) {
  const BadMap cases[] = {
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": NaN}\n}", 3, "invalid JSON"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"\n}", 4, "invalid JSON"},
      {"", 1, "invalid JSON"},
      {"[1, 2]", 1, "top level"},
      {"{\n \"name\": \"x\",\n \"segmnets\": {\"A\": \"Head\"}\n}", 3, "field 'segmnets': unknown key"},
      {"{\n \"name\": \"x\",\n \"segments\": {\n  \"A\": \"Head\",\n  \"B\": 3\n }\n}", 5,
       "field 'segments.B': target must be a string"},
      {"{\n \"name\": \"x\",\n \"segments\": {\n  \"A\": \"Head\",\n  \"B\": \"Head\"\n }\n}", 5,
       "'Head' is already the target of 'A'"},
      {"{\n \"name\": \"x\",\n \"segments\": {\n  \"A\": \"Head\",\n  \"A\": \"Neck\"\n }\n}", 5,
       "field 'segments.A': duplicate key"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"offsets\": {\n  \"A\": {\"rpy_deg\": [1, 2]}\n "
       "}\n}",
       5, "field 'offsets.A.rpy_deg': expected 3 numbers, got 2"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"offsets\": {\n  \"A\": {\"quaternion_wxyz\": [1, "
       "0, 0]}\n }\n}",
       5, "field 'offsets.A.quaternion_wxyz': expected 4 numbers, got 3"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"offsets\": {\n  \"A\": {\"quaternion_wxyz\": [0, "
       "0, 0, 0]}\n }\n}",
       5, "zero quaternion"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"offsets\": {\n  \"A\": {\"rpy_deg\": [1, 1e999, "
       "0]}\n }\n}",
       5, "invalid JSON: number overflow parsing '1e999'"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"offsets\": {\n  \"A\": {\"rpy\": [1, 2, 3]}\n }\n}",
       5, "field 'offsets.A.rpy': unknown key"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"offsets\": {\n  \"B\": {\"rpy_deg\": [1, 2, 3]}\n "
       "}\n}",
       5, "'B' is not a key of 'segments'"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"weights\": {\n  \"A\": \"heavy\"\n }\n}", 5,
       "field 'weights.A': weight must be a number, got string"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"weights\": {\n  \"A\": 0\n }\n}", 5,
       "weight must be > 0"},
      {"{\n \"name\": \"x\",\n \"segments\": {\"A\": \"Head\"},\n \"unmapped\": [\"A\"]\n}", 4, "'A' is also mapped"},
      {"{\n \"name\": \"x\",\n \"detect\": \"Hips\",\n \"segments\": {\"A\": \"Head\"}\n}", 3,
       "field 'detect': expected an array"},
      {"{\n \"name\": \"x\",\n \"segments\": {}\n}", 3, "field 'segments': expected a non-empty object"},
      {"{\n \"name\": \"x\"\n}", 0, "field 'segments': missing"},
      {"{\n \"segments\": {\"A\": \"Head\"}\n}", 0, "field 'name': missing"},
  };
  for (const BadMap& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parseSegmentMap(c.text, "bad.json");
      ADD_FAILURE() << "no error";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), "bad.json");
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_NE(e.message().find(c.needle), std::string::npos) << e.what();
    }
  }
}

TEST(SegmentMapParse, ReadFileErrorsNameThePath) {
  const std::string path = ::testing::TempDir() + "segment_map_test_bad.json";
  {
    std::ofstream out(path);
    out << "{\n  \"name\": \"x\",\n  \"segments\": {\"A\": true}\n}\n";
  }
  try {
    readSegmentMap(path);
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find(path + ":3:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(readSegmentMap(path), ParseError);
}

TEST(SegmentMapResolve, SpecsAndMissingSegments) {
  const std::vector<std::string> clip = {"Hips", "Spine", "Head", "LeftArm", "LeftForeArm", "LeftHand", "Prop"};
  // auto: no built-in family matches → the automatic map, entries in clip order.
  const SegmentMap a = resolveSegmentMap(clip, "auto");
  EXPECT_EQ(a.name, "auto");
  EXPECT_EQ(a.entries.front().clip_segment, "Hips");
  EXPECT_EQ(a.unmapped, std::vector<std::string>{"Prop"});
  // A JSON file; entries re-ordered to the clip's order, the unmapped computed for the clip.
  const std::string path = ::testing::TempDir() + "segment_map_test_ok.json";
  {
    std::ofstream out(path);
    out << R"({"name": "mine", "segments": {"LeftHand": "LeftHand", "Hips": "Pelvis"}, "unmapped": ["Other"]})";
  }
  const SegmentMap f = resolveSegmentMap(clip, path);
  EXPECT_EQ(f.name, "mine");
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].clip_segment, "Hips");
  EXPECT_EQ(f.unmapped, (std::vector<std::string>{"Spine", "Head", "LeftArm", "LeftForeArm", "Prop"}));
  std::remove(path.c_str());
  // A built-in map on a clip without its joints: the missing and the available names.
  try {
    resolveSegmentMap(clip, "xsens_bvh");
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the clip has no segment Chest, Chest2"), std::string::npos) << what;
    EXPECT_NE(what.find("clip segments: Hips, Spine, Head, LeftArm"), std::string::npos) << what;
  }
  // Neither a built-in name nor a path: the built-in names are listed.
  try {
    resolveSegmentMap(clip, "mixamo");
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("bandai, cmu_cgspeed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolveSegmentMap(clip, "/nonexistent/map.json"), ParseError);
  EXPECT_THROW(resolveSegmentMap({"Prop", "Camera"}, "auto"), InvalidArgument);  // nothing mapped
}

TEST(SegmentMapBuiltin, RobotMapsAndTheirDetection) {
  EXPECT_EQ(builtinRobotMapNames(),
            (std::vector<std::string>{"g1_23dof", "g1_29dof", "gait2354", "h1", "h1_2", "icub"}));
  const auto& canonical = humanSegmentNames();
  for (const auto& name : builtinRobotMapNames()) {
    SCOPED_TRACE(name);
    const SegmentMap m = builtinRobotMap(name);
    EXPECT_FALSE(m.description.empty());
    for (const auto& e : m.entries) EXPECT_TRUE(contains(canonical, e.clip_segment)) << e.clip_segment;
    EXPECT_EQ(asMap(readSegmentMap(kinetrack::testing::sourceDir() + "/maps/robots/" + name + ".json")), asMap(m));
    // Each robot's own names (its detect list and frames) detect its map, and no other.
    if (m.detect.empty()) continue;
    std::vector<std::string> names = m.detect;
    for (const auto& e : m.entries) names.push_back(e.model_frame);
    EXPECT_EQ(detectRobotMap(names), std::optional<std::string>(name));
  }
  // The G1 has every link the H1-2 map names, but no torso_joint: it is not taken for an H1-2.
  std::vector<std::string> g1 = builtinRobotMap("g1_29dof").detect;
  for (const auto& e : builtinRobotMap("h1_2").entries) g1.push_back(e.model_frame);
  EXPECT_EQ(detectRobotMap(g1), std::optional<std::string>("g1_29dof"));
  EXPECT_EQ(detectRobotMap({"pelvis", "torso_link"}), std::nullopt);
}

TEST(SegmentMapWrite, JsonRoundTrip) {
  SegmentMap m;
  m.name = "saved";
  m.description = "a \"quoted\" description";
  m.detect = {"pelvis", "torso"};
  m.entries = {{"Pelvis", "pelvis", Matrix3d::Identity(), 1.0},
               {"LeftHand", "l_hand", so3::fromRpy(Vector3d(0.1, -0.7, 2.9)), 0.25},
               {"Head", "head", Matrix3d::Identity(), 3.0}};
  m.unmapped = {"Toe"};
  const std::string text = segmentMapJson(m);
  const SegmentMap back = parseSegmentMap(text, "saved.json");
  EXPECT_EQ(back.name, m.name);
  EXPECT_EQ(back.description, m.description);
  EXPECT_EQ(back.detect, m.detect);
  EXPECT_EQ(back.unmapped, m.unmapped);
  ASSERT_EQ(back.entries.size(), m.entries.size());
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    EXPECT_EQ(back.entries[i].clip_segment, m.entries[i].clip_segment);
    EXPECT_EQ(back.entries[i].model_frame, m.entries[i].model_frame);
    EXPECT_EQ(back.entries[i].weight, m.entries[i].weight);
    EXPECT_TRUE(back.entries[i].offset.isApprox(m.entries[i].offset, 1e-15)) << i;
  }
  EXPECT_NE(text.find("\"LeftHand\": {\n      \"quaternion_wxyz\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"Pelvis\": {"), std::string::npos) << text;  // identity offsets are left out
  EXPECT_EQ(text.find("\"Pelvis\": 1"), std::string::npos) << text;  // and unit weights
  // A map without offsets, weights and lists writes only name and segments: the built-in maps'
  // form, so every built-in robot map reads back equal.
  for (const auto& name : builtinRobotMapNames()) {
    const SegmentMap b = builtinRobotMap(name);
    EXPECT_EQ(asMap(parseSegmentMap(segmentMapJson(b), name)), asMap(b)) << name;
    EXPECT_EQ(parseSegmentMap(segmentMapJson(b), name).detect, b.detect) << name;
  }
  // Written atomically; a missing directory is a ParseError naming the path.
  const std::string path = ::testing::TempDir() + "kinetrack_written_map.json";
  writeSegmentMap(m, path);
  EXPECT_EQ(readSegmentMap(path).entries.size(), 3u);
  std::remove(path.c_str());
  EXPECT_THROW(writeSegmentMap(m, "/no/such/dir/map.json"), ParseError);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
