// `kinetrack retarget` without --map (issue 38) as the library job (app::runRetarget): a G1 whose
// links and joints are renamed and whose children are listed in another order retargets through
// the automatic robot map to the same joint trajectories as the G1 through its built-in map; the
// map used is shown and --save-map writes it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/robot_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

TEST(RetargetRobotMapJob, ARenamedG1RetargetsLikeTheG1) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  std::map<std::string, std::string> renamed;
  const Model g1 = io::loadUrdf(urdf);
  // Beside the G1's file: its meshes (the collision geometry) resolve as the G1's do.
  const Model other = io::parseUrdf(testing::renamedUrdf(testing::readText(urdf), renamed),
                                    (std::filesystem::path(urdf).parent_path() / "renamed_g1.urdf").string());
  const track::Capture capture = track::loadCapture(bvh);
  std::string shown;
  app::Reporter reporter;
  reporter.note = [&](const std::string& n) { shown += n; };
  app::RetargetOptions o;
  o.transient = 0.0;
  const app::TrackResult a = app::runRetarget(o, reporter, &g1, &capture);
  EXPECT_NE(shown.find("robot map 'g1_29dof':\n  Pelvis -> pelvis\n  T8 -> torso_link\n"), std::string::npos) << shown;
  shown.clear();
  const app::TrackResult b = app::runRetarget(o, reporter, &other, &capture);
  EXPECT_NE(shown.find("robot map 'auto':\n  Pelvis -> " + renamed.at("pelvis") + "\n"), std::string::npos) << shown;
  ASSERT_EQ(a.q.size(), b.q.size());
  ASSERT_EQ(a.q.size(), static_cast<std::size_t>(capture.clip.numFrames()));
  double worst = 0.0;
  for (std::size_t f = 0; f < a.q.size(); ++f) {
    for (int j = 0; j < g1.numJoints(); ++j) {
      const int k = other.jointId(renamed.at(g1.jointName(JointId(j)))).value;
      worst = std::max(worst, std::abs(a.q[f].joints[j] - b.q[f].joints[k]));
    }
    worst = std::max(worst, (a.q[f].base_position - b.q[f].base_position).norm());
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(a.summary.frames, 200);
  EXPECT_EQ(a.summary.non_finite, 0);
}

TEST(RetargetRobotMapJob, SaveMapWritesTheMapUsed) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/h1/h1.urdf");
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh");
  const Model h1 = io::loadUrdf(urdf);
  const track::Capture capture = track::loadCapture(bvh);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("kinetrack_save_map_" + std::to_string(::getpid()) + ".json");
  app::RetargetOptions o;
  o.save_map = path.string();
  o.map = "auto";
  const app::TrackResult a = app::runRetarget(o, {}, &h1, &capture);
  const io::SegmentMap saved = io::readSegmentMap(path.string());
  EXPECT_EQ(saved.name, "auto");
  EXPECT_EQ(saved.entries.size(), io::builtinRobotMap("h1").entries.size());
  // The saved map given as the map retargets the same, and so does the H1's built-in map (the
  // automatic map found the same links).
  o.save_map.clear();
  o.map = path.string();
  const app::TrackResult b = app::runRetarget(o, {}, &h1, &capture);
  std::filesystem::remove(path);
  o.map = "h1";
  const app::TrackResult c = app::runRetarget(o, {}, &h1, &capture);
  ASSERT_EQ(a.q.size(), b.q.size());
  ASSERT_EQ(a.q.size(), c.q.size());
  for (std::size_t f = 0; f < a.q.size(); ++f) {
    EXPECT_EQ(a.q[f].joints, b.q[f].joints) << f;
    EXPECT_EQ(a.q[f].joints, c.q[f].joints) << f;
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
