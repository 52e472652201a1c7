// Pin-and-drag on the iCub retarget model, whose tendon-driven shoulders and forearms are 14
// coupling rows lower ≤ a·s ≤ upper: a hand dragged towards the body (a shoulder adduction that
// row 4, roll + 0.0427·yaw ≥ 0.4611, limits) with both soles and the other hand pinned. With the
// rows, every update keeps every row, joint limit and velocity limit, and the pins hold; the same
// drag on the URDF without rows leaves the coupling region (so the check can fail), while with
// them the other joints take over and the hand still reaches its target.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kinetrack/ik/limits.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/icub.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kDt = 0.01;

/// Arms a little abducted and bent: inside every coupling row (the zero pose is not: row 4).
Configuration couplingStart(const Model& m) {
  Configuration q(m);
  q.base_position = Vector3d(0.0, 0.0, 0.6);
  for (const char* side : {"l_", "r_"}) {
    q.joints[m.jointId(std::string(side) + "shoulder_roll").value] = 0.7;
    q.joints[m.jointId(std::string(side) + "shoulder_pitch").value] = -0.4;
    q.joints[m.jointId(std::string(side) + "elbow").value] = 0.9;
  }
  return q;
}

/// Unit direction in which r_hand moves when r_shoulder_roll decreases at the start pose.
Vector3d adductionDirection(const Model& m) {
  Configuration q = couplingStart(m);
  const FrameId hand = m.frameId("r_hand");
  Data d(m);
  forwardKinematics(m, d, q);
  const Vector3d p0 = updateFramePlacement(m, d, hand).p;
  q.joints[m.jointId("r_shoulder_roll").value] -= 1e-4;
  forwardKinematics(m, d, q);
  return (updateFramePlacement(m, d, hand).p - p0).normalized();
}

struct CouplingRun {
  double max_row_violation = 0.0;  ///< of the 14 rows, measured on every state (rad)
  double max_pin_position = 0.0, max_pin_orientation = 0.0, max_speed_ratio = 0.0, max_limit_violation = 0.0;
  int max_active_rows = 0;
  double hand_progress = 0.0;  ///< how far the hand moved towards the target (m)
  bool finite = true;
};

/// The scripted drag on `m`; rows measured with `rows` (the retarget model's).
CouplingRun dragAcrossChest(const Model& m, const ik::RowLimits& rows, const Model& with_rows) {
  ik::PinDragIk ik(m);
  ik.setState(couplingStart(with_rows));
  ik.pin("l_sole", TargetType::Pose);
  ik.pin("r_sole", TargetType::Pose);
  ik.pin("l_hand", TargetType::Position);
  const FrameId hand = m.frameId("r_hand");
  ik.drag(hand);
  Data d(m);
  forwardKinematics(m, d, ik.state());
  const Vector3d start = updateFramePlacement(m, d, hand).p;
  // 15 cm the way the hand moves when the right shoulder adducts (roll decreasing, row 4's
  // direction), over 2 s, then held 1 s.
  const Vector3d goal = start + 0.15 * adductionDirection(with_rows);
  CouplingRun out;
  for (int k = 1; k <= 300; ++k) {
    ik.setDragTarget(hand, start + std::min(1.0, k / 200.0) * (goal - start));
    const ik::PinDragResult r = ik.update(kDt);
    out.max_row_violation = std::max(out.max_row_violation, rows.violation(ik.state().joints));
    out.max_pin_position = std::max(out.max_pin_position, r.pin_position_error);
    out.max_pin_orientation = std::max(out.max_pin_orientation, r.pin_orientation_error);
    out.max_speed_ratio =
        std::max(out.max_speed_ratio, ik.velocity().cwiseAbs().cwiseQuotient(ik.velocityLimits()).maxCoeff());
    out.max_limit_violation = std::max(out.max_limit_violation, positionLimitViolation(m, ik.state()));
    out.max_active_rows = std::max(out.max_active_rows, r.active_rows);
    out.finite = out.finite && ik.state().joints.allFinite() && ik.velocity().allFinite();
  }
  forwardKinematics(m, d, ik.state());
  out.hand_progress = (updateFramePlacement(m, d, hand).p - start).dot((goal - start).normalized());
  return out;
}

TEST(PinDragCoupling, IcubRetargetDragKeepsCouplingRowsAndPins) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model urdf = io::loadUrdf(path);
  const Model icub = icubForRetargeting(urdf);
  ASSERT_EQ(icub.linearConstraints().size(), 14U);
  const ik::RowLimits rows(icub);
  ASSERT_EQ(rows.violation(couplingStart(icub).joints), 0.0);

  const CouplingRun coupled = dragAcrossChest(icub, rows, icub);
  EXPECT_TRUE(coupled.finite);
  EXPECT_LT(coupled.max_row_violation, 1e-9) << "coupling rows";
  EXPECT_GT(coupled.max_active_rows, 0) << "the drag never reached the coupling: the test proves nothing";
  EXPECT_LT(coupled.max_pin_position, 1e-4);
  EXPECT_LT(coupled.max_pin_orientation, 1e-3);
  EXPECT_EQ(coupled.max_limit_violation, 0.0);
  EXPECT_LE(coupled.max_speed_ratio, 1.0 + 1e-9);
  // The other joints of the arm and torso take over: the hand still reaches the 15 cm target.
  EXPECT_GT(coupled.hand_progress, 0.145);

  // The same drag without the rows leaves the coupling region (by 0.039 rad when written).
  const CouplingRun free = dragAcrossChest(urdf, rows, icub);
  EXPECT_GT(free.max_row_violation, 0.02);
  EXPECT_EQ(free.max_active_rows, 0);
}

TEST(PinDragCoupling, UpdateWithActiveRowsDoesNotAllocate) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model icub = icubForRetargeting(io::loadUrdf(path));
  ik::PinDragIk ik(icub);
  ik.setState(couplingStart(icub));
  ik.pin("l_sole", TargetType::Pose);
  const FrameId hand = icub.frameId("r_hand");
  ik.drag(hand);
  Data d(icub);
  forwardKinematics(icub, d, ik.state());
  ik.setDragTarget(hand, updateFramePlacement(icub, d, hand).p + 0.3 * adductionDirection(icub));
  for (int k = 0; k < 50; ++k) ik.update(kDt);
  int active = 0;
  long allocations = 0;
  {
    const testing::AllocationCounter guard;
    for (int k = 0; k < 50; ++k) active = std::max(active, ik.update(kDt).active_rows);
    allocations = guard.count();
  }
  EXPECT_GT(active, 0);
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
