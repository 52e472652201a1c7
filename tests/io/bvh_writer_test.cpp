// BVH writer: models at random configurations → writeBvh → readBvh + bvhToClip, and every BVH
// joint's world pose equals the link's world pose from kinetrack's forward kinematics (two
// independent paths: the writer's chain products and Euler angles, the reader's BVH FK).
#include "kinetrack/io/capture/bvh_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("kinetrack_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::vector<Configuration> randomFrames(const Model& model, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<Configuration> qs;
  for (int i = 0; i < n; ++i) qs.push_back(randomConfiguration(model, rng));
  // Gimbal lock of the Z-X-Y angles: a base rotation of 90° about BVH x (kinetrack y).
  qs[0].base_rotation = so3::axisAngle(Vector3d::UnitY(), M_PI / 2);
  return qs;
}

// Writes `frames`, reads the file back, and compares every BVH joint's world pose with FK.
// Returns the file as read.
BvhFile expectRoundTrip(const Model& model, const std::vector<Configuration>& frames, BvhUnits units) {
  const std::string path = tempPath(model.name() + ".bvh");
  writeBvh(model, frames, 1.0 / 60.0, path);
  EXPECT_FALSE(fs::exists(path + ".part"));
  const BvhFile file = readBvh(path);
  fs::remove(path);
  EXPECT_EQ(file.frame_time, 1.0 / 60.0);
  BvhOptions options;
  options.units = units;
  const MotionClip clip = bvhToClip(file, options);
  const std::vector<BvhExportJoint> skeleton = bvhSkeleton(model);
  EXPECT_EQ(clip.numSegments(), static_cast<int>(skeleton.size()));
  EXPECT_EQ(clip.numFrames(), static_cast<int>(frames.size()));
  Data data(model);
  double worst_p = 0.0, worst_R = 0.0;
  for (int f = 0; f < clip.numFrames(); ++f) {
    forwardKinematics(model, data, frames[static_cast<std::size_t>(f)]);
    for (int s = 0; s < clip.numSegments(); ++s) {
      const std::string& name = clip.segment_names[static_cast<std::size_t>(s)];
      EXPECT_EQ(name, model.linkName(skeleton[static_cast<std::size_t>(s)].link));
      const Transform& link = data.link[static_cast<std::size_t>(model.linkId(name).value)];
      EXPECT_TRUE(clip.isValid(f, s));
      worst_p = std::max(worst_p, (clip.pose(f, s).p - link.p).norm());
      worst_R = std::max(worst_R, (clip.pose(f, s).R - link.R).cwiseAbs().maxCoeff());
    }
  }
  // Numbers are written exactly; what remains is the round-off of two FK paths and of the
  // degree ↔ radian conversion.
  EXPECT_LT(worst_p, 1e-12) << model.name();
  EXPECT_LT(worst_R, 1e-12) << model.name();
  return file;
}

int countEndSites(const BvhFile& file) {
  return static_cast<int>(
      std::count_if(file.joints.begin(), file.joints.end(), [](const BvhJoint& j) { return j.end_site; }));
}

TEST(BvhWriter, Human66CollapsesSphericalJointsAndRoundTrips) {
  const Model model = makeHuman66();
  const std::vector<BvhExportJoint> skeleton = bvhSkeleton(model);
  std::vector<std::string> names;
  for (const BvhExportJoint& j : skeleton) names.push_back(model.linkName(j.link));
  EXPECT_EQ(names, humanSegmentNames());  // one BVH joint per segment, the _f1/_f2 links collapsed
  EXPECT_TRUE(skeleton[0].position_channels);
  for (std::size_t i = 1; i < skeleton.size(); ++i) {
    EXPECT_FALSE(skeleton[i].position_channels);
    EXPECT_EQ(skeleton[i].chain.size(), 3u) << names[i];
  }
  const BvhFile file = expectRoundTrip(model, randomFrames(model, 12, 1), BvhUnits::Auto);
  EXPECT_EQ(bvhScale(file, BvhUnits::Auto), 0.01);  // centimetres, recognised from the height
  EXPECT_EQ(countEndSites(file), 5);                // head, hands, toes
  ASSERT_EQ(file.joints[0].channels.size(), 6u);
  EXPECT_EQ(file.joints[0].channels[3], BvhChannel::Zrotation);
  EXPECT_EQ(file.joints[0].channels[4], BvhChannel::Xrotation);
  EXPECT_EQ(file.joints[0].channels[5], BvhChannel::Yrotation);
  // OFFSETs in BVH axes (Y up, cm): L5 sits above the pelvis.
  EXPECT_NEAR(file.joints[1].offset.y(), 100.0 * 0.056 * 1.75, 1e-9);
  EXPECT_EQ(file.joints[1].offset.x(), 0.0);
}

TEST(BvhWriter, Human48RoundTrips) {
  const Model model = makeHuman48();
  expectRoundTrip(model, randomFrames(model, 12, 2), BvhUnits::Auto);
}

TEST(BvhWriter, HumanGazeboUrdfRoundTrips) {
  KINETRACK_REQUIRE_SHARED(path, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  const Model model = loadUrdf(path);
  expectRoundTrip(model, randomFrames(model, 8, 3), BvhUnits::Centimetres);
}

TEST(BvhWriter, ICubUrdfRoundTrips) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model model = loadUrdf(path);
  const BvhFile file = expectRoundTrip(model, randomFrames(model, 8, 4), BvhUnits::Centimetres);
  EXPECT_GT(countEndSites(file), 4);
}

TEST(BvhWriter, PrismaticJointsGetPositionChannelsAndFixedBaseWorks) {
  ModelBuilder b("slider", "base", BaseType::Fixed);
  JointSpec j;
  j.name = "lift";
  j.type = JointType::Prismatic;
  j.parent = "base";
  j.child = "carriage";
  j.placement.p = Vector3d(0.1, 0.2, 0.3);
  j.placement.R = so3::fromRpy(Vector3d(0.3, -0.2, 1.0));
  j.axis = Vector3d(1, 2, 3);
  j.lower = -0.5;
  j.upper = 0.5;
  b.addJoint(j);
  j.name = "wrist";
  j.type = JointType::Revolute;
  j.parent = "carriage";
  j.child = "hand";
  j.placement = Transform{};
  j.placement.p = Vector3d(0, 0, 0.4);
  j.axis = Vector3d::UnitX();
  b.addJoint(j);
  b.addFrame("fingertip", "hand", Transform{Matrix3d::Identity(), Vector3d(0.1, 0, 0)});
  const Model model = b.build();
  const std::vector<BvhExportJoint> skeleton = bvhSkeleton(model);
  ASSERT_EQ(skeleton.size(), 3u);
  EXPECT_TRUE(skeleton[1].position_channels);
  EXPECT_EQ(skeleton[1].offset, Vector3d::Zero());
  EXPECT_FALSE(skeleton[2].position_channels);
  EXPECT_TRUE(skeleton[2].end_site);
  // The End Site is the fingertip: (0.1, 0, 0) m → (y, z, x) = (0, 0, 10) cm.
  EXPECT_LT((skeleton[2].end_offset - Vector3d(0, 0, 10)).norm(), 1e-12);
  std::vector<Configuration> frames = randomFrames(model, 6, 5);
  for (Configuration& q : frames) q.base_position = Vector3d(0.5, -0.5, 0.25);
  const BvhFile file = expectRoundTrip(model, frames, BvhUnits::Centimetres);
  EXPECT_EQ(file.joints[1].channels.size(), 6u);
}

TEST(BvhWriter, RejectsBadInputAndLeavesNoPartialFile) {
  const Model model = makeHuman66();
  std::vector<Configuration> frames = randomFrames(model, 2, 6);
  const std::string path = tempPath("bad.bvh");
  EXPECT_THROW(writeBvh(model, {}, 0.01, path), InvalidArgument);
  EXPECT_THROW(writeBvh(model, frames, 0.0, path), InvalidArgument);
  EXPECT_THROW(writeBvh(model, frames, std::nan(""), path), InvalidArgument);
  frames[1].joints[7] = std::nan("");
  EXPECT_THROW(writeBvh(model, frames, 0.01, path), InvalidArgument);
  frames[1].joints.resize(3);
  EXPECT_THROW(writeBvh(model, frames, 0.01, path), InvalidArgument);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".part"));
  try {
    writeBvh(model, randomFrames(model, 2, 6), 0.01, "/nonexistent/dir/x.bvh");
    ADD_FAILURE() << "wrote into a missing directory";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/dir/x.bvh");
    EXPECT_NE(e.message().find("cannot open"), std::string::npos) << e.what();
  }
  ModelBuilder b("spaces", "my base");
  EXPECT_THROW(toBvh(b.build(), {Configuration()}, 0.01), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
