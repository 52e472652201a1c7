// Joint-angle densities (GPM Eq. 5): Silverman's bandwidth, the tabulated KDE against the direct
// kernel sum, the gradient of p_max/p against finite differences, the tails, workspace cells and
// the empty-cell fallback.
#include "kinetrack/prior/density.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"

namespace kinetrack::prior {
namespace KINETRACK_UNITY_ID {

std::vector<double> bimodal(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> a(-0.4, 0.1), b(0.5, 0.2);
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(i % 3 == 0 ? a(rng) : b(rng));
  return s;
}

double directKde(const std::vector<double>& s, double h, double x) {
  double p = 0.0;
  for (double v : s) p += std::exp(-0.5 * (x - v) * (x - v) / (h * h));
  return p / (static_cast<double>(s.size()) * h * std::sqrt(2 * M_PI));
}

TEST(Density, SilvermanBandwidthFollowsTheRule) {
  const std::vector<double> s = {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0};
  // σ = sqrt(110/12) = 3.0277, IQR = 6.75 − 2.25 = 4.5 → min(σ, IQR/1.34 = 3.358) = σ.
  EXPECT_NEAR(silvermanBandwidth(s), 0.9 * std::sqrt(110.0 / 12.0) * std::pow(10.0, -0.2), 1e-12);
  const std::vector<double> flat = {1.0, 1.0, 1.0, 1.0, 5.0};  // IQR 0: σ is used
  EXPECT_GT(silvermanBandwidth(flat), 0.0);
  EXPECT_THROW(silvermanBandwidth(std::vector<double>{}), InvalidArgument);
}

TEST(Density, TableMatchesTheDirectKernelSumAndIntegratesToOne) {
  const std::vector<double> s = bimodal(600, 1);
  const JointDensity d(s, DensityOptions{});
  double integral = 0.0;
  for (double x = d.lower(); x < d.upper(); x += 1e-3) integral += d.density(x) * 1e-3;
  EXPECT_NEAR(integral, 1.0, 2e-3);
  double worst = 0.0;
  for (double x = -0.8; x < 1.2; x += 0.0137) {
    const double p = directKde(s, d.bandwidth(), x);
    worst = std::max(worst, std::abs(d.density(x) - p) / p);
  }
  EXPECT_LT(worst, 0.03);  // binned KDE + linear interpolation on a grid of h/4: O((h/4)²/h²)
  EXPECT_EQ(d.samples(), 600);
  EXPECT_EQ(d.density(d.upper() + 1.0), 0.0);
}

TEST(Density, GradientOfTheInverseDensityMatchesFiniteDifferences) {
  const std::vector<double> s = bimodal(400, 2);
  const JointDensity d(s, DensityOptions{});
  const double h = d.bandwidth();
  double pmax = 0.0;
  for (double x = d.lower(); x < d.upper(); x += 1e-3) pmax = std::max(pmax, directKde(s, h, x));
  const double eps = 1e-5;
  for (double x : {-0.5, -0.3, 0.0, 0.3, 0.6, 0.9}) {
    const double fd = (pmax / directKde(s, h, x + eps) - pmax / directKde(s, h, x - eps)) / (2 * eps);
    EXPECT_NEAR(d.gradient(x), fd, 0.03 * std::abs(fd) + 0.05) << "at " << x;
  }
}

TEST(Density, DescentOnTheInverseDensityPointsTowardsTheData) {
  const std::vector<double> s = bimodal(400, 3);
  const JointDensity d(s, DensityOptions{});
  // −dH/dθ > 0 (move right) left of all data, < 0 right of it, also outside the table.
  EXPECT_LT(d.gradient(-0.7), 0.0);
  EXPECT_LT(d.gradient(d.lower() - 1.0), 0.0);
  EXPECT_GT(d.gradient(1.3), 0.0);
  EXPECT_GT(d.gradient(d.upper() + 1.0), 0.0);
  EXPECT_EQ(d.gradient(std::numeric_limits<double>::quiet_NaN()), 0.0);
  for (double x = d.lower() - 0.5; x < d.upper() + 0.5; x += 0.01) {
    EXPECT_TRUE(std::isfinite(d.gradient(x)));
    EXPECT_LE(std::abs(d.gradient(x)), DensityOptions{}.max_gradient);
  }
}

TEST(Density, ASingleSampleOrConstantJointGetsTheMinimumBandwidth) {
  const JointDensity one(std::vector<double>{0.3}, DensityOptions{});
  EXPECT_DOUBLE_EQ(one.bandwidth(), DensityOptions{}.min_bandwidth);
  EXPECT_GT(one.density(0.3), 0.0);
  const JointDensity same(std::vector<double>(50, -0.2), DensityOptions{});
  EXPECT_DOUBLE_EQ(same.bandwidth(), DensityOptions{}.min_bandwidth);
  EXPECT_THROW(JointDensity(std::vector<double>{}, DensityOptions{}), InvalidArgument);
  EXPECT_THROW(JointDensity(std::vector<double>{0.0, std::nan("")}, DensityOptions{}), InvalidArgument);
}

TEST(Density, WorkspaceCellsDivideTheBoxAndClampOutside) {
  WorkspaceGrid g;
  g.lower = Vector3d(0, 0, 0);
  g.upper = Vector3d(1, 2, 4);
  g.inc = 4;
  EXPECT_EQ(g.cell(Vector3d(0.1, 0.1, 0.1)), 0);
  EXPECT_EQ(g.cell(Vector3d(0.9, 1.9, 3.9)), 63);
  EXPECT_EQ(g.cell(Vector3d(0.3, 0.1, 0.1)), 16);  // x index 1
  EXPECT_EQ(g.cell(Vector3d(0.1, 0.6, 0.1)), 4);   // y index 1
  EXPECT_EQ(g.cell(Vector3d(0.1, 0.1, 1.1)), 1);   // z index 1
  EXPECT_EQ(g.cell(Vector3d(-5, -5, -5)), 0);
  EXPECT_EQ(g.cell(Vector3d(5, 5, 5)), 63);
  EXPECT_EQ(g.cell(Vector3d(std::nan(""), 0.1, 0.1)), 0);
}

/// Two joints keyed by one point; samples in two clusters of key points with different angles.
PriorSamples twoClusters(int per_cluster) {
  PriorSamples s;
  s.num_joints = 2;
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0.0, 0.05);
  for (int i = 0; i < 2 * per_cluster; ++i) {
    const bool far = i >= per_cluster;
    s.joints.push_back((far ? 1.0 : -1.0) + n(rng));
    s.joints.push_back(0.2 + n(rng));
    s.key_points.push_back(far ? Vector3d(1.0, 1.0, 1.0) + 0.1 * randomVector3(n, rng)
                               : Vector3d(0.0, 0.0, 0.0) + 0.1 * randomVector3(n, rng));
  }
  return s;
}

TEST(DensityPrior, CellsLearnTheirOwnDistributionsAndEmptyCellsFallBack) {
  DensityOptions o;
  o.inc = 2;
  o.min_samples = 10;
  const DensityPrior p(twoClusters(100), {{0, 1}}, o);
  EXPECT_EQ(p.occupiedCells(0), 2);
  double g[2];
  const Vector3d near_key(0, 0, 0), far_key(1, 1, 1), empty_key(0, 0, 1);
  // At θ0 = 0: the near cell's mode is −1 (descend to the left: dH/dθ > 0), the far cell's +1.
  const double theta[2] = {0.0, 0.2};
  EXPECT_EQ(p.gradient(theta, std::span<const Vector3d>(&near_key, 1), g), 0);
  EXPECT_GT(g[0], 0.0);
  EXPECT_EQ(p.gradient(theta, std::span<const Vector3d>(&far_key, 1), g), 0);
  EXPECT_LT(g[0], 0.0);
  EXPECT_EQ(p.gradient(theta, std::span<const Vector3d>(&empty_key, 1), g), 1);  // empty: LN
  EXPECT_EQ(g[0], 0.0);
  EXPECT_EQ(g[1], 0.0);
  // inc = 1: one cell with both clusters.
  o.inc = 1;
  const DensityPrior one(twoClusters(100), {{0, 1}}, o);
  EXPECT_EQ(one.occupiedCells(0), 1);
  // Thin cells are empty.
  o.inc = 2;
  o.min_samples = 150;
  const DensityPrior thin(twoClusters(100), {{0, 1}}, o);
  EXPECT_EQ(thin.occupiedCells(0), 0);
}

TEST(DensityPrior, BadInputIsRejectedAndNonFiniteSamplesAreSkipped) {
  DensityOptions o;
  PriorSamples s = twoClusters(20);
  EXPECT_THROW(DensityPrior(s, {{0, 2}}, o), InvalidArgument);    // joint out of range
  EXPECT_THROW(DensityPrior(s, {{0}, {0}}, o), InvalidArgument);  // joint twice; also key-point count
  EXPECT_THROW(DensityPrior(s, {}, o), InvalidArgument);          // no group
  o.inc = 0;
  EXPECT_THROW(DensityPrior(s, {{0, 1}}, o), InvalidArgument);
  o.inc = 1;
  s.joints[0] = std::nan("");
  s.key_points[3] = Vector3d::Constant(std::nan(""));
  const DensityPrior p(s, {{0, 1}}, o);
  EXPECT_EQ(p.cellDensities(0, 0)->samples(), 38);
  PriorSamples bad;
  bad.num_joints = 1;
  bad.joints = {std::nan("")};
  bad.key_points = {Vector3d::Zero()};
  EXPECT_THROW(DensityPrior(bad, {{0}}, o), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::prior
