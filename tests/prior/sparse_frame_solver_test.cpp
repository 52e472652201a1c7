// The sparse solvers under StreamTracker (what `kinetrack track --targets` runs): bit for bit the
// solvers driven by hand (first frame repeated, later frames over the time since the last valid
// frame, gaps held), and bad slots refused.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/prior/sparse_frame_solver.hpp"
#include "kinetrack/track/stream_tracker.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

const std::vector<std::string> kFrames = {"Head", "RightHand", "LeftHand"};

// Head and hands of a swaying pose at time t.
std::vector<Transform> sway(const Model& m, double t) {
  Configuration q(m);
  q.base_position = Vector3d(0.0, 0.0, 1.0);
  for (int j = 0; j < m.numJoints(); ++j) q.joints[j] = 0.1 * std::sin(1.3 * t + 0.4 * j);
  Data d(m);
  framesForwardKinematics(m, d, q);
  std::vector<Transform> out;
  for (const std::string& f : kFrames) out.push_back(d.frame[static_cast<std::size_t>(m.frameId(f).value)]);
  return out;
}

void expectStreamIsByHand(bool dynamical) {
  auto model = std::make_shared<const Model>(makeHuman66());
  const Model& m = *model;
  Configuration q0(m);
  q0.base_position = Vector3d(0.0, 0.0, 1.0);
  track::TrackerOptions o;
  o.first_frame_interval = 1.0 / 60.0;
  std::vector<track::StreamTarget> targets;
  for (const std::string& f : kFrames) targets.push_back({f, true, true, 1.0});
  track::StreamTracker stream(std::make_unique<prior::SparseFrameSolver>(model, kFrames, nullptr, dynamical), targets,
                              o);
  EXPECT_EQ(stream.solver().name(), dynamical ? "sparse-dyn" : "sparse-gp");
  stream.setState(q0);
  std::optional<prior::SparseDynamicalIk> dyn;
  std::optional<prior::SparsePriorIk> gp;
  if (dynamical) {
    dyn.emplace(model, kFrames, nullptr);
    dyn->setState(q0);
  } else {
    gp.emplace(model, kFrames, nullptr);
    gp->setState(q0);
  }
  std::vector<Matrix3d> R(3);
  std::vector<Vector3d> p(3);
  double last = 0.0;
  for (int k = 0; k < 50; ++k) {
    const double t = k / 60.0;
    const std::vector<Transform> x = sway(m, t);
    for (std::size_t i = 0; i < 3; ++i) {
      R[i] = x[i].R;
      p[i] = x[i].p;
    }
    const bool valid = k % 17 != 9;
    const track::FrameOutcome out = stream.track(t, R, p, valid);
    if (!valid) {
      EXPECT_TRUE(out.gap);
      continue;
    }
    const int reps = k == 0 ? prior::kFirstFrameRepeats : 1;
    EXPECT_EQ(out.iterations, reps);
    for (int r = 0; r < reps; ++r) {
      if (dynamical)
        dyn->solve(x, k == 0 ? o.first_frame_interval : t - last);
      else
        gp->solve(x, false);
    }
    last = t;
    const Configuration& q = dynamical ? dyn->state() : gp->state();
    ASSERT_EQ(stream.state().joints, q.joints) << "frame " << k;
    ASSERT_EQ(stream.state().base_position, q.base_position) << "frame " << k;
  }
}

TEST(SparseFrameSolver, DynUnderTheStreamIsDynByHand) { expectStreamIsByHand(true); }
TEST(SparseFrameSolver, GpUnderTheStreamIsGpByHand) { expectStreamIsByHand(false); }

TEST(SparseFrameSolver, RefusesSlotsOutOfOrderOrNotPoses) {
  auto model = std::make_shared<const Model>(makeHuman66());
  prior::SparseFrameSolver s(model, kFrames, nullptr, true);
  EXPECT_THROW(s.addTarget("RightHand", true, true, 1.0), InvalidArgument);  // the first is Head
  EXPECT_THROW(s.addTarget("Head", true, false, 1.0), InvalidArgument);
  EXPECT_EQ(s.addTarget("Head", true, true, 1.0), 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
