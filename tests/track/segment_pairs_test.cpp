// Segment pairs: a segment map restricted to a model's frames, and the pairs `kinetrack track`
// tracks for pose-target CSVs (identity pairs by frame name) and for mapped clips.
#include "kinetrack/track/segment_pairs.hpp"

#include <gtest/gtest.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::track {
namespace KINETRACK_UNITY_ID {

TEST(SegmentPairs, MapEntriesWithoutAModelFrameAreSkipped) {
  const Model model = makeHuman66();
  io::SegmentMap map;
  map.entries = {{"Hips", "Pelvis", Matrix3d::Identity(), 2.0}, {"Tail", "NoSuchFrame", Matrix3d::Identity(), 1.0}};
  map.unmapped = {"Prop"};
  const SegmentPairs p = segmentPairsOnModel(model, map);
  ASSERT_EQ(p.pairs.size(), 1u);
  EXPECT_EQ(p.pairs[0].clip_segment, "Hips");
  EXPECT_EQ(p.pairs[0].model_frame, "Pelvis");
  EXPECT_EQ(p.pairs[0].weight, 2.0);
  EXPECT_EQ(p.skipped, std::vector<std::string>{"Tail -> NoSuchFrame"});
  EXPECT_EQ(p.unmapped, std::vector<std::string>{"Prop"});
}

TEST(SegmentPairs, PoseTargetsAreNamedAfterModelFrames) {
  const Model model = makeHuman66();
  Capture capture;
  capture.kind = CaptureKind::TargetCsv;
  capture.clip.segment_names = {"Pelvis", "Head"};
  const SegmentPairs p = resolveSegmentPairs(model, capture, "");
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[1].clip_segment, "Head");
  EXPECT_EQ(p.pairs[1].model_frame, "Head");
  EXPECT_TRUE(p.pairs[1].offset.isIdentity());
  EXPECT_TRUE(p.skipped.empty());
  EXPECT_TRUE(p.unmapped.empty());

  capture.clip.segment_names.push_back("Tail");
  EXPECT_THROW(resolveSegmentPairs(model, capture, ""), InvalidArgument);
}

TEST(SegmentPairs, MappedClipKeepsClipOrderAndListsUnmappedSegments) {
  const Model model = makeHuman66();
  Capture capture;
  capture.kind = CaptureKind::Bvh;
  capture.clip.segment_names = humanSegmentNames();
  capture.clip.segment_names.push_back("Prop");
  const SegmentPairs p = resolveSegmentPairs(model, capture, "auto");
  ASSERT_EQ(p.pairs.size(), humanSegmentNames().size());
  for (std::size_t i = 0; i < p.pairs.size(); ++i) EXPECT_EQ(p.pairs[i].clip_segment, humanSegmentNames()[i]);
  EXPECT_EQ(p.unmapped, std::vector<std::string>{"Prop"});
  EXPECT_THROW(resolveSegmentPairs(model, capture, "no_such_map"), InvalidArgument);
}

TEST(SegmentPairs, RobotMapsAndRobotPairs) {
  // An unrecognised robot gets the automatic map (robot_map_auto_test.cpp); unknown built-in names
  // are refused.
  EXPECT_EQ(resolveRobotMap(makeHuman66(), "").name, "auto");
  EXPECT_THROW(resolveRobotMap(makeHuman66(), "no_such_robot"), InvalidArgument);
  EXPECT_EQ(resolveRobotMap(makeHuman66(), "icub").entries.size(), io::builtinRobotMap("icub").entries.size());
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/cmu_cgspeed/cmu_01_01.bvh");
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model icub = io::loadUrdf(urdf);
  const Capture capture = loadCapture(bvh);
  const SegmentPairs p = resolveRobotPairs(icub, capture, "", "");  // the iCub's built-in map
  ASSERT_FALSE(p.pairs.empty());
  for (const SegmentPair& pair : p.pairs) EXPECT_TRUE(icub.findFrame(pair.model_frame).has_value()) << pair.model_frame;
  // Every clip map entry is either paired or reported as skipped.
  const io::SegmentMap clip_map = io::resolveSegmentMap(capture.clip.segment_names, "");
  EXPECT_EQ(p.pairs.size() + p.skipped.size(), clip_map.entries.size());
  EXPECT_EQ(p.unmapped, clip_map.unmapped);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::track
