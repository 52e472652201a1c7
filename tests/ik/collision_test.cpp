// Collision limits (ik/collision.hpp): every row's coefficients are the derivative of its gap
// (height above the ground, pair distance) along each velocity coordinate (central finite
// differences on the configuration manifold, 1e-6 relative) on a floating mannequin and the G1;
// the pair filter (same link, within k joints, by name, overlapping at the reference); the row
// budget; the bounds' shaping; the violation figures; no allocation per step.
#include "kinetrack/ik/collision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/collision_fixtures.hpp"
#include "testing/finite_diff.hpp"

namespace kinetrack::ik {
namespace KINETRACK_UNITY_ID {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A random configuration within the joint limits (the middle 80 %), base at `height`.
Configuration randomConfiguration(const Model& m, std::uint64_t seed, double height) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.1, 0.9), w(-1.0, 1.0);
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    q.joints[j] = std::isfinite(lo) && std::isfinite(hi) ? lo + u(rng) * (hi - lo) : w(rng);
  }
  q.base_position = Vector3d(0.1 * w(rng), 0.1 * w(rng), height);
  q.base_rotation = so3::exp(Vector3d(0.3 * w(rng), 0.3 * w(rng), M_PI * w(rng)));
  return q;
}

// Every option on, activation far enough that every proxy and candidate pair has a row.
CollisionOptions everythingActive(int rows) {
  CollisionOptions o;
  o.ground.enabled = true;
  o.ground.margin = 0.003;
  o.ground.activation_distance = 100.0;
  o.ground.max_rows = rows;
  o.self.enabled = true;
  o.self.margin = 0.01;
  o.self.activation_distance = 100.0;
  o.self.max_rows = rows * rows;
  return o;
}

// The gap of a row (what its lower bound shapes) at configuration q, computed afresh.
double gapAt(const Model& m, const CollisionLimits& c, const CollisionRow& row, const Configuration& q) {
  Data d(m);
  forwardKinematics(m, d, q);
  if (row.ground) return c.groundHeight(d, row.index, row.end) - c.options().ground.margin;
  const CollisionPair& p = c.pairs()[static_cast<std::size_t>(row.index)];
  return c.proxyDistance(d, p.a, p.b) - c.pairMargin(row.index);
}

// Each active row against central differences of its gap, at several configurations.
void checkRowsAgainstFiniteDifferences(const Model& m, const std::vector<CollisionProxy>& proxies,
                                       const std::vector<Configuration>& configurations, int min_rows) {
  CollisionLimits c(m, proxies, everythingActive(static_cast<int>(proxies.size())));
  MatrixXd A(c.numRows(), m.nv());
  VectorXd lb(c.numRows()), ub(c.numRows());
  Data d(m);
  int checked = 0;
  for (const Configuration& q : configurations) {
    forwardKinematics(m, d, q);
    c.update(d);
    c.velocityRows(d, 0.01, A, lb, ub);
    ASSERT_GE(c.activeRows(), min_rows);
    for (int r = 0; r < c.activeRows(); ++r) {
      const CollisionRow row = c.activeRow(r);
      EXPECT_NEAR(row.gap, gapAt(m, c, row, q), 1e-12);
      const double scale = std::max(1.0, A.row(r).cwiseAbs().maxCoeff());
      for (int k = 0; k < m.nv(); ++k) {
        const double eps = 1e-6;
        const double fd = (gapAt(m, c, row, testing::perturbAlong(m, q, k, eps)) -
                           gapAt(m, c, row, testing::perturbAlong(m, q, k, -eps))) /
                          (2 * eps);
        ASSERT_NEAR(A(r, k), fd, 1e-6 * scale)
            << (row.ground ? "ground row of proxy " : "pair ") << row.index << ", coordinate " << k;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, min_rows);
}

TEST(CollisionLimits, RowsAreTheGapDerivativesOnTheMannequin) {
  const Model m = testing::makeMannequin(BaseType::Floating);
  std::vector<Configuration> qs;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) qs.push_back(randomConfiguration(m, seed, 0.9));
  checkRowsAgainstFiniteDifferences(m, testing::mannequinProxies(m), qs, 8);
}

TEST(CollisionLimits, RowsAreTheGapDerivativesOnTheG1) {
  Model g1;
  std::vector<CollisionProxy> proxies;
  if (!testing::loadG1(g1, proxies)) GTEST_SKIP() << "../shared/models/unitree not found";
  std::vector<Configuration> qs;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) qs.push_back(randomConfiguration(g1, seed, 0.8));
  checkRowsAgainstFiniteDifferences(g1, proxies, qs, 37);
}

TEST(CollisionLimits, PointJacobianMatchesFrameJacobian) {
  // pointJacobian at a frame's origin is the frame Jacobian's linear rows; the projected row is
  // nᵀ of it.
  const Model m = testing::makeMannequin(BaseType::Floating);
  const Configuration q = randomConfiguration(m, 4, 1.0);
  Data d(m);
  forwardKinematics(m, d, q);
  const FrameId hand = m.frameId("r_hand");
  Matrix6Xd Jf(6, m.nv());
  frameJacobian(m, d, hand, Jf);
  Eigen::Matrix<double, 3, Eigen::Dynamic> Jp(3, m.nv());
  const Vector3d p = frameOrigin(m, d, hand);
  pointJacobian(m, d, m.frameLink(hand), p, Jp);
  EXPECT_LT((Jp - Jf.topRows<3>()).cwiseAbs().maxCoeff(), 1e-14);
  MatrixXd rows = MatrixXd::Zero(2, m.nv());
  const Vector3d n(0.3, -0.4, 0.5);
  addProjectedPointJacobian(m, d, m.frameLink(hand), p, n, rows.row(1));
  EXPECT_LT((rows.row(1) - n.transpose() * Jp).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_EQ(rows.row(0).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_THROW(pointJacobian(m, d, LinkId(99), p, Jp), InvalidArgument);
}

TEST(CollisionLimits, PairFilter) {
  const Model m = testing::makeMannequin(BaseType::Floating);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  CollisionOptions o;
  o.self.enabled = true;
  o.self.ignore_within_joints = 1;
  auto names = [&](const CollisionLimits& c) {
    std::vector<std::string> out;
    for (const CollisionPair& p : c.pairs())
      out.push_back(proxies[static_cast<std::size_t>(p.a)].name + "-" + proxies[static_cast<std::size_t>(p.b)].name);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  {
    const CollisionLimits c(m, proxies, o);
    const auto pairs = names(c);
    EXPECT_FALSE(has(pairs, "forearm-hand"));       // same link
    EXPECT_FALSE(has(pairs, "pelvis-torso"));       // parent and child
    EXPECT_FALSE(has(pairs, "upper_arm-forearm"));  // parent and child
    EXPECT_FALSE(has(pairs, "thigh-shin"));
    EXPECT_TRUE(has(pairs, "hand-shin"));
    EXPECT_TRUE(has(pairs, "torso-upper_arm"));  // three joints apart (the shoulder's dummy links)
    EXPECT_TRUE(has(pairs, "torso-hand"));
    EXPECT_TRUE(has(pairs, "hand-thigh"));
    // the pelvis overlaps the thigh at s = 0: reported, not a candidate
    EXPECT_FALSE(has(pairs, "pelvis-thigh"));
    ASSERT_EQ(c.overlappingAtReference().size(), 1u);
    const auto& [pair, distance] = c.overlappingAtReference()[0];
    EXPECT_EQ(proxies[static_cast<std::size_t>(pair.a)].name, "pelvis");
    EXPECT_EQ(proxies[static_cast<std::size_t>(pair.b)].name, "thigh");
    EXPECT_LT(distance, 0.0);
    EXPECT_EQ(c.numRows(), std::min(16, static_cast<int>(c.pairs().size())));
    EXPECT_EQ(c.numGroundRows(), 0);
  }
  {
    CollisionOptions k2 = o;
    k2.self.ignore_within_joints = 3;
    k2.self.exclude = {{"torso", "r_forearm"}, {"l_shin", "*"}};
    const auto pairs = names(CollisionLimits(m, proxies, k2));
    EXPECT_FALSE(has(pairs, "torso-upper_arm"));
    EXPECT_FALSE(has(pairs, "torso-hand"));
    EXPECT_FALSE(has(pairs, "torso-forearm"));
    EXPECT_FALSE(has(pairs, "hand-shin"));
    EXPECT_FALSE(has(pairs, "pelvis-foot"));
    EXPECT_TRUE(has(pairs, "hand-thigh"));
  }
  {
    // a reference where the pelvis and thigh are apart (hip rolled out, 8 mm: inside the margin,
    // so only overlapping pairs are skipped): the pair is a candidate
    CollisionOptions r = o;
    r.self.reference_clearance = -r.self.margin;
    Configuration ref(m);
    ref.joints[m.jointId("l_hip_roll").value] = 0.5;
    r.self.reference = ref;
    const CollisionLimits c(m, proxies, r);
    EXPECT_TRUE(has(names(c), "pelvis-thigh"));
    EXPECT_TRUE(c.overlappingAtReference().empty());
  }
  CollisionOptions bad = o;
  bad.self.exclude = {{"torso", "nose"}};
  try {
    (void)CollisionLimits(m, proxies, bad);
    FAIL() << "no throw";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("nose"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("r_forearm"), std::string::npos) << "lists the links: " << e.what();
  }
  std::vector<CollisionProxy> broken = proxies;
  broken[3].radius = -0.1;
  try {
    (void)CollisionLimits(m, broken, o);
    FAIL() << "no throw";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("forearm"), std::string::npos) << e.what();
  }
  broken = proxies;
  broken[0].link = LinkId(42);
  EXPECT_THROW((void)CollisionLimits(m, broken, o), InvalidArgument);
  CollisionOptions zero_up = o;
  zero_up.ground.up = Vector3d::Zero();
  EXPECT_THROW((void)CollisionLimits(m, proxies, zero_up), InvalidArgument);
  CollisionOptions wrong_ref = o;
  wrong_ref.self.reference = Configuration();
  EXPECT_THROW((void)CollisionLimits(m, proxies, wrong_ref), InvalidArgument);
}

TEST(CollisionLimits, BoundsFollowTheShapingAndUnusedRowsAreFree) {
  const Model m = testing::makeMannequin(BaseType::Fixed);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  CollisionOptions o;
  o.ground.enabled = true;
  o.ground.margin = 0.01;
  o.ground.activation_distance = 0.05;
  o.ground.max_rows = 3;
  o.self.enabled = true;
  o.self.activation_distance = 0.0;  // self rows only inside the margin: none here
  o.self.max_rows = 4;
  CollisionLimits c(m, proxies, o);
  ASSERT_EQ(c.numRows(), 7);
  // The pelvis at 0.95 m: the foot sphere's bottom at 0.95 − 0.05 − 0.4 − 0.42 − 0.03 = 0.05.
  Configuration q(m);
  q.base_position = Vector3d(0, 0, 0.95);
  Data d(m);
  forwardKinematics(m, d, q);
  c.update(d);
  ASSERT_EQ(c.activeRows(), 1);
  const CollisionRow row = c.activeRow(0);
  EXPECT_TRUE(row.ground);
  EXPECT_EQ(proxies[static_cast<std::size_t>(row.index)].name, "foot");
  EXPECT_NEAR(row.gap, 0.05 - 0.01, 1e-12);
  MatrixXd A = MatrixXd::Constant(7, m.nv(), 3.0);
  VectorXd lb(7), ub(7);
  const double dt = 0.01;
  c.velocityRows(d, dt, A, lb, ub);
  const CollisionShaping& s = o.shaping;
  EXPECT_NEAR(lb[0], -s.max_velocity * std::tanh(s.gain / s.max_velocity * 0.04), 1e-12);
  EXPECT_EQ(ub[0], kInf);
  for (int r = 1; r < 7; ++r) {
    EXPECT_EQ(lb[r], -kInf);
    EXPECT_EQ(ub[r], kInf);
    EXPECT_EQ(A.row(r).cwiseAbs().maxCoeff(), 0.0);
  }
  // Below the margin the bound pushes back up, capped at landing on the margin in one step.
  q.base_position.z() = 0.905;  // the foot 5 mm below the margin (and the shin within reach)
  forwardKinematics(m, d, q);
  c.update(d);
  ASSERT_EQ(c.activeRows(), 2);
  const int foot = proxies[static_cast<std::size_t>(c.activeRow(0).index)].name == "foot" ? 0 : 1;
  EXPECT_NEAR(c.activeRow(foot).gap, -0.005, 1e-12);
  c.velocityRows(d, dt, A, lb, ub);
  EXPECT_NEAR(lb[foot], std::min(s.max_velocity * std::tanh(s.gain / s.max_velocity * 0.005), 0.005 / dt), 1e-12);
  EXPECT_GT(lb[foot], 0.0);
  c.velocityRows(d, 1.0, A, lb, ub);  // a long step: the push is capped at landing on the margin
  EXPECT_NEAR(lb[foot], 0.005, 1e-12);
  EXPECT_EQ(c.violation().ground_depth, 0.0);
  q.base_position.z() = 0.89;  // 1 cm below the ground
  forwardKinematics(m, d, q);
  c.update(d);
  EXPECT_NEAR(c.violation().ground_depth, 0.01, 1e-12);
  EXPECT_EQ(proxies[static_cast<std::size_t>(c.violation().ground_proxy)].name, "foot");
  // Far from the margin the approach speed is capped at V; the discrete guard caps it at gap/Δt.
  o.ground.activation_distance = 10.0;
  CollisionLimits far(m, proxies, o);
  q.base_position.z() = 2.0;
  forwardKinematics(m, d, q);
  far.update(d);
  far.velocityRows(d, 0.2, A, lb, ub);
  EXPECT_NEAR(lb[0], -s.max_velocity, 1e-9);
  far.velocityRows(d, 10.0, A, lb, ub);
  const double gap = far.activeRow(0).gap;
  EXPECT_NEAR(lb[0], std::max(-s.max_velocity * std::tanh(s.gain / s.max_velocity * gap), -gap / 10.0), 1e-12);
}

TEST(CollisionLimits, RowBudgetKeepsTheNearest) {
  const Model m = testing::makeMannequin(BaseType::Fixed);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  CollisionOptions o;
  o.ground.enabled = true;
  o.ground.activation_distance = 10.0;
  o.ground.max_rows = 2;
  o.self.enabled = true;
  o.self.activation_distance = 10.0;
  o.self.max_rows = 3;
  CollisionLimits c(m, proxies, o);
  Configuration q(m);
  q.base_position = Vector3d(0, 0, 1.0);
  Data d(m);
  forwardKinematics(m, d, q);
  c.update(d);
  ASSERT_EQ(c.activeRows(), 5);
  // A ground row per capsule end (one per sphere).
  int ends = 0;
  for (const CollisionProxy& p : proxies) ends += p.a == p.b ? 1 : 2;
  EXPECT_EQ(c.violation().dropped, ends - 2 + static_cast<int>(c.pairs().size()) - 3);
  // the two lowest capsule ends
  std::vector<double> heights;
  for (int i = 0; i < static_cast<int>(proxies.size()); ++i)
    for (int end = 0; end < (proxies[static_cast<std::size_t>(i)].a == proxies[static_cast<std::size_t>(i)].b ? 1 : 2);
         ++end)
      heights.push_back(c.groundHeight(d, i, end));
  std::sort(heights.begin(), heights.end());
  for (int r = 0; r < 2; ++r) EXPECT_LE(c.activeRow(r).gap, heights[1] + 1e-12);
  std::vector<double> distances;
  for (const CollisionPair& p : c.pairs()) distances.push_back(c.proxyDistance(d, p.a, p.b));
  std::sort(distances.begin(), distances.end());
  for (int r = 2; r < 5; ++r) EXPECT_LE(c.activeRow(r).gap + o.self.margin, distances[2] + 1e-12);
}

TEST(CollisionLimits, PenetrationIsReportedWithItsPair) {
  const Model m = testing::makeMannequin(BaseType::Fixed);
  const std::vector<CollisionProxy> proxies = testing::mannequinProxies(m);
  CollisionOptions o;
  o.self.enabled = true;
  CollisionLimits c(m, proxies, o);
  // The arm rolled in: the elbow inside the torso.
  Configuration q(m);
  q.joints[m.jointId("r_shoulder_roll").value] = 0.3;
  Data d(m);
  forwardKinematics(m, d, q);
  c.update(d);
  const CollisionViolation& v = c.violation();
  EXPECT_GT(v.penetration, 0.0);
  ASSERT_GE(v.pair.a, 0);
  EXPECT_NEAR(v.penetration, -c.proxyDistance(d, v.pair.a, v.pair.b), 1e-15);
  // the arm rolled into the torso and the pelvis
  const std::string body = proxies[static_cast<std::size_t>(v.pair.a)].name;
  const std::string arm = proxies[static_cast<std::size_t>(v.pair.b)].name;
  EXPECT_TRUE(body == "torso" || body == "pelvis") << body;
  EXPECT_TRUE(arm == "upper_arm" || arm == "forearm" || arm == "hand") << arm;
  EXPECT_NEAR(v.min_distance, -v.penetration, 1e-15);
}

TEST(CollisionLimits, UpdateAndRowsDoNotAllocate) {
  Model g1;
  std::vector<CollisionProxy> proxies;
  if (!testing::loadG1(g1, proxies)) GTEST_SKIP() << "../shared/models/unitree not found";
  CollisionOptions o;
  o.ground.enabled = true;
  o.self.enabled = true;
  o.self.activation_distance = 0.2;
  CollisionLimits c(g1, proxies, o);
  MatrixXd A(c.numRows(), g1.nv());
  VectorXd lb(c.numRows()), ub(c.numRows());
  Data d(g1);
  const Configuration q = randomConfiguration(g1, 3, 0.7);
  forwardKinematics(g1, d, q);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    c.update(d);
    c.velocityRows(d, 0.01, A, lb, ub);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_GT(c.activeRows(), 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::ik
