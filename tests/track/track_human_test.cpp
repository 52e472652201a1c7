// Real captures on human models (issue 4): every BVH clip of ../shared/data/bvh through its
// segment map onto human66, a human-gazebo 66-DoF subject (spherical-equivalent joints: every
// mapped segment orientation is reachable, MNTE p95 < 1e-4) and human48 (limits: figures
// reported, limits asserted); the MVNX fixtures on human-gazebo subjects.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

std::vector<std::string> clipFiles() {
  std::vector<std::string> files = testing::sharedBvhClips();
#ifndef NDEBUG
  files.resize(std::min<std::size_t>(files.size(), 2));  // Debug/ASan: the same code on two clips
#endif
  return files;
}

std::vector<track::SegmentPair> pairsFor(const Model& model, const track::Capture& capture) {
  const io::SegmentMap map = io::resolveSegmentMap(capture.clip.segment_names, "");
  std::vector<track::SegmentPair> pairs;
  for (const io::SegmentMapEntry& e : map.entries)
    if (model.findFrame(e.model_frame)) pairs.push_back({e.clip_segment, e.model_frame, e.offset, e.weight});
  return pairs;
}

track::TrackSummary trackOn(const Model& model, const track::Capture& capture, const std::string& calibration = "") {
  track::PlanOptions po;
  po.calibration = calibration;
  const track::Retargeting plan = track::planTracking(model, capture, pairsFor(model, capture), po);
  int rows = 0;
  const track::TrackRecord record =
      track::runTracking(model, capture, plan, {}, [&](int f, const Configuration& q, const track::FrameOutcome&) {
        EXPECT_EQ(f, rows);
        EXPECT_TRUE(q.joints.allFinite() && q.base_position.allFinite());
        ++rows;
      });
  EXPECT_EQ(rows, capture.clip.numFrames());
  return track::summarize(record, 2.0, false);
}

void report(const char* model, const std::string& file, const track::TrackSummary& s) {
  std::printf("%-8s %-56s MNTE median %.1e p95 %.1e max %.1e, limit viol. %.1e, %.2f steps/frame, %d frames, %d gaps\n",
              model, file.c_str(), s.mnte_median, s.mnte_p95, s.mnte_max, s.limit_violation_max_rad, s.substeps_mean,
              s.frames, s.gaps);
}

TEST(TrackHuman, EveryBvhClipOnHuman66AndAHumanGazeboSubject) {
  const auto files = clipFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/data/bvh not found";
  KINETRACK_REQUIRE_SHARED(urdf, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  const Model human66 = makeHuman66();
  const Model subject = io::loadUrdf(urdf);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const track::Capture capture = track::loadCapture(testing::sharedFile("data/" + file));
    for (const Model* m : {&human66, &subject}) {
      const track::TrackSummary s = trackOn(*m, capture);
      report(m == &human66 ? "human66" : "subj01", file, s);
      EXPECT_EQ(s.frames, capture.clip.numFrames());
      EXPECT_EQ(s.gaps, 0);
      EXPECT_EQ(s.non_finite, 0);
      EXPECT_LT(s.mnte_p95, 1e-4);
    }
  }
}

TEST(TrackHuman, EveryBvhClipOnHuman48KeepsTheLimits) {
  const auto files = clipFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/data/bvh not found";
  const Model human48 = makeHuman48();
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const track::Capture capture = track::loadCapture(testing::sharedFile("data/" + file));
    const track::TrackSummary s = trackOn(human48, capture);
    report("human48", file, s);
    EXPECT_EQ(s.frames, capture.clip.numFrames());
    EXPECT_EQ(s.gaps, 0);
    EXPECT_EQ(s.non_finite, 0);
    EXPECT_LE(s.limit_violation_max_rad, 1e-6);
  }
}

TEST(TrackHuman, MvnxOnHumanGazeboSubjects) {
  KINETRACK_REQUIRE_SHARED(urdf66, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  KINETRACK_REQUIRE_SHARED(urdf48, "models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf");
  KINETRACK_REQUIRE_SHARED(mvnx, "data/mvnx/test_mocap.mvnx");
  KINETRACK_REQUIRE_SHARED(meri, "data/mvnx/Meri-020.mvnx");
  const Model m66 = io::loadUrdf(urdf66), m48 = io::loadUrdf(urdf48);
  for (const std::string& path : {mvnx, meri}) {
    SCOPED_TRACE(path);
    const track::Capture capture = track::loadCapture(path);
    // MVNX segment names are the models' frame names; every calibration the file has works.
    for (const auto& [type, pose] : capture.calibrations) {
      const track::TrackSummary s = trackOn(m66, capture, type);
      report("subj66", path + " (" + type + ")", s);
      EXPECT_EQ(s.gaps, 0);
      EXPECT_LT(s.mnte_p95, 1e-4);
    }
    const track::TrackSummary s48 = trackOn(m48, capture);
    report("subj48", path, s48);
    EXPECT_LE(s48.limit_violation_max_rad, 1e-6);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
