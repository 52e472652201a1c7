// `kinetrack model info | fk | export` on MJCF files (the Unitree G1 and H1): the commands take
// them like URDF, print the reader's warnings, and the exported URDF loads back to the same model.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

using kinetrack::testing::RunResult;
using kinetrack::testing::ScratchDir;
using nlohmann::json;

json jsonOf(const RunResult& r) {
  EXPECT_EQ(r.status, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const json::exception& e) {
    ADD_FAILURE() << "stdout is not JSON: " << e.what() << "\n" << r.out.substr(0, 500);
    return json::object();
  }
}

TEST(CliMjcf, InfoFkAndExportOfTheG1) {
  KINETRACK_REQUIRE_SHARED(xml, "models/unitree/g1/g1_29dof.xml");
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  const RunResult text = kinetrack::testing::runCli({"model", "info", xml});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("DoF     29"), std::string::npos) << text.out.substr(0, 400);
  EXPECT_NE(text.err.find("warning"), std::string::npos) << text.err;  // <sensor> & co. ignored
  const json info = jsonOf(kinetrack::testing::runCli({"model", "info", xml, "--json"}));
  EXPECT_EQ(info.at("dof"), 29);
  EXPECT_EQ(info.at("base"), "floating");
  EXPECT_EQ(info.at("source"), xml);

  // FK of the same joint values on the MJCF and the URDF: the files' 6-digit quaternions apart.
  auto fk = [](const std::string& model) {
    return jsonOf(kinetrack::testing::runCli(
        {"model", "fk", model, "--frame", "left_ankle_roll_link,right_wrist_yaw_link", "--joint", "left_knee_joint=1",
         "--joint", "right_shoulder_roll_joint=-40deg", "--json"}));
  };
  const json a = fk(xml), b = fk(urdf);
  ASSERT_EQ(a.at("frames").size(), 2u);
  for (int f = 0; f < 2; ++f)
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(a.at("frames")[f].at("position")[k].get<double>(), b.at("frames")[f].at("position")[k].get<double>(),
                  5e-6);

  ScratchDir dir;
  const RunResult exported = kinetrack::testing::runCli({"model", "export", xml, "--out", dir.file("g1.urdf")});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const json back = jsonOf(kinetrack::testing::runCli({"model", "info", dir.file("g1.urdf"), "--json"}));
  EXPECT_EQ(back.at("dof"), 29);
  EXPECT_EQ(back.at("joints"), info.at("joints"));
  // With --fixed-base the free body is the fixed root.
  const json fixed = jsonOf(kinetrack::testing::runCli({"model", "info", xml, "--fixed-base", "--json"}));
  EXPECT_EQ(fixed.at("base"), "fixed");
  EXPECT_EQ(fixed.at("nv"), 29);
}

TEST(CliMjcf, BrokenMjcfNamesTheLine) {
  ScratchDir dir;
  const std::string path = dir.write("robot.xml",
                                     "<mujoco>\n<worldbody>\n<body name=\"b\">\n<joint range=\"0 x\"/>"
                                     "</body></worldbody></mujoco>\n");
  const RunResult r = kinetrack::testing::runCli({"model", "info", path});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("robot.xml:4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("range: 'x' is not a number"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
