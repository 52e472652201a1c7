// TreeBoxSolver (branch-sparse box QP, and its row rounds for a few general inequality rows)
// against the dense Goldfarb–Idnani solver.
#include "kinetrack/qp/tree_box_qp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/qp/qp.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::qp {
namespace KINETRACK_UNITY_ID {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A random tree over n variables: a chain of 6 (a floating base) then random parents.
std::vector<int> randomTree(int n, std::mt19937_64& rng) {
  std::vector<int> parent(static_cast<std::size_t>(n), -1);
  for (int i = 1; i < n; ++i) {
    if (i < 6) {
      parent[static_cast<std::size_t>(i)] = i - 1;
    } else {
      std::uniform_int_distribution<int> d(std::max(5, i - 4), i - 1);  // bushy, depth ~n/2
      parent[static_cast<std::size_t>(i)] = d(rng);
    }
  }
  return parent;
}

// H = Σ_t J_tᵀ J_t + λI with each J_t non-zero only on the ancestors of a node: the tree pattern.
Problem randomProblem(const std::vector<int>& parent, std::mt19937_64& rng, double lambda, double box_scale) {
  const int n = static_cast<int>(parent.size());
  Problem p(n, 0);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_int_distribution<int> node(0, n - 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int t = 0; t < n / 2 + 3; ++t) {
    const int leaf = node(rng);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3, n);
    for (int i = leaf; i >= 0; i = parent[static_cast<std::size_t>(i)]) J.col(i) = randomVector3(g, rng);
    p.H += J.transpose() * J;
  }
  p.H.diagonal().array() += lambda;
  for (int i = 0; i < n; ++i) {
    p.g[i] = 3.0 * g(rng);
    const double r = u(rng);
    if (r < 0.1) continue;  // free
    double lo = -box_scale * u(rng), hi = box_scale * u(rng);
    if (r < 0.2)
      lo = hi = 0.3 * g(rng);  // equality
    else if (r < 0.3)
      lo = 0.2, hi = 0.2 + u(rng);  // forcing motion
    else if (r < 0.35)
      hi = kInf;  // one-sided
    p.lb[i] = lo;
    p.ub[i] = hi;
  }
  return p;
}

Problem zeroedOutsidePattern(Problem p, const std::vector<int>& parent) {
  // The dense solver reads the full lower triangle; make sure it equals the pattern.
  const int n = static_cast<int>(parent.size());
  Eigen::MatrixXd keep = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    keep(k, k) = 1;
    for (int i = parent[static_cast<std::size_t>(k)]; i >= 0; i = parent[static_cast<std::size_t>(i)]) keep(k, i) = 1;
  }
  Eigen::MatrixXd L = p.H.cwiseProduct(keep);
  p.H = L + L.transpose();
  p.H.diagonal() = L.diagonal();
  return p;
}

TEST(QpTreeBox, MatchesTheDenseSolverOnRandomTreeProblems) {
#ifdef NDEBUG
  constexpr int kProblems = 1000;
#else
  constexpr int kProblems = 100;
#endif
  std::mt19937_64 rng(2024);
  int with_active = 0;
  for (int k = 0; k < kProblems; ++k) {
    const int n = 20 + static_cast<int>(rng() % 53);  // 20..72
    const std::vector<int> parent = randomTree(n, rng);
    const Problem p = zeroedOutsidePattern(randomProblem(parent, rng, k % 3 == 0 ? 1e-6 : 1e-2, 1.0), parent);
    TreeBoxSolver tree(parent);
    Solver dense(n, 0);
    VectorXd xt = VectorXd::Zero(n), xd = VectorXd::Zero(n);
    const Result rt = tree.solve(p, xt);
    const Result rd = dense.solve(p, xd);
    ASSERT_EQ(rd.status, Status::Optimal) << k;
    ASSERT_EQ(rt.status, Status::Optimal) << k;
    if (rt.active_bounds > 0) ++with_active;
    const double scale = std::max(1.0, std::abs(rd.objective));
    EXPECT_NEAR(rt.objective, rd.objective, 1e-9 * scale) << "problem " << k;
    EXPECT_LE(rt.max_violation, 1e-12) << k;
    // Solutions agree where the problem is well conditioned (λ = 1e-2).
    if (k % 3 != 0) {
      EXPECT_LT((xt - xd).cwiseAbs().maxCoeff(), 1e-7 * std::max(1.0, xd.cwiseAbs().maxCoeff())) << k;
    }
  }
  EXPECT_GT(with_active, kProblems * 9 / 10);
}

TEST(QpTreeBox, WarmStartGivesTheSameSolutionWithFewerIterations) {
  std::mt19937_64 rng(7);
  const int n = 72;
  const std::vector<int> parent = randomTree(n, rng);
  Problem p = zeroedOutsidePattern(randomProblem(parent, rng, 1e-3, 1.0), parent);
  TreeBoxSolver warm(parent), cold(parent, Options{200, 1e-10, false});
  VectorXd xw = VectorXd::Zero(n), xc = VectorXd::Zero(n);
  int it_warm = 0, it_cold = 0;
  std::normal_distribution<double> g(0.0, 0.01);
  for (int step = 0; step < 50; ++step) {
    for (int i = 0; i < n; ++i) p.g[i] += g(rng);  // slowly changing
    const Result rw = warm.solve(p, xw);
    xc.setZero();
    const Result rc = cold.solve(p, xc);
    ASSERT_EQ(rw.status, Status::Optimal);
    ASSERT_EQ(rc.status, Status::Optimal);
    EXPECT_LT((xw - xc).cwiseAbs().maxCoeff(), 1e-9);
    if (step > 0) it_warm += rw.iterations, it_cold += rc.iterations;
  }
  EXPECT_LT(it_warm * 5, it_cold) << "warm " << it_warm << " cold " << it_cold;
}

TEST(QpTreeBox, DoesNotAllocateAndReportsNonConvexAndBadInput) {
  std::mt19937_64 rng(3);
  const std::vector<int> parent = randomTree(40, rng);
  Problem p = zeroedOutsidePattern(randomProblem(parent, rng, 1e-3, 1.0), parent);
  TreeBoxSolver s(parent);
  VectorXd x = VectorXd::Zero(40);
  s.solve(p, x);
  long allocations = 0;
  {
    kinetrack::testing::AllocationCounter guard;
    s.solve(p, x);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  Problem bad = p;
  bad.H.diagonal()[10] = -5.0;
  bad.lb.setConstant(-kInf);
  bad.ub.setConstant(kInf);
  EXPECT_EQ(s.solve(bad, x).status, Status::NotConvex);
  EXPECT_THROW(TreeBoxSolver({0, 0}), InvalidArgument);
  EXPECT_THROW(s.solve(Problem(3, 0), x), InvalidArgument);
}

// A few one- and two-sided rows through random subsets of the variables (like DYN's collision
// rows: dense over a base and two branches), bounds that bind at the box solution or not, and
// unused rows (both sides infinite).
Problem withRows(Problem p, int rows, std::mt19937_64& rng) {
  const int n = static_cast<int>(p.g.size());
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  p.A = MatrixXd::Zero(rows, n);
  p.lbA = VectorXd::Constant(rows, -kInf);
  p.ubA = VectorXd::Constant(rows, kInf);
  for (int r = 0; r < rows; ++r) {
    if (u(rng) < 0.15) continue;  // unused
    for (int i = 0; i < n; ++i)
      if (i < 6 || u(rng) < 0.3) p.A(r, i) = g(rng);
    const double kind = u(rng);
    if (kind < 0.6)
      p.lbA[r] = 0.5 * g(rng);
    else if (kind < 0.85)
      p.ubA[r] = 0.5 * g(rng);
    else
      p.lbA[r] = -0.5 - u(rng), p.ubA[r] = 0.5 + u(rng);
  }
  return p;
}

TEST(QpTreeBox, RowRoundsMatchTheDenseSolver) {
#ifdef NDEBUG
  constexpr int kProblems = 600;
#else
  constexpr int kProblems = 60;
#endif
  std::mt19937_64 rng(38);
  int optimal = 0, with_rows = 0, considered = 0;
  for (int k = 0; k < kProblems; ++k) {
    const int n = 20 + static_cast<int>(rng() % 30);
    const int m = 1 + static_cast<int>(rng() % 8);
    const std::vector<int> parent = randomTree(n, rng);
    Problem p = withRows(zeroedOutsidePattern(randomProblem(parent, rng, 1e-2, 1.0), parent), m, rng);
    // No equality bounds: the rows must be feasible with them (the dense solver would go elastic).
    for (int i = 0; i < n; ++i)
      if (p.lb[i] == p.ub[i]) p.lb[i] = -kInf, p.ub[i] = kInf;
    for (int i = 0; i < n; ++i)
      if (p.lb[i] > 0.0 || p.ub[i] < 0.0) p.lb[i] = std::min(p.lb[i], 0.0), p.ub[i] = std::max(p.ub[i], 0.0);
    TreeBoxSolver tree(parent);
    Solver dense(n, m);
    VectorXd xt = VectorXd::Zero(n), xd = VectorXd::Zero(n);
    const Result rd = dense.solve(p, xd);
    if (rd.status != Status::Optimal) continue;  // rows inconsistent with the box
    ++considered;
    const Result rt = tree.solve(p, xt);
    ASSERT_NE(rt.status, Status::NotConvex) << k;
    if (rt.status != Status::Optimal) continue;  // the caller's fallback: counted below
    ++optimal;
    if (rt.active_rows > 0) ++with_rows;
    const double scale = std::max(1.0, std::abs(rd.objective));
    EXPECT_NEAR(rt.objective, rd.objective, 1e-8 * scale) << "problem " << k;
    EXPECT_LE(rt.max_violation, 1e-7) << k;
    EXPECT_LT((xt - xd).cwiseAbs().maxCoeff(), 1e-6 * std::max(1.0, xd.cwiseAbs().maxCoeff())) << k;
    // The multipliers: qp::Solver's sign, on the same rows.
    for (int r = 0; r < m; ++r)
      EXPECT_NEAR(tree.rowMultipliers()[r], dense.rowMultipliers()[r],
                  1e-5 * std::max(1.0, dense.rowMultipliers().cwiseAbs().maxCoeff()))
          << "problem " << k << " row " << r;
  }
  // These random problems fix most variables at a bound, which the rows keep changing; about a
  // fifth hit the round cap, for the caller's dense solver (DYN's collision steps: ~7 %); the
  // share moves with rounding (Release 80 %, the sanitizer build's Debug 73 %).
  EXPECT_GT(optimal, considered * 2 / 3) << considered;
  RecordProperty("settled", std::to_string(optimal) + " of " + std::to_string(considered));
  EXPECT_GT(with_rows, optimal / 2);
}

TEST(QpTreeBox, RowRoundsDoNotAllocateAndRefuseEqualityRows) {
  std::mt19937_64 rng(5);
  const std::vector<int> parent = randomTree(35, rng);
  Problem p = withRows(zeroedOutsidePattern(randomProblem(parent, rng, 1e-2, 1.0), parent), 6, rng);
  for (int i = 0; i < 35; ++i) p.lb[i] = -kInf, p.ub[i] = kInf;
  TreeBoxSolver s(parent);
  s.reserveRows(6);
  VectorXd x = VectorXd::Zero(35);
  long allocations = 0;
  Result r;
  {
    kinetrack::testing::AllocationCounter guard;
    r = s.solve(p, x);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(r.status, Status::Optimal);
  Problem eq = p;
  eq.lbA[0] = eq.ubA[0] = 0.1;
  EXPECT_THROW(s.solve(eq, x), InvalidArgument);
  Problem wrong = p;
  wrong.A = MatrixXd::Zero(6, 34);
  EXPECT_THROW(s.solve(wrong, x), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::qp
