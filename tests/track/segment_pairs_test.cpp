// Segment pairs: a segment map restricted to a model's frames, and the pairs `kinetrack track`
// tracks for pose-target CSVs (identity pairs by frame name) and for mapped clips.
#include "kinetrack/track/segment_pairs.hpp"

#include <gtest/gtest.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::track {
namespace {

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

}  // namespace
}  // namespace kinetrack::track
