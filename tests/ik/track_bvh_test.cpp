// DYN on real captures (issue 4, first proof): every BVH clip tracked on its own skeleton
// (modelFromBvh) recovers the clip's own joint angles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/io/bvh.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace {

std::vector<std::string> clipFiles() {
  std::vector<std::string> files;
  const std::string csv = testing::sharedFile("data/bvh/CLIPS.csv");
  if (csv.empty()) return files;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (!line.empty()) files.push_back(line.substr(0, line.find(',')));
  return files;
}

// DISABLED (open work of issue 4, run it with --gtest_also_run_disabled_tests): measured at the
// end of the session that wrote it, starting from each clip's first frame, κ = K·Δt = 0.5:
//   joint RMS < 0.25° and max MNTE < 1.5e-3 on 14 of 20 clips (xsens 0.005°, reactidle 0.01–0.04°,
//   pymo 0.04°, bandai walk/wave/raise 0.03–0.25°, iClone 003/005/007 0.1–0.16°), but
//   bandai run 0.67° (MNTE 1.2e-3), iClone 006 0.52° (MNTE 0.03), bandai walk-turn-left 7.4°
//   (MNTE 0.13), CMU 01_01 43° with MNTE 2e-4 (orientations tracked: another Euler-angle triple —
//   its frame 0 is a synthetic T-pose), CMU 131_0x 19–32° with MNTE up to 0.1 (real tracking
//   errors, likely gimbal lock of the ZYX/ZXY chains passing ±90°). To investigate before enabling.
TEST(TrackBvh, DISABLED_EveryClipOnItsOwnSkeletonRecoversTheClipAngles) {
  const auto files = clipFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/data/bvh not found";
#ifdef NDEBUG
  const std::size_t count = files.size();
#else
  const std::size_t count = 2;  // Debug/ASan: the same code on two clips
#endif
  for (std::size_t c = 0; c < count; ++c) {
    SCOPED_TRACE(files[c]);
    const io::BvhFile f = io::readBvh(testing::sharedFile("data/" + files[c]));
    const Model m = io::modelFromBvh(f);
    const io::MotionClip clip = io::bvhToClip(f);
    const std::vector<Configuration> truth = io::bvhConfigurations(m, f);
    DynamicalIkOptions o;
    o.gain_mode = GainMode::PerStep;  // κ = K·Δt, the same at 24 and 120 Hz
    DynamicalIk ik(m, o);
    std::vector<TargetId> ids;
    for (int s = 0; s < clip.numSegments(); ++s) ids.push_back(ik.addOrientationTarget(clip.segment_names[static_cast<std::size_t>(s)], 0.5));
    const TargetId root = ik.addPositionTarget(clip.segment_names[0], 0.5);
    const double dt = f.frame_time;
    // Start from the clip's first frame: tracking, not global search, is under test (from the
    // zero pose an Euler-angle chain may settle on another angle triple of the same rotation).
    ik.setState(truth[0]);
    const double transient = std::min(2.0, 0.25 * clip.numFrames() * dt);
    double sum2 = 0.0, mnte_max = 0.0;
    long n = 0;
    for (int fr = 0; fr < clip.numFrames(); ++fr) {
      for (int s = 0; s < clip.numSegments(); ++s) {
        const std::size_t k = static_cast<std::size_t>(fr) * static_cast<std::size_t>(clip.numSegments()) + static_cast<std::size_t>(s);
        ik.setTargetOrientation(ids[static_cast<std::size_t>(s)], clip.pose(fr, s).R, clip.angular_velocity[k]);
      }
      ik.setTargetPosition(root, clip.pose(fr, 0).p, clip.linear_velocity[static_cast<std::size_t>(fr) * static_cast<std::size_t>(clip.numSegments())]);
      ik.step(dt);
      if (fr * dt < transient) continue;
      mnte_max = std::max(mnte_max, ik.mnte());
      const Configuration& q = ik.state();
      const Configuration& t = truth[static_cast<std::size_t>(fr)];
      for (int j = 0; j < m.numJoints(); ++j) {
        if (m.jointType(JointId(j)) == JointType::Prismatic) continue;
        const double e = std::remainder(q.joints[j] - t.joints[j], 2.0 * M_PI);
        sum2 += e * e;
        ++n;
      }
    }
    const double rms_deg = n ? std::sqrt(sum2 / static_cast<double>(n)) * 180.0 / M_PI : 0.0;
    std::printf("%-60s joint RMS %.4f deg, max MNTE %.2e (%d frames, %d DoF)\n", files[c].c_str(), rms_deg, mnte_max,
                clip.numFrames(), m.nv());
    EXPECT_LT(rms_deg, 0.5);
  }
}

}  // namespace
}  // namespace kinetrack
