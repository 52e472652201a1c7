// End-to-end tests of the `kinetrack` command-line tool: runs the built binary (testing::cliPath())
// through the shell and checks exit status, stdout (text and JSON) and stderr.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include "cli_runner.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kIcub = "models/icub/iCubGazeboV2_5_model.urdf";

using kinetrack::testing::readFile;
using kinetrack::testing::RunResult;
using kinetrack::testing::ScratchDir;

RunResult run(const std::vector<std::string>& args) { return kinetrack::testing::runCli(args); }

json parseJson(const RunResult& r) {
  EXPECT_EQ(r.status, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const json::exception& e) {
    ADD_FAILURE() << "stdout is not JSON: " << e.what() << "\n" << r.out.substr(0, 500);
    return json::object();
  }
}

std::map<std::string, json> byName(const json& array) {
  std::map<std::string, json> m;
  for (const auto& e : array) m[e.at("name").get<std::string>()] = e;
  return m;
}

/// JSON values equal, numbers within an absolute tolerance (URDF round trips re-normalise axes).
bool nearlyEqual(const json& a, const json& b, double tol = 1e-12) {
  if (a.is_number() && b.is_number()) return std::abs(a.get<double>() - b.get<double>()) <= tol;
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!nearlyEqual(a[i], b[i], tol)) return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !nearlyEqual(it.value(), b.at(it.key()), tol)) return false;
    return true;
  }
  return a == b;
}

// A small URDF with a prismatic joint, a mimic tag and a fixed child link.
constexpr const char* kMimicUrdf = R"(<robot name="gripper">
  <link name="base"/>
  <link name="a"/>
  <link name="b"/>
  <link name="tool"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="2" effort="3"/>
  </joint>
  <joint name="j2" type="prismatic">
    <parent link="a"/><child link="b"/><origin xyz="0.1 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.05" velocity="0.1" effort="10"/>
    <mimic joint="j1" multiplier="0.5" offset="0.01"/>
  </joint>
  <joint name="fixed_tool" type="fixed">
    <parent link="b"/><child link="tool"/><origin xyz="0 0 0.2"/>
  </joint>
</robot>
)";

// --- help -------------------------------------------------------------------------------------

TEST(Cli, HelpListsSubcommands) {
  const RunResult top = run({"--help"});
  EXPECT_EQ(top.status, 0) << top.err;
  EXPECT_NE(top.out.find("model"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("demo"), std::string::npos) << top.out;

  const RunResult model = run({"model", "--help"});
  EXPECT_EQ(model.status, 0) << model.err;
  for (const char* sub : {"info", "export", "fk"}) EXPECT_NE(model.out.find(sub), std::string::npos) << sub;
}

// --- model info -------------------------------------------------------------------------------

TEST(Cli, InfoHuman66Text) {
  const RunResult r = run({"model", "info", "human66"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("human66"), std::string::npos);
  EXPECT_NE(r.out.find("DoF     66"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("floating"), std::string::npos);
  EXPECT_NE(r.out.find("jRightKnee_roty"), std::string::npos);
  EXPECT_NE(r.out.find("continuous"), std::string::npos);
  EXPECT_NE(r.out.find("RightHandCOM"), std::string::npos);  // frame list
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Cli, InfoHuman48Text) {
  const RunResult r = run({"model", "info", "human48"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("DoF     48"), std::string::npos) << r.out.substr(0, 400);
  // Knee flexion limits 0..135 deg, shown in rad and deg; velocity limit absent.
  EXPECT_NE(r.out.find("+2.3562 (+135.0 deg)"), std::string::npos);
  EXPECT_NE(r.out.find("none"), std::string::npos);
}

TEST(Cli, InfoHuman66Json) {
  const json j = parseJson(run({"model", "info", "human66", "--json"}));
  EXPECT_EQ(j.at("name"), "human66");
  EXPECT_EQ(j.at("base"), "floating");
  EXPECT_EQ(j.at("dof"), 66);
  EXPECT_EQ(j.at("nv"), 72);
  ASSERT_EQ(j.at("joints").size(), 66u);
  EXPECT_EQ(j.at("links").size(), 67u);
  EXPECT_TRUE(j.at("links")[0].at("parent").is_null());
  for (const auto& joint : j.at("joints")) {
    EXPECT_EQ(joint.at("type"), "continuous");
    EXPECT_TRUE(joint.at("lower").is_null());  // infinite limits are null
    EXPECT_TRUE(joint.at("velocity").is_null());
    EXPECT_EQ(joint.at("axis").size(), 3u);
  }
  EXPECT_TRUE(j.at("mimics").empty());
}

TEST(Cli, InfoMassTableAndTotalMass) {
  const json j = parseJson(run({"model", "info", "human66", "--mass", "80", "--json"}));
  EXPECT_NEAR(j.at("total_mass").get<double>(), 80.0, 1e-12);
  EXPECT_EQ(j.at("mass"), 80.0);
  const auto links = byName(j.at("links"));
  EXPECT_GT(links.at("RightUpperLeg").at("mass").get<double>(), 10.0);
  EXPECT_EQ(links.at("RightUpperLeg").at("com").size(), 3u);
  EXPECT_EQ(links.at("RightUpperLeg").at("inertia").size(), 3u);
  EXPECT_EQ(links.at("RightUpperLeg_f1").at("mass"), 0.0);  // dummy links stay massless

  const RunResult text = run({"model", "info", "human48", "--height", "1.6", "--mass", "55"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("mass    55 kg"), std::string::npos) << text.out.substr(0, 600);
  EXPECT_NE(text.out.find("mass properties of the 23 links with mass"), std::string::npos);
  const json d = parseJson(run({"model", "info", "human48", "--json"}));
  EXPECT_NEAR(d.at("total_mass").get<double>(), 73.0, 1e-12);  // the default body mass
}

TEST(Cli, InfoHuman48JsonFixedBase) {
  const json j = parseJson(run({"model", "info", "human48", "--json", "--fixed-base"}));
  EXPECT_EQ(j.at("base"), "fixed");
  EXPECT_EQ(j.at("dof"), 48);
  EXPECT_EQ(j.at("nv"), 48);
  ASSERT_EQ(j.at("joints").size(), 48u);
  const auto joints = byName(j.at("joints"));
  const json& knee = joints.at("jRightKnee_roty");
  EXPECT_EQ(knee.at("type"), "revolute");
  EXPECT_NEAR(knee.at("lower").get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(knee.at("upper").get<double>(), 135 * M_PI / 180, 1e-12);
  const auto frames = byName(j.at("frames"));
  EXPECT_EQ(frames.at("RightHandCOM").at("kind"), "fixed");
  EXPECT_EQ(frames.at("RightHandCOM").at("link"), "RightHand");
}

TEST(Cli, InfoIcub) {
  KINETRACK_REQUIRE_SHARED(urdf, kIcub);
  const RunResult text = run({"model", "info", urdf});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("DoF     32"), std::string::npos) << text.out.substr(0, 400);
  EXPECT_NE(text.out.find("frames  213"), std::string::npos) << text.out.substr(0, 400);

  const json j = parseJson(run({"model", "info", urdf, "--json"}));
  EXPECT_EQ(j.at("dof"), 32);
  EXPECT_EQ(j.at("joints").size(), 32u);
  EXPECT_EQ(j.at("frames").size(), 213u);
  EXPECT_EQ(j.at("base"), "floating");
  EXPECT_EQ(j.at("source"), urdf);
}

TEST(Cli, InfoMimicUrdfWarnsAndListsConstraint) {
  ScratchDir dir;
  const std::string urdf = dir.write("gripper.urdf", kMimicUrdf);
  const RunResult r = run({"model", "info", urdf});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gripper.urdf:13"), std::string::npos) << r.err;  // line of the <mimic> tag
  EXPECT_NE(r.out.find("mimic:j2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("j2 = 0.5 * j1 + 0.01"), std::string::npos) << r.out;

  const json j = parseJson(run({"model", "info", urdf, "--json"}));
  ASSERT_EQ(j.at("mimics").size(), 1u);
  EXPECT_EQ(j.at("mimics")[0].at("master"), "j1");
  ASSERT_EQ(j.at("linear_constraints").size(), 1u);
  EXPECT_EQ(j.at("linear_constraints")[0].at("name"), "mimic:j2");
  const auto joints = byName(j.at("joints"));
  EXPECT_EQ(joints.at("j2").at("type"), "prismatic");
  EXPECT_DOUBLE_EQ(joints.at("j2").at("velocity").get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(joints.at("j1").at("effort").get<double>(), 3.0);
  const auto frames = byName(j.at("frames"));
  EXPECT_EQ(frames.at("tool").at("kind"), "fixed");
  EXPECT_NEAR(frames.at("tool").at("xyz")[2].get<double>(), 0.2, 1e-15);
}

// --- model export -----------------------------------------------------------------------------

void expectExportRoundTrip(const std::string& model, std::size_t expected_joints) {
  ScratchDir dir;
  const std::string out = dir.file("exported.urdf");
  const RunResult ex = run({"model", "export", model, "--out", out});
  ASSERT_EQ(ex.status, 0) << ex.err;
  ASSERT_TRUE(fs::exists(out));

  const json a = parseJson(run({"model", "info", model, "--json"}));
  const json b = parseJson(run({"model", "info", out, "--json"}));
  EXPECT_EQ(a.at("name"), b.at("name"));
  EXPECT_EQ(a.at("dof"), b.at("dof"));
  // Joint order may change (the reader orders the tree its own way); compare by name.
  const auto ja = byName(a.at("joints")), jb = byName(b.at("joints"));
  ASSERT_EQ(ja.size(), expected_joints);
  ASSERT_EQ(jb.size(), expected_joints);
  for (const auto& [name, joint] : ja) {
    ASSERT_TRUE(jb.count(name)) << name;
    EXPECT_TRUE(nearlyEqual(joint, jb.at(name))) << joint.dump() << "\nvs\n" << jb.at(name).dump();
  }
  // Mass properties come back exactly (17 significant digits in the URDF).
  EXPECT_NEAR(a.at("total_mass").get<double>(), b.at("total_mass").get<double>(), 1e-12);
  const auto la = byName(a.at("links")), lb = byName(b.at("links"));
  for (const auto& [name, link] : la) {
    ASSERT_TRUE(lb.count(name)) << name;
    for (const char* key : {"mass", "com", "inertia"}) EXPECT_EQ(link.at(key), lb.at(name).at(key)) << name << key;
  }
  const auto fa = byName(a.at("frames")), fb = byName(b.at("frames"));
  EXPECT_EQ(fa.size(), fb.size());
  for (const auto& [name, frame] : fa) {
    ASSERT_TRUE(fb.count(name)) << name;
    EXPECT_TRUE(nearlyEqual(frame, fb.at(name), 1e-12)) << frame.dump() << "\nvs\n" << fb.at(name).dump();
  }
  // No temporary files left beside the output.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(Cli, ExportRoundTripHuman48) { expectExportRoundTrip("human48", 48); }
TEST(Cli, ExportRoundTripHuman66) { expectExportRoundTrip("human66", 66); }
TEST(Cli, ExportRoundTripIcub) {
  KINETRACK_REQUIRE_SHARED(urdf, kIcub);
  expectExportRoundTrip(urdf, 32);
}

TEST(Cli, ExportHeightScalesModel) {
  ScratchDir dir;
  const std::string out = dir.file("tall.urdf");
  ASSERT_EQ(run({"model", "export", "human48", "--height", "2.0", "--out", out}).status, 0);
  const json tall = parseJson(run({"model", "fk", out, "--frame", "Head", "--json"}));
  const json ref = parseJson(run({"model", "fk", "human48", "--frame", "Head", "--json", "--height", "1.0"}));
  const double z_tall = tall.at("frames")[0].at("position")[2].get<double>();
  const double z_ref = ref.at("frames")[0].at("position")[2].get<double>();
  EXPECT_GT(z_ref, 0.0);
  EXPECT_NEAR(z_tall, 2.0 * z_ref, 1e-12);
}

// --- model fk ---------------------------------------------------------------------------------

TEST(Cli, FkPelvisAtOriginAtZero) {
  const json j = parseJson(run({"model", "fk", "human66", "--frame", "Pelvis", "--frame", "Head", "--json"}));
  ASSERT_EQ(j.at("frames").size(), 2u);
  const json& pelvis = j.at("frames")[0];
  EXPECT_EQ(pelvis.at("name"), "Pelvis");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(pelvis.at("position")[i].get<double>(), 0.0);
  EXPECT_EQ(pelvis.at("quaternion_wxyz")[0].get<double>(), 1.0);
  const json& head = j.at("frames")[1];
  EXPECT_EQ(head.at("position")[0].get<double>(), 0.0);
  EXPECT_GT(head.at("position")[2].get<double>(), 0.3);

  const RunResult text = run({"model", "fk", "human66", "--frame", "Pelvis"});
  ASSERT_EQ(text.status, 0) << text.err;
  // Table row: name, x, y, z, qw, qx, qy, qz.
  const auto row = text.out.find("\nPelvis ");
  ASSERT_NE(row, std::string::npos) << text.out;
  std::istringstream fields(text.out.substr(row + 1));
  std::string name;
  double v[7];
  fields >> name >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6];
  ASSERT_TRUE(fields) << text.out;
  const double expected[7] = {0, 0, 0, 1, 0, 0, 0};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(v[i], expected[i]) << i;
}

TEST(Cli, FkDefaultFrames) {
  const json human = parseJson(run({"model", "fk", "human48", "--json"}));
  EXPECT_EQ(human.at("frames").size(), 23u);  // the Xsens segments
  EXPECT_EQ(human.at("frames")[0].at("name"), "Pelvis");

  ScratchDir dir;
  const std::string urdf = dir.write("gripper.urdf", kMimicUrdf);
  const json gripper = parseJson(run({"model", "fk", urdf, "--json"}));
  EXPECT_EQ(gripper.at("frames").size(), 3u);  // every link
}

TEST(Cli, FkJointValues) {
  // Arm down: rotating the right shoulder +90° about x turns the arm from −y to −z.
  const json rad = parseJson(run({"model", "fk", "human66", "--frame", "RightHand,RightShoulder", "--joint",
                                  "jRightShoulder_rotx=1.5707963267948966", "--json"}));
  const json deg = parseJson(run({"model", "fk", "human66", "--frame", "RightHand,RightShoulder", "--joint",
                                  "jRightShoulder_rotx=90deg", "--json"}));
  EXPECT_TRUE(nearlyEqual(rad.at("frames"), deg.at("frames"), 1e-12));
  const json& hand = rad.at("frames")[0];
  const json& shoulder = rad.at("frames")[1];
  EXPECT_NEAR(hand.at("position")[0].get<double>(), 0.0, 1e-12);
  EXPECT_LT(hand.at("position")[2].get<double>(), shoulder.at("position")[2].get<double>() - 0.3);
  EXPECT_NEAR(rad.at("joints").at("jRightShoulder_rotx").get<double>(), M_PI / 2, 1e-15);
}

TEST(Cli, FkOutsideLimitsWarns) {
  const RunResult r = run({"model", "fk", "human48", "--joint", "jRightKnee_roty=-1", "--frame", "RightFoot"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("jRightKnee_roty"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("outside"), std::string::npos) << r.err;
}

// --- demo -------------------------------------------------------------------------------------

TEST(Cli, Demo) {
  const RunResult r = run({"demo"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("synthetic"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("human66"), std::string::npos);
  EXPECT_NE(r.out.find("frames                       1201"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gaps (state held)            0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: joint RMS < 0.1 deg, MNTE p95 < 1e-4, no gaps: OK"), std::string::npos) << r.out;
}

TEST(Cli, DemoWritesOneRowPerFrame) {
  ScratchDir dir;
  const std::string out = dir.file("walk.csv");
  const RunResult r = run({"demo", "--model", "human48", "--duration", "3", "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ifstream in(out);
  std::string line;
  int rows = -1;  // header
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 361);
}

// --- bad input: exit 2, one clear message on stderr, no partial output ----------------------

struct BadCase {
  std::string label;
  std::vector<std::string> args;  ///< "{dir}" is replaced by a scratch directory
  std::string expected;           ///< must appear in stderr ("{dir}" replaced too)
};

std::string substitute(std::string s, const std::string& dir) {
  for (auto p = s.find("{dir}"); p != std::string::npos; p = s.find("{dir}")) s.replace(p, 5, dir);
  return s;
}

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.label; }

class CliBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(CliBadInput, ExitsTwoWithMessage) {
  ScratchDir dir;
  // Broken files: a joint naming an undefined link (line 4), a NaN in an origin (line 5), and
  // truncated XML.
  dir.write("undefined_link.urdf",
            "<robot name=\"x\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"revolute\">\n"
            "<parent link=\"a\"/><child link=\"b\"/>\n</joint>\n</robot>\n");
  dir.write("nan.urdf",
            "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\">\n"
            "<origin xyz=\"0 nan 0\"/><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"1 0 0\"/>"
            "<limit lower=\"-1\" upper=\"1\" velocity=\"1\" effort=\"1\"/>\n</joint>\n</robot>\n");
  dir.write("truncated.urdf", "<robot name=\"x\">\n<link name=\"a\">\n");
  dir.write("gripper.urdf", kMimicUrdf);

  std::vector<std::string> args;
  for (const auto& a : GetParam().args) args.push_back(substitute(a, dir.path().string()));
  const RunResult r = run(args);
  EXPECT_EQ(r.status, 2) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(substitute(GetParam().expected, dir.path().string())), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  // Nothing but the inputs written above: no partial output file.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 4u);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliBadInput,
    ::testing::Values(
        BadCase{"UnknownModel", {"model", "info", "human99"}, "human99"},
        BadCase{"MissingFile", {"model", "info", "{dir}/missing.urdf"}, "{dir}/missing.urdf"},
        BadCase{"DirectoryAsModel", {"model", "info", "{dir}"}, "{dir}"},
        BadCase{"UndefinedLink", {"model", "info", "{dir}/undefined_link.urdf"}, "undefined_link.urdf:4"},
        BadCase{"NanInUrdf", {"model", "info", "{dir}/nan.urdf", "--json"}, "nan.urdf:5"},
        BadCase{"TruncatedXml", {"model", "info", "{dir}/truncated.urdf"}, "truncated.urdf"},
        BadCase{"UnknownFrame", {"model", "fk", "human66", "--frame", "Nope"}, "unknown frame 'Nope'"},
        BadCase{"UnknownJoint", {"model", "fk", "human66", "--joint", "jNope=1"}, "unknown joint 'jNope'"},
        BadCase{
            "NonNumericJoint", {"model", "fk", "human66", "--joint", "jRightKnee_roty=abc"}, "'abc' is not a number"},
        BadCase{"NanJoint", {"model", "fk", "human66", "--joint", "jRightKnee_roty=nan"}, "'nan' is not a finite"},
        BadCase{"InfJoint", {"model", "fk", "human66", "--joint", "jRightKnee_roty=inf"}, "'inf' is not a finite"},
        BadCase{"JointWithoutValue", {"model", "fk", "human66", "--joint", "jRightKnee_roty"}, "NAME=VALUE"},
        BadCase{"HeightTooLarge", {"model", "info", "human66", "--height", "3"}, "height"},
        BadCase{"HeightTooSmall", {"model", "fk", "human48", "--height", "0.1"}, "height"},
        BadCase{"HeightNan", {"model", "info", "human66", "--height", "nan"}, "height"},
        BadCase{"HeightNotNumber", {"model", "info", "human66", "--height", "tall"}, "--height"},
        BadCase{"HeightWithUrdf", {"model", "info", "{dir}/gripper.urdf", "--height", "1.8"}, "--height"},
        BadCase{"MassTooSmall", {"model", "info", "human66", "--mass", "5"}, "mass"},
        BadCase{"MassTooLarge", {"model", "export", "human48", "--mass", "301", "--out", "{dir}/x.urdf"}, "mass"},
        BadCase{"MassNotNumber", {"model", "fk", "human66", "--mass", "heavy"}, "--mass"},
        BadCase{"MassWithUrdf", {"model", "info", "{dir}/gripper.urdf", "--mass", "70"}, "--mass"},
        BadCase{"DemoBadMass", {"demo", "--mass", "1000"}, "mass"},
        BadCase{"UnknownOption", {"model", "info", "human66", "--bogus"}, "--bogus"},
        BadCase{"UnknownCommand", {"frobnicate"}, "frobnicate"}, BadCase{"MissingModel", {"model", "info"}, "MODEL"},
        BadCase{"ExportMissingOut", {"model", "export", "human48"}, "--out"},
        BadCase{"ExportToMissingDir", {"model", "export", "human48", "--out", "{dir}/no/such/x.urdf"}, "{dir}/no/such"},
        BadCase{"ExportBadHeight", {"model", "export", "human48", "--height", "9", "--out", "{dir}/x.urdf"}, "height"},
        BadCase{"ExportBadUrdf", {"model", "export", "{dir}/nan.urdf", "--out", "{dir}/x.urdf"}, "nan.urdf:5"},
        BadCase{"ExportToDirectory", {"model", "export", "human48", "--out", "{dir}"}, "directory"},
        BadCase{"DemoBadModel", {"demo", "--model", "robot"}, "robot"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.label; });

}  // namespace KINETRACK_UNITY_ID
