// The polynomial mapping of Eq. 14–15 (biomech/posture_mapping.hpp): the monomials against a
// brute-force product, exact recovery of a known polynomial map, the truncated pseudo-inverse
// against an independent JacobiSVD one, the error-by-rank shortcut against explicit predictions,
// the in-sample monotonicity and the out-of-sample optimum below full rank, bad input.
#include "kinetrack/biomech/posture_mapping.hpp"

#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cmath>
#include <random>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::biomech {
namespace KINETRACK_UNITY_ID {

MatrixXd uniform(int rows, int cols, unsigned seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = u(rng);
  return m;
}

TEST(PolynomialFeatures, CountsOrderAndValuesMatchBruteForce) {
  const PolynomialFeatures f(3, 3);
  EXPECT_EQ(f.size(), 20);  // C(6, 3)
  EXPECT_EQ(PolynomialFeatures(36, 2).size(), 703);
  EXPECT_EQ(PolynomialFeatures(4, 0).size(), 1);
  std::set<std::vector<int>> seen;
  int last_degree = 0;
  for (int k = 0; k < f.size(); ++k) {
    const std::vector<int> t = f.term(k);
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
    EXPECT_GE(static_cast<int>(t.size()), last_degree) << "graded order";
    last_degree = static_cast<int>(t.size());
    EXPECT_TRUE(seen.insert(t).second) << "term " << k << " twice";
  }
  EXPECT_EQ(f.termName(0), "1");
  EXPECT_EQ(f.termName(1), "x0");
  EXPECT_EQ(f.termName(4), "x0*x0");
  EXPECT_EQ(f.termName(5, {"a", "b", "c"}), "a*b");
  const VectorXd x = (VectorXd(3) << 0.3, -1.7, 2.1).finished();
  const VectorXd v = f(x);
  for (int k = 0; k < f.size(); ++k) {
    double p = 1.0;
    for (int i : f.term(k)) p *= x[i];
    EXPECT_DOUBLE_EQ(v[k], p) << f.termName(k);
  }
}

TEST(PolynomialMapFit, RecoversAKnownPolynomialMapExactly) {
  const PolynomialFeatures f(3, 2);  // 10 terms
  const MatrixXd m_true = uniform(4, f.size(), 1, -2.0, 2.0);
  const MatrixXd x = uniform(3, 200, 2), x_test = uniform(3, 50, 3, -1.5, 1.5);
  const MatrixXd y = m_true * f.matrix(x), y_test = m_true * f.matrix(x_test);
  const PolynomialMapFit fit(x, y, 2);
  ASSERT_EQ(fit.rank(), f.size());
  const PolynomialMap map = fit.map(fit.rank());
  EXPECT_LT((map.matrix() - m_true).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((map.applyAll(x_test) - y_test).cwiseAbs().maxCoeff(), 1e-9);
  const MatrixXd in = fit.rmsErrorByRank(x, y), out = fit.rmsErrorByRank(x_test, y_test);
  EXPECT_LT(in(in.rows() - 1, fit.rank() - 1), 1e-10);
  EXPECT_LT(out(out.rows() - 1, fit.rank() - 1), 1e-9);
  // Fewer singular values than terms cannot represent it.
  EXPECT_GT(in(in.rows() - 1, fit.rank() - 2), 1e-3);
}

TEST(PolynomialMapFit, TruncatedPseudoInverseMatchesAnIndependentOne) {
  const MatrixXd x = uniform(4, 80, 4), y = uniform(3, 80, 5);  // unrelated: every k matters
  const PolynomialMapFit fit(x, y, 2);
  const MatrixXd f = fit.features().matrix(x);
  const Eigen::JacobiSVD<MatrixXd> svd(f, Eigen::ComputeThinU | Eigen::ComputeThinV);
  ASSERT_EQ(fit.rank(), 15);
  EXPECT_LT((fit.singularValues() - svd.singularValues().head(15)).cwiseAbs().maxCoeff(), 1e-10);
  for (int k : {1, 3, 8, 15}) {
    // F⁺_k = V_k S_k⁻¹ U_kᵀ, M_k = Y F⁺_k.
    const MatrixXd pinv = svd.matrixV().leftCols(k) * svd.singularValues().head(k).cwiseInverse().asDiagonal() *
                          svd.matrixU().leftCols(k).transpose();
    EXPECT_LT((fit.map(k).matrix() - y * pinv).cwiseAbs().maxCoeff(), 1e-9) << "k = " << k;
  }
}

TEST(PolynomialMapFit, ErrorByRankEqualsExplicitPredictionsAndFallsInSample) {
  const MatrixXd x = uniform(3, 60, 6), y = uniform(2, 60, 7);
  const MatrixXd x2 = uniform(3, 30, 8), y2 = uniform(2, 30, 9);
  const PolynomialMapFit fit(x, y, 3);
  const MatrixXd in = fit.rmsErrorByRank(x, y), out = fit.rmsErrorByRank(x2, y2);
  ASSERT_EQ(in.rows(), 3);
  ASSERT_EQ(in.cols(), fit.rank());
  for (int k = 1; k <= fit.rank(); ++k) {
    const MatrixXd r = fit.map(k).applyAll(x2) - y2;
    for (int o = 0; o < 2; ++o) EXPECT_NEAR(out(o, k - 1), std::sqrt(r.row(o).squaredNorm() / 30.0), 1e-10);
    EXPECT_NEAR(out(2, k - 1), std::sqrt(r.squaredNorm() / 60.0), 1e-10);
    if (k > 1) {
      EXPECT_LE(in(2, k - 1), in(2, k - 2) + 1e-12) << "in-sample error grows at k = " << k;
    }
  }
}

TEST(PolynomialMapFit, FewerSingularValuesGeneraliseBetterOnNoisySamples) {
  // Fig. 14's point: a smooth relation sampled with noise; the full pseudo-inverse of a degree-4
  // fit on barely more samples than terms follows the noise, a truncated one does not.
  const int n = 18;
  const MatrixXd x = uniform(2, n, 10), x_test = uniform(2, 400, 11);
  auto truth = [](const MatrixXd& s) {
    MatrixXd y(1, s.cols());
    for (Eigen::Index j = 0; j < s.cols(); ++j) y(0, j) = std::sin(1.3 * s(0, j)) + 0.5 * s(1, j) * s(1, j);
    return y;
  };
  const MatrixXd noise = 0.1 * uniform(1, n, 12);
  const PolynomialMapFit fit(x, truth(x) + noise, 4);  // 15 terms
  ASSERT_EQ(fit.rank(), 15);
  const MatrixXd out = fit.rmsErrorByRank(x_test, truth(x_test));
  Eigen::Index best = 0;
  const double min_err = out.row(1).minCoeff(&best);
  EXPECT_LT(best + 1, fit.rank());
  EXPECT_LT(min_err, 0.5 * out(1, fit.rank() - 1)) << "best k " << best + 1;
}

TEST(PolynomialMapFit, RankDeficientSamplesGiveTheMinimumNormMap) {
  MatrixXd x = uniform(2, 40, 13);
  x.row(1) = 2.0 * x.row(0);  // the second input repeats the first
  const MatrixXd y = (x.row(0).array().square() + 1.0).matrix();
  const PolynomialMapFit fit(x, y, 2);  // 6 terms, only 3 independent (1, x, x²)
  EXPECT_EQ(fit.rank(), 3);
  const MatrixXd e = fit.rmsErrorByRank(x, y);
  EXPECT_LT(e(1, 2), 1e-10);
  EXPECT_TRUE(fit.map(3).matrix().allFinite());
}

TEST(PolynomialMapFit, RejectsBadInput) {
  const MatrixXd x = uniform(2, 10, 14), y = uniform(1, 10, 15);
  EXPECT_THROW(PolynomialMapFit(x, uniform(1, 9, 1), 2), InvalidArgument);
  EXPECT_THROW(PolynomialMapFit(MatrixXd(2, 0), MatrixXd(1, 0), 2), InvalidArgument);
  MatrixXd bad = x;
  bad(1, 7) = std::nan("");
  try {
    const PolynomialMapFit fit(bad, y, 2);
    FAIL() << "NaN accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("sample 7, row 1"), std::string::npos) << e.what();
  }
  const PolynomialMapFit fit(x, y, 2);
  EXPECT_THROW((void)fit.map(0), InvalidArgument);
  EXPECT_THROW((void)fit.map(fit.rank() + 1), InvalidArgument);
  EXPECT_THROW((void)fit.rmsErrorByRank(uniform(3, 10, 1), y), InvalidArgument);
  EXPECT_THROW(PolynomialFeatures(0, 2), InvalidArgument);
  EXPECT_THROW(PolynomialFeatures(2, -1), InvalidArgument);
  EXPECT_THROW(PolynomialFeatures(1000, 3), InvalidArgument);  // > 10^6 terms
  EXPECT_THROW(PolynomialMap(PolynomialFeatures(2, 2), MatrixXd(1, 5)), InvalidArgument);
}

TEST(PolynomialMap, ApplyAllocatesNothingOnceTheBufferIsSized) {
  const MatrixXd x = uniform(36, 800, 16), y = uniform(17, 800, 17);
  const PolynomialMapFit fit(x, y, 2);
  const PolynomialMap map = fit.map(100);
  VectorXd buffer(map.features().size()), out(17);
  const VectorXd in = x.col(3);
  {
    const testing::AllocationCounter counter;
    map.apply(in, out, buffer);
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_LT((out - map.applyAll(x.col(3))).cwiseAbs().maxCoeff(), 1e-12);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::biomech
