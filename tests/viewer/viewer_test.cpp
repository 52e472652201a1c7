// The browser viewer's data (kinetrack::viewer) and `kinetrack view`: link positions against the
// joint CSV's base and rigid bone lengths, target errors recovered from a known joint offset,
// data.js contents, and bad input (model mismatch, frame count, missing file, unbuilt viewer).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "../cli/cli_runner.hpp"
#include "../testing/shared_paths.hpp"
#include "kinetrack/app/view_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

using testing::readFile;
using testing::runCli;
using testing::ScratchDir;

constexpr const char* kWalk = "data/bvh/bandai/dataset-2_walk_normal_001.bvh";

/// A tracked walk on human66 (kinetrack track), its capture and plan.
struct Tracked {
  Model model;
  io::JointTrajectory result;
  track::Capture capture;
  track::TrackSetup setup;
};

Tracked trackWalk(const ScratchDir& dir, const std::string& bvh) {
  const std::string csv = dir.file("walk_q.csv");
  const auto r = runCli({"track", "--quiet", "--model", "human66", "--input", bvh, "--out", csv});
  EXPECT_EQ(r.status, 0) << r.err;
  Tracked t{
      io::loadModel({.model = "human66", .height = {}}).model, io::readJointCsv(csv), track::loadCapture(bvh), {}};
  t.setup = track::setupOnModel(t.model, t.capture, "");
  return t;
}

TEST(Viewer, LinkPositionsFollowTheBaseAndKeepBoneLengths) {
  KINETRACK_REQUIRE_SHARED(bvh, kWalk);
  ScratchDir dir;
  const Tracked t = trackWalk(dir, bvh);
  const viewer::ViewerData d = viewer::buildViewerData(t.model, t.result);
  ASSERT_EQ(d.numFrames(), t.result.numFrames());
  ASSERT_EQ(d.numLinks(), t.model.numLinks());
  const auto at = [&](int f, int l) {
    const std::size_t i =
        (static_cast<std::size_t>(f) * static_cast<std::size_t>(d.numLinks()) + static_cast<std::size_t>(l)) * 3;
    return Vector3d(d.positions[i], d.positions[i + 1], d.positions[i + 2]);
  };
  double max_stretch = 0.0, travelled = 0.0;
  for (int f = 0; f < d.numFrames(); ++f) {
    // The root link's origin is the base position of the CSV row.
    EXPECT_LT((at(f, 0) - t.result.base[static_cast<std::size_t>(f)].p).norm(), 1e-12) << "frame " << f;
    // Rigid links: the parent → child distance is the joint origin's offset, the same every frame.
    for (int l = 1; l < d.numLinks(); ++l) {
      const int p = d.link_parent[static_cast<std::size_t>(l)];
      const double length0 = (at(0, l) - at(0, p)).norm(), length = (at(f, l) - at(f, p)).norm();
      max_stretch = std::max(max_stretch, std::abs(length - length0));
    }
    if (f > 0) travelled += (at(f, 0) - at(f - 1, 0)).norm();
  }
  EXPECT_LT(max_stretch, 1e-12);
  EXPECT_GT(travelled, 1.0) << "the walk moves the pelvis";
}

TEST(Viewer, TargetErrorRecoversAKnownJointOffset) {
  KINETRACK_REQUIRE_SHARED(bvh, kWalk);
  ScratchDir dir;
  Tracked t = trackWalk(dir, bvh);
  const viewer::ViewerData tracked = viewer::buildViewerData(t.model, t.result, &t.capture, &t.setup.plan);
  ASSERT_EQ(tracked.error_unit, "deg");
  ASSERT_EQ(tracked.input_valid.size(), static_cast<std::size_t>(tracked.numFrames()) * tracked.segment_names.size());
  // Turn the elbow joint of the right arm by 0.2 rad: the forearm's orientation error becomes
  // 0.2 rad = 11.46° (plus the tracking error), the upper arm's does not change.
  const auto column = std::find(t.result.joint_names.begin(), t.result.joint_names.end(), "jRightElbow_rotz");
  ASSERT_NE(column, t.result.joint_names.end());
  const auto j = std::distance(t.result.joint_names.begin(), column);
  t.result.joints.col(j).array() += 0.2;
  const viewer::ViewerData bent = viewer::buildViewerData(t.model, t.result, &t.capture, &t.setup.plan);
  const auto link = [&](const std::string& name) {
    return std::distance(tracked.link_names.begin(),
                         std::find(tracked.link_names.begin(), tracked.link_names.end(), name));
  };
  const auto forearm = link("RightForeArm"), upper = link("RightUpperArm");
  ASSERT_LT(forearm, tracked.numLinks());
  for (int f = 0; f < tracked.numFrames(); f += 17) {
    const std::size_t row = static_cast<std::size_t>(f) * static_cast<std::size_t>(tracked.numLinks());
    const double before = tracked.errors[row + static_cast<std::size_t>(forearm)];
    const double after = bent.errors[row + static_cast<std::size_t>(forearm)];
    ASSERT_GE(before, 0.0) << "the forearm is a target";
    EXPECT_NEAR(after, 0.2 * 180.0 / M_PI, before + 1e-6) << "frame " << f;
    EXPECT_NEAR(bent.errors[row + static_cast<std::size_t>(upper)],
                tracked.errors[row + static_cast<std::size_t>(upper)], 1e-9);
  }
  EXPECT_GT(bent.error_max, 11.0);
}

TEST(Viewer, RejectsAResultOfAnotherModelAndAMismatchedCapture) {
  KINETRACK_REQUIRE_SHARED(bvh, kWalk);
  ScratchDir dir;
  const Tracked t = trackWalk(dir, bvh);
  const Model human48 = makeBuiltinModel("human48");
  try {
    (void)viewer::buildViewerData(human48, t.result);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("walk_q.csv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("human48"), std::string::npos) << e.what();
  }
  io::JointTrajectory shorter = t.result;
  shorter.times.pop_back();
  shorter.base.pop_back();
  shorter.gap.pop_back();
  shorter.joints.conservativeResize(shorter.numFrames(), Eigen::NoChange);
  try {
    (void)viewer::buildViewerData(t.model, shorter, &t.capture, &t.setup.plan);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("frames"), std::string::npos) << e.what();
  }
}

TEST(ViewerCli, WritesASelfContainedDirectory) {
  KINETRACK_REQUIRE_SHARED(bvh, kWalk);
  ScratchDir dir;
  const Tracked t = trackWalk(dir, bvh);
  const std::string out = dir.file("walk_view");
  const auto r = runCli(
      {"view", "--quiet", "--model", "human66", "--result", dir.file("walk_q.csv"), "--input", bvh, "--out", out});
  if (!viewer::bundled()) {
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("npm"), std::string::npos) << r.err;
    GTEST_SKIP() << "the viewer is not bundled (no node/npm at build time): checked the error only";
  }
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("frames"), std::string::npos);
  for (const auto& a : viewer::assets()) EXPECT_EQ(readFile(std::filesystem::path(out) / std::string(a.name)), a.text);
  const std::string index = readFile(std::filesystem::path(out) / "index.html");
  EXPECT_NE(index.find("viewer.js"), std::string::npos);
  EXPECT_EQ(index.find("http"), std::string::npos) << "nothing is fetched from the network";
  const std::string data = readFile(std::filesystem::path(out) / "data.js");
  EXPECT_EQ(data.rfind("window.KINETRACK_DATA = {", 0), 0U);
  EXPECT_NE(data.find("\"error_unit\":\"deg\""), std::string::npos);
  const auto blob = data.find("window.KINETRACK_BLOB = \"");
  EXPECT_NE(blob, std::string::npos) << "the arrays are binary (base64)";
  EXPECT_EQ(data.substr(0, blob).find("nan"), std::string::npos) << "the JSON header holds no NaN";
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(out) / "meshes.js"));
}

// A robot retargeted from a walk, with the person: the capture is planned as `retarget` plans
// it (robot map, standing on the ground), so the person's pelvis is where the robot's is.
TEST(ViewerCli, ShowsARetargetedRobotWithThePerson) {
  KINETRACK_REQUIRE_SHARED(bvh, kWalk);
  KINETRACK_REQUIRE_SHARED(g1, "models/unitree/g1/g1_29dof.urdf");
  ScratchDir dir;
  const std::string csv = dir.file("g1.csv");
  ASSERT_EQ(runCli({"retarget", "--quiet", "--robot", g1, "--input", bvh, "--out", csv}).status, 0);
  const io::JointTrajectory result = io::readJointCsv(csv);
  const Model robot = io::loadModel({g1, std::nullopt, false, std::nullopt}).model;
  const track::Capture capture = track::loadCapture(bvh);
  app::ViewOptions o;
  o.input = bvh;
  o.out = dir.file("g1_view");
  if (!viewer::bundled()) GTEST_SKIP() << "the viewer is not bundled";
  const app::ViewResult r = app::runView(o, {}, &robot, &result);
  ASSERT_EQ(r.data.numFrames(), capture.clip.numFrames());
  ASSERT_FALSE(r.data.segment_names.empty());
  // The person's pelvis and the robot's within 10 cm (the held soles pull the pelvis by up to ~7 cm).
  const auto link = static_cast<std::size_t>(robot.linkId("pelvis").value);
  const std::size_t nl = static_cast<std::size_t>(r.data.numLinks()), ns = r.data.segment_names.size();
  for (int f = 0; f < r.data.numFrames(); f += 10) {
    const auto uf = static_cast<std::size_t>(f);
    const Vector3d a(r.data.positions[(uf * nl + link) * 3], r.data.positions[(uf * nl + link) * 3 + 1],
                     r.data.positions[(uf * nl + link) * 3 + 2]);
    const Vector3d b(r.data.input_positions[(uf * ns) * 3], r.data.input_positions[(uf * ns) * 3 + 1],
                     r.data.input_positions[(uf * ns) * 3 + 2]);
    EXPECT_LT((a - b).norm(), 0.10) << "frame " << f;
  }
  EXPECT_LT(r.data.error_p95, 15.0);
}

TEST(ViewerCli, BadInputNamesTheFile) {
  KINETRACK_REQUIRE_SHARED(bvh, kWalk);
  ScratchDir dir;
  trackWalk(dir, bvh);
  // Unknown model.
  auto r = runCli({"view", "--model", "human99", "--result", dir.file("walk_q.csv"), "--out", dir.file("v")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("human99"), std::string::npos) << r.err;
  // Missing result file.
  r = runCli({"view", "--model", "human66", "--result", dir.file("missing.csv"), "--out", dir.file("v")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.csv"), std::string::npos) << r.err;
  // A malformed row: file, line and column.
  std::string text = readFile(dir.file("walk_q.csv"));
  const auto line3 = text.find('\n', text.find('\n') + 1) + 1;
  text.replace(line3, text.find(',', line3) - line3, "abc");
  r = runCli({"view", "--model", "human66", "--result", dir.write("bad.csv", text), "--out", dir.file("v")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("time"), std::string::npos) << r.err;
  // A result of another model.
  r = runCli({"view", "--model", "human48", "--result", dir.file("walk_q.csv"), "--out", dir.file("v")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("walk_q.csv"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("v/data.js")));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
