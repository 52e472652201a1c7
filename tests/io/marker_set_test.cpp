// Marker sets: the JSON reader's errors (source, line, field), the built-in Plug-in Gait set on
// human66, scaling, withMarkers; and the Vicon .vsk subject reader.
#include "kinetrack/io/model/marker_set.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/vsk.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

const char* kValid = R"({
  "name": "tiny",
  "description": "two markers",
  "model": "human66",
  "reference_height": 1.75,
  "markers": [
    {"name": "LASI", "link": "Pelvis", "offset": [0.06, 0.125, 0.075]},
    {"name": "LKNE", "link": "LeftUpperLeg", "offset": [0, 0.055, -0.43], "weight": 2.5, "fixed": true}
  ]
})";

// The ParseError of parsing `text`, which must throw one.
ParseError errorOf(const std::string& text) {
  try {
    parseMarkerSet(text, "set.json");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return ParseError("", 0, "");
}

// kValid with `from` replaced by `to` (which must occur).
std::string edited(const std::string& from, const std::string& to) {
  std::string s = kValid;
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(MarkerSet, ParsesEveryField) {
  const MarkerSet s = parseMarkerSet(kValid, "set.json");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.description, "two markers");
  EXPECT_EQ(s.model, "human66");
  EXPECT_DOUBLE_EQ(s.reference_height, 1.75);
  ASSERT_EQ(s.markers.size(), 2u);
  EXPECT_EQ(s.markers[0].name, "LASI");
  EXPECT_EQ(s.markers[0].link, "Pelvis");
  EXPECT_TRUE(s.markers[0].offset.isApprox(Vector3d(0.06, 0.125, 0.075)));
  EXPECT_DOUBLE_EQ(s.markers[0].weight, 1.0);
  EXPECT_FALSE(s.markers[0].fixed);
  EXPECT_DOUBLE_EQ(s.markers[1].weight, 2.5);
  EXPECT_TRUE(s.markers[1].fixed);
  EXPECT_EQ(s.find("LKNE"), 1);
  EXPECT_EQ(s.find("RKNE"), -1);
  EXPECT_EQ(s.names(), (std::vector<std::string>{"LASI", "LKNE"}));
}

TEST(MarkerSet, ErrorsNameSourceLineAndField) {
  struct Case {
    std::string text;
    int line;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {edited("\"description\"", "\"descr\""), 3, "field 'descr': unknown key"},
      {edited("\"weight\": 2.5", "\"wieght\": 2.5"), 8, "field 'markers[1].wieght': unknown key"},
      {edited("\"LKNE\"", "\"LASI\""), 8, "duplicate marker name 'LASI'"},
      {edited("\"model\": \"human66\"", "\"model\": \"human66\", \"model\": \"human48\""), 4, "'model': duplicate key"},
      {edited("\"link\": \"Pelvis\", ", "\"link\": \"Pelvis\", \"link\": \"L5\", "), 7,
       "'markers[0].link': duplicate key"},
      {edited("0.125", "1e999"), 7, "number overflow"},
      {edited("0.125", "NaN"), 7, "invalid JSON"},
      {edited("[0.06, 0.125, 0.075]", "[0.06, 0.125]"), 7, "expected an array of 3 numbers"},
      {edited("[0.06, 0.125, 0.075]", "[0.06, \"a\", 0.075]"), 7, "'markers[0].offset[1]': must be a number"},
      {edited("\"LeftUpperLeg\"", "\"LeftThigh\""), 8, "'LeftThigh' is not a link of human66 (links: "},
      {edited("2.5", "-1"), 8, "weight must be ≥ 0"},
      {edited("\"fixed\": true", "\"fixed\": 1"), 8, "'markers[1].fixed': must be true or false"},
      {edited("\"name\": \"LASI\", ", ""), 7, "'markers[0]': missing 'name'"},
      {edited("\"name\": \"LASI\"", "\"name\": \"\""), 7, "'markers[0].name': must be a non-empty string"},
      {edited("\"reference_height\": 1.75", "\"reference_height\": 0"), 5, "'reference_height': must be > 0"},
      {edited("\"name\": \"tiny\"", "\"name\": 3"), 2, "'name': must be a non-empty string, got number"},
      {edited("]\n}", "],\n}"), 10, "invalid JSON"},
      {R"({"name": "x", "markers": []})", 1, "expected a non-empty array"},
      {R"({"name": "x", "markers": [3]})", 1, "'markers[0]': expected a marker object, got number"},
      {R"({"name": "x"})", 0, "'markers': missing"},
      {"[1, 2]", 1, "expected a JSON object at the top level"},
  };
  for (const Case& c : cases) {
    const ParseError e = errorOf(c.text);
    EXPECT_EQ(e.file(), "set.json");
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what() << "\nexpected: " << c.needle;
  }
}

TEST(MarkerSet, OtherModelsAreCheckedWhenAttached) {
  // Links of a model that is not built in are checked by withMarkers, listing the links.
  const MarkerSet s = parseMarkerSet(edited("\"human66\"", "\"my_robot\""), "set.json");
  MarkerSet bad = s;
  bad.markers[1].link = "LeftThigh";
  const Model human = makeHuman66();
  try {
    (void)withMarkers(human, bad);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'LeftThigh' is not a link of model 'human66' (links: Pelvis"),
              std::string::npos)
        << e.what();
  }
  MarkerSet clash = s;
  clash.markers[0].name = "RightHandCOM";  // a frame of human66
  EXPECT_THROW((void)withMarkers(human, clash), InvalidArgument);
  clash.markers[0].name = "LKNE";  // twice
  EXPECT_THROW((void)withMarkers(human, clash), InvalidArgument);
}

TEST(MarkerSet, WithMarkersPlacesUserFrames) {
  const Model human = makeHuman66();
  const MarkerSet s = parseMarkerSet(kValid, "set.json");
  const Model m = withMarkers(human, s);
  EXPECT_EQ(m.numFrames(), human.numFrames() + 2);
  EXPECT_EQ(m.numJoints(), human.numJoints());
  const FrameId f = m.frameId("LKNE");
  EXPECT_EQ(m.frameKind(f), FrameKind::User);
  EXPECT_EQ(m.linkName(m.frameLink(f)), "LeftUpperLeg");
  EXPECT_TRUE(m.framePlacement(f).p.isApprox(Vector3d(0, 0.055, -0.43)));
  EXPECT_TRUE(m.framePlacement(f).R.isIdentity());
}

TEST(MarkerSet, ScaledByHeight) {
  const MarkerSet s = parseMarkerSet(kValid, "set.json");
  const MarkerSet t = scaledMarkerSet(s, 1.4);
  EXPECT_TRUE(t.markers[0].offset.isApprox(s.markers[0].offset * 0.8));
  EXPECT_DOUBLE_EQ(t.reference_height, 1.4);
  MarkerSet plain = s;
  plain.reference_height = 0.0;
  EXPECT_TRUE(scaledMarkerSet(plain, 1.4).markers[0].offset.isApprox(s.markers[0].offset));
  EXPECT_THROW((void)scaledMarkerSet(s, 0.0), InvalidArgument);
}

TEST(MarkerSet, ReadFileErrors) {
  try {
    (void)readMarkerSet("/nonexistent/set.json");
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/set.json");
  }
}

TEST(MarkerSet, BuiltinPlugInGaitOnHuman66) {
  const auto names = builtinMarkerSetNames();
  ASSERT_NE(std::find(names.begin(), names.end(), "human66_plugin_gait"), names.end());
  const MarkerSet s = builtinMarkerSet("human66_plugin_gait");
  EXPECT_EQ(s.model, "human66");
  EXPECT_DOUBLE_EQ(s.reference_height, 1.75);
  const std::vector<std::string> pig = {"LFHD", "RFHD", "LBHD", "RBHD", "C7",   "T10",  "CLAV", "STRN", "RBAK", "LSHO",
                                        "LUPA", "LELB", "LFRM", "LWRA", "LWRB", "LFIN", "RSHO", "RUPA", "RELB", "RFRM",
                                        "RWRA", "RWRB", "RFIN", "LASI", "RASI", "LPSI", "RPSI", "LTHI", "LKNE", "LTIB",
                                        "LANK", "LHEE", "LTOE", "RTHI", "RKNE", "RTIB", "RANK", "RHEE", "RTOE"};
  EXPECT_EQ(s.names(), pig);
  const Model human = makeHuman66();
  const Model m = withMarkers(human, s);
  // Anatomical sanity at the zero pose (T-pose, palms forward): left markers on the left, the
  // knee and ankle markers at their joints' heights, ASIS in front of PSIS, head markers highest.
  Data d(m);
  framesForwardKinematics(m, d, Configuration(m));
  auto at = [&](const std::string& n) { return d.frame[m.frameId(n).value].p; };
  auto joint = [&](const std::string& link) { return d.link[m.linkId(link).value].p; };
  for (const auto& mk : s.markers) {
    EXPECT_LT(mk.offset.norm(), 0.45) << mk.name;
    if (mk.name[0] != 'L' && mk.name[0] != 'R') continue;
    EXPECT_GT(mk.name[0] == 'L' ? at(mk.name).y() : -at(mk.name).y(), 0.0) << mk.name;
  }
  EXPECT_NEAR(at("LKNE").z(), joint("LeftLowerLeg").z(), 0.01);
  EXPECT_NEAR(at("RANK").z(), joint("RightFoot").z(), 0.01);
  EXPECT_NEAR(at("RELB").y(), joint("RightForeArm").y(), 0.01);
  EXPECT_GT(at("LASI").x(), at("LPSI").x() + 0.1);
  EXPECT_GT(at("LFHD").z(), at("C7").z());
  EXPECT_GT(at("RTOE").x(), at("RHEE").x() + 0.15);
  try {
    (void)builtinMarkerSet("nope");
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("human66_plugin_gait"), std::string::npos);
  }
}

TEST(Vsk, ReadsPlugInGaitSubject) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Test.vsk");
  const VskSubject v = readVsk(path);
  EXPECT_EQ(v.model, "PlugInGait FullBody Ai");
  EXPECT_DOUBLE_EQ(v.height(), 1.679);
  EXPECT_DOUBLE_EQ(v.mass(), 85.0);
  EXPECT_DOUBLE_EQ(*v.parameter("LeftLegLength"), 877.0);
  EXPECT_FALSE(v.parameter("LeftTibialTorsion"));  // declared without a VALUE
}

TEST(Vsk, Errors) {
  EXPECT_THROW((void)parseVsk("<KinematicModel><Parameters>", "a.vsk"), ParseError);
  EXPECT_THROW((void)parseVsk("<Other/>", "a.vsk"), ParseError);
  try {
    (void)parseVsk(
        "<KinematicModel>\n<Parameters>\n<StaticParameter NAME=\"Height\" VALUE=\"tall\"/>\n</Parameters>\n"
        "</KinematicModel>",
        "a.vsk");
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("'tall' is not a finite number"), std::string::npos);
  }
  const VskSubject none = parseVsk("<KinematicModel/>", "a.vsk");
  EXPECT_THROW((void)none.height(), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
