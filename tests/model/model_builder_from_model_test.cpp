#include <gtest/gtest.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// A model rebuilt from itself is identical (compared through its exact URDF text, which holds
// every name, order, placement, axis, limit and inertial to 17 digits).
TEST(ModelBuilderFromModel, RebuildIsIdenticalForHumanModels) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    const Model r = ModelBuilder(m).build();
    EXPECT_EQ(io::toUrdf(m), io::toUrdf(r)) << m.name();
    EXPECT_EQ(m.frameNames(), r.frameNames());
  }
}

TEST(ModelBuilderFromModel, RebuildIcubAndAddMarkerAndCouplingRow) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = io::loadUrdf(path);
  EXPECT_EQ(io::toUrdf(m), io::toUrdf(ModelBuilder(m).build()));

  ModelBuilder b(m);
  Transform X;
  X.p = {0.0, 0.0, 0.05};
  b.addFrame("r_hand_marker", "r_hand_dh_frame", X);
  // COUPLING.md row 3: −1.1623 ≤ roll + yaw ≤ 3.7228.
  b.addLinearConstraint("r_shoulder_row3", {{"r_shoulder_roll", 1.0}, {"r_shoulder_yaw", 1.0}}, -1.1623, 3.7228, 2.0);
  const Model m2 = b.build();
  ASSERT_EQ(m2.numFrames(), m.numFrames() + 1);
  const FrameId marker = m2.frameId("r_hand_marker");
  EXPECT_EQ(m2.frameKind(marker), FrameKind::User);
  EXPECT_EQ(m2.frameLink(marker), m2.frameLink(m2.frameId("r_hand_dh_frame")));
  const Transform& dh = m2.framePlacement(m2.frameId("r_hand_dh_frame"));
  EXPECT_LT((m2.framePlacement(marker).p - (dh.p + dh.R * X.p)).norm(), 1e-15);
  ASSERT_EQ(m2.linearConstraints().size(), 1u);
  const LinearConstraint& c = m2.linearConstraints()[0];
  EXPECT_EQ(c.coefficients[m2.jointId("r_shoulder_roll").value], 1.0);
  EXPECT_EQ(c.coefficients[m2.jointId("r_shoulder_yaw").value], 1.0);
  EXPECT_EQ(c.coefficients.cwiseAbs().sum(), 2.0);
  EXPECT_THROW(ModelBuilder(m).addFrame("x", "no_such_link", X), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
