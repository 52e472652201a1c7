// Behavioural tests of the Goldfarb–Idnani QP solver: unconstrained case, multiplier signs,
// equalities, degenerate and dependent constraints, infeasible and non-convex problems, limits,
// input checks, warm start, and no heap allocation in solve().
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cstdio>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/qp/qp.hpp"
#include "qp/qp_test_support.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::qp {
namespace KINETRACK_UNITY_ID {

using testing::Activity;
using testing::kInf;

#ifdef NDEBUG
constexpr int kSequences = 20;
#else
constexpr int kSequences = 4;
#endif

Eigen::VectorXd solveOk(Solver& solver, const Problem& p, Result* out = nullptr) {
  Eigen::VectorXd x(p.g.size());
  const Result r = solver.solve(p, x);
  EXPECT_EQ(r.status, Status::Optimal) << toString(r.status);
  EXPECT_TRUE(x.allFinite());
  const testing::KktReport k = testing::kkt(p, x, solver.boundMultipliers(), solver.rowMultipliers());
  EXPECT_LE(k.worst(), 1e-9) << "stationarity " << k.stationarity << " primal " << k.primal << " dual sign "
                             << k.dual_sign << " complementarity " << k.complementarity;
  if (out) *out = r;
  return x;
}

/// Small dense SPD problem with H = BᵀB + I.
Problem smallProblem(int n, int m, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0.0, 1.0);
  Problem p(n, m);
  Eigen::MatrixXd B(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) B(i, j) = N(rng);
  p.H = B.transpose() * B + Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i) p.g[i] = 3.0 * N(rng);
  return p;
}

TEST(QpSolver, UnconstrainedEqualsCholesky) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 38 + trial * 2;
    Problem p = testing::randomIkProblem(rng, n, 0, Activity::Normal);
    p.lb.setConstant(-kInf);
    p.ub.setConstant(kInf);
    Solver solver(n, 0);
    Result r;
    const Eigen::VectorXd x = solveOk(solver, p, &r);
    const Eigen::VectorXd expected = p.H.selfadjointView<Eigen::Lower>().llt().solve(-p.g);
    // Both are accurate to ~cond(H)·eps (λ down to 1e-6 makes cond ~1e8).
    const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(p.H).eigenvalues();
    const double cond = ev.maxCoeff() / ev.minCoeff();
    EXPECT_LE((x - expected).norm(), std::max(1e-13, 1e-15 * cond) * expected.norm()) << "cond " << cond;
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(r.active_bounds + r.active_rows, 0);
    EXPECT_EQ(solver.boundMultipliers().cwiseAbs().maxCoeff(), 0.0);
  }
}

TEST(QpSolver, OnlyLowerTriangleOfHIsRead) {
  Problem p = smallProblem(6, 0, 3);
  Problem q = p;
  q.H.triangularView<Eigen::StrictlyUpper>().setConstant(1e30);
  Solver a(6, 0), b(6, 0);
  EXPECT_EQ(solveOk(a, p), solveOk(b, q));
}

TEST(QpSolver, MultiplierSigns) {
  // min ½‖x‖² − 2x0 + 2x1 s.t. x0 ≤ 1, x1 ≥ −1, row x0 + x2 ≥ 0.5 (x2 pulled to 0): λ0 = +1, λ1 = −1,
  // row multiplier −0.5.
  Problem p(3, 1);
  p.H.setIdentity();
  p.g << -2.0, 2.0, 0.0;
  p.ub[0] = 1.0;
  p.lb[1] = -1.0;
  p.A << 0.0, 0.0, 1.0;
  p.lbA[0] = 0.5;
  Solver solver(3, 1);
  Result r;
  const Eigen::VectorXd x = solveOk(solver, p, &r);
  EXPECT_NEAR(x[0], 1.0, 1e-14);
  EXPECT_NEAR(x[1], -1.0, 1e-14);
  EXPECT_NEAR(x[2], 0.5, 1e-14);
  EXPECT_NEAR(solver.boundMultipliers()[0], 1.0, 1e-14);
  EXPECT_NEAR(solver.boundMultipliers()[1], -1.0, 1e-14);
  EXPECT_EQ(solver.boundMultipliers()[2], 0.0);
  EXPECT_NEAR(solver.rowMultipliers()[0], -0.5, 1e-14);
  EXPECT_EQ(r.active_bounds, 2);
  EXPECT_EQ(r.active_rows, 1);
  EXPECT_NEAR(r.objective, 0.5 * (1 + 1 + 0.25) - 2 - 2, 1e-14);
}

TEST(QpSolver, EqualityBoundsAndRows) {
  Problem p = smallProblem(8, 3, 11);
  p.lb[2] = p.ub[2] = 0.25;  // locked variable
  p.lb[5] = p.ub[5] = 0.0;
  p.A.row(0) << 1, 1, 0, 0, 0, 0, 0, 0;  // x0 + x1 = 1
  p.lbA[0] = p.ubA[0] = 1.0;
  p.A.row(1) << 0, 0, 0, 1, 0, 0, -1, 0;  // x3 − x6 = −0.5
  p.lbA[1] = p.ubA[1] = -0.5;
  p.A.row(2) << 0, 0, 0, 0, 0, 0, 0, 1;  // x7 ≤ −0.1 (inequality)
  p.ubA[2] = -0.1;
  Solver solver(8, 3);
  const Eigen::VectorXd x = solveOk(solver, p);
  EXPECT_NEAR(x[2], 0.25, 1e-14);
  EXPECT_NEAR(x[5], 0.0, 1e-14);
  EXPECT_NEAR(x[0] + x[1], 1.0, 1e-13);
  EXPECT_NEAR(x[3] - x[6], -0.5, 1e-13);
  EXPECT_LE(x[7], -0.1 + 1e-13);
  // Warm start from an equality-heavy active set gives the same point.
  Result r;
  const Eigen::VectorXd xw = solveOk(solver, p, &r);
  EXPECT_LE((xw - x).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(QpSolver, DependentAndDuplicatedConstraints) {
  Problem base = smallProblem(10, 6, 21);
  base.g *= 5.0;
  struct Case {
    const char* name;
    void (*build)(Problem&);
  };
  const Case cases[] = {
      {"same row twice, same bound",
       [](Problem& p) {
         p.A.row(0).setOnes();
         p.A.row(1).setOnes();
         p.ubA[0] = p.ubA[1] = -1.0;
       }},
      {"same row twice, different bounds",
       [](Problem& p) {
         p.A.row(0).setOnes();
         p.A.row(1).setOnes();
         p.ubA[0] = -1.0;
         p.ubA[1] = -2.0;
       }},
      {"same equality row three times",
       [](Problem& p) {
         for (int j = 0; j < 3; ++j) {
           p.A.row(j).setLinSpaced(-1.0, 2.0);
           p.lbA[j] = p.ubA[j] = 0.7;
         }
       }},
      {"row equal to a bound",
       [](Problem& p) {
         p.A(0, 4) = 1.0;
         p.ubA[0] = -0.3;
         p.ub[4] = -0.3;
       }},
      {"negated row equal to a bound",
       [](Problem& p) {
         p.A(0, 4) = -1.0;
         p.lbA[0] = 0.3;
         p.ub[4] = -0.3;
       }},
      {"row combination of active bounds",
       [](Problem& p) {
         p.lb.head(3).setConstant(0.2);
         p.ub.head(3).setConstant(0.2);  // x0..x2 fixed
         p.A.row(0) << 1, 1, 1, 0, 0, 0, 0, 0, 0, 0;
         p.lbA[0] = p.ubA[0] = 0.6;  // implied by the bounds
         p.A.row(1) << 1, -1, 0, 0, 0, 0, 0, 0, 0, 1;
         p.ubA[1] = 0.1;
       }},
      {"equality row with its duplicate as an inequality",
       [](Problem& p) {
         p.A.row(0) << 1, 2, 3, 0, 0, 0, 0, 0, 0, 0;
         p.A.row(1) = p.A.row(0);
         p.lbA[0] = p.ubA[0] = 0.5;
         p.ubA[1] = 0.5;
       }},
      {"all rows identical, bound to the same point",
       [](Problem& p) {
         for (int j = 0; j < 6; ++j) {
           p.A.row(j).setConstant(0.5);
           p.lbA[j] = 1.0;
         }
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Problem p = base;
    c.build(p);
    Solver solver(10, 6);
    const Eigen::VectorXd cold = solveOk(solver, p);
    const Eigen::VectorXd warm = solveOk(solver, p);
    EXPECT_LE((warm - cold).cwiseAbs().maxCoeff(), 1e-10);
  }
}

TEST(QpSolver, TinyAndForcingBoxes) {
  Problem p = smallProblem(12, 0, 31);
  p.g *= 10.0;
  p.lb[0] = 0.1;  // forces positive motion
  p.ub[0] = 0.2;
  p.lb[1] = -0.3;  // forces negative motion
  p.ub[1] = -0.25;
  p.lb[2] = 1e-3;
  p.ub[2] = 1e-3 + 1e-12;  // tiny box
  p.lb[3] = -1e-9;
  p.ub[3] = 1e-9;
  p.ub[4] = 0.0;  // one-sided
  Solver solver(12, 0);
  const Eigen::VectorXd x = solveOk(solver, p);
  EXPECT_GE(x[0], 0.1 - 1e-12);
  EXPECT_LE(x[1], -0.25 + 1e-12);
  EXPECT_NEAR(x[2], 1e-3, 2e-12);
  EXPECT_LE(std::abs(x[3]), 1e-9 + 1e-12);
}

TEST(QpSolver, InfeasibleRowsGiveLeastViolationPoint) {
  // x0 ≥ 1 and x0 ≤ −1 via rows: every x0 ∈ [−1, 1] violates by 2 in total; among them the
  // objective picks the minimiser of the QP restricted to −1 ≤ x0 ≤ 1.
  const int n = 40;
  Problem p = smallProblem(n, 3, 41);
  p.lb.setConstant(-5.0);
  p.ub.setConstant(5.0);
  p.A(0, 0) = 1.0;
  p.lbA[0] = 1.0;
  p.A(1, 0) = 1.0;
  p.ubA[1] = -1.0;
  p.A(2, 1) = 1.0;  // a satisfiable row
  p.ubA[2] = 0.0;
  Solver solver(n, 3);
  Eigen::VectorXd x(n);
  const Result r = solver.solve(p, x);
  EXPECT_EQ(r.status, Status::Infeasible);
  ASSERT_TRUE(x.allFinite());
  EXPECT_GT(r.max_violation, solver.options().feasibility_tol);
  EXPECT_GE(x[0], -1.0 - 1e-9);
  EXPECT_LE(x[0], 1.0 + 1e-9);
  EXPECT_LE(x[1], 1e-9);
  EXPECT_LE((x.array() - 5.0).maxCoeff(), 1e-12);
  EXPECT_GE((x.array() + 5.0).minCoeff(), -1e-12);
  const double total = std::max(0.0, 1.0 - x[0]) + std::max(0.0, x[0] + 1.0);
  EXPECT_NEAR(total, 2.0, 1e-9);
  EXPECT_NEAR(r.max_violation, std::max(1.0 - x[0], x[0] + 1.0), 1e-12);

  Problem restricted = p;
  restricted.A.row(0).setZero();
  restricted.A.row(1).setZero();
  restricted.lbA[0] = -kInf;
  restricted.ubA[1] = kInf;
  restricted.lb[0] = -1.0;
  restricted.ub[0] = 1.0;
  Solver reference(n, 3);
  const Eigen::VectorXd expected = solveOk(reference, restricted);
  EXPECT_LE((x - expected).cwiseAbs().maxCoeff(), 1e-6);  // the elastic μ‖s‖² bias is ~1e-8

  // The next (feasible) solve is not disturbed by the infeasible one.
  p.lbA[0] = -kInf;
  Result ok;
  solveOk(solver, p, &ok);
  EXPECT_EQ(ok.warm_started, 0);
}

TEST(QpSolver, InfeasibleRowsAgainstBounds) {
  // x0, x1 ∈ [0, 1] and x0 + x1 ≥ 5: least violation at x0 = x1 = 1 (violation 3).
  Problem p = smallProblem(6, 1, 51);
  p.lb.setZero();
  p.ub.setOnes();
  p.A(0, 0) = p.A(0, 1) = 1.0;
  p.lbA[0] = 5.0;
  Solver solver(6, 1);
  Eigen::VectorXd x(6);
  const Result r = solver.solve(p, x);
  EXPECT_EQ(r.status, Status::Infeasible);
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], 1.0, 1e-12);
  EXPECT_NEAR(r.max_violation, 3.0, 1e-12);
}

TEST(QpSolver, InconsistentEqualities) {
  Problem p = smallProblem(6, 2, 61);
  p.A.row(0) << 1, 1, 0, 0, 0, 0;
  p.A.row(1) << 1, 1, 0, 0, 0, 0;
  p.lbA[0] = p.ubA[0] = 1.0;
  p.lbA[1] = p.ubA[1] = 2.0;
  Solver solver(6, 2);
  Eigen::VectorXd x(6);
  const Result r = solver.solve(p, x);
  EXPECT_EQ(r.status, Status::Infeasible);
  ASSERT_TRUE(x.allFinite());
  EXPECT_GE(x[0] + x[1], 1.0 - 1e-9);
  EXPECT_LE(x[0] + x[1], 2.0 + 1e-9);
  EXPECT_GT(r.max_violation, 0.49);

  // Equality bound against an equality row.
  Problem q = smallProblem(6, 1, 62);
  q.lb[3] = q.ub[3] = 1.0;
  q.A(0, 3) = 2.0;
  q.lbA[0] = q.ubA[0] = 1.0;  // x3 = 0.5
  Eigen::VectorXd y(6);
  Solver s2(6, 1);
  const Result r2 = s2.solve(q, y);
  EXPECT_EQ(r2.status, Status::Infeasible);
  EXPECT_NEAR(y[3], 1.0, 1e-12);  // bounds are always kept
  EXPECT_NEAR(r2.max_violation, 1.0, 1e-9);
}

TEST(QpSolver, InfeasibleRandomIkProblems) {
  // Random IK-shaped problems made infeasible by a pair of contradicting rows.
  std::mt19937_64 rng(71);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 38 + trial;
    const int m = 6;
    Problem p = testing::randomIkProblem(rng, n, m, Activity::Normal);
    // Rows m−2 and m−1: x10 + x11 ≥ 0.5 and x10 + x11 ≤ −0.5 cannot both hold.
    p.A.row(m - 2).setZero();
    p.A(m - 2, 10) = 1.0;
    p.A(m - 2, 11) = 1.0;
    p.A.row(m - 1) = p.A.row(m - 2);
    p.lbA[m - 2] = 0.5;
    p.ubA[m - 2] = kInf;
    p.lbA[m - 1] = -kInf;
    p.ubA[m - 1] = -0.5;
    Solver solver(n, m);
    Eigen::VectorXd x(n);
    const Result r = solver.solve(p, x);
    EXPECT_EQ(r.status, Status::Infeasible) << "trial " << trial;
    ASSERT_TRUE(x.allFinite());
    EXPECT_GT(r.max_violation, 0.0);
    for (int i = 0; i < n; ++i) {
      EXPECT_GE(x[i], p.lb[i] - 1e-9);
      EXPECT_LE(x[i], p.ub[i] + 1e-9);
    }
  }
}

TEST(QpSolver, NotConvex) {
  Problem p = smallProblem(5, 1, 81);
  p.H(3, 3) = -1.0;
  p.H.row(3).head(3).setZero();
  p.H.col(3).tail(1).setZero();
  Solver solver(5, 1);
  Eigen::VectorXd x = Eigen::VectorXd::Constant(5, 7.0);
  const Result r = solver.solve(p, x);
  EXPECT_EQ(r.status, Status::NotConvex);
  EXPECT_EQ(x, Eigen::VectorXd::Constant(5, 7.0));
  EXPECT_NEAR(r.objective, testing::objective(p, x), 1e-9);

  Problem z(5, 0);  // H = 0: only semidefinite
  Solver s0(5, 0);
  EXPECT_EQ(s0.solve(z, x).status, Status::NotConvex);

  // Rank-deficient JᵀJ without damping (the IK with λ = 0).
  Problem d(6, 0);
  Eigen::MatrixXd J = Eigen::MatrixXd::Ones(2, 6);
  J(1, 0) = -1.0;
  d.H = J.transpose() * J;
  Solver s1(6, 0);
  Eigen::VectorXd x6(6);
  EXPECT_EQ(s1.solve(d, x6).status, Status::NotConvex);
}

TEST(QpSolver, IterationLimit) {
  std::mt19937_64 rng(91);
  const Problem p = testing::randomIkProblem(rng, 60, 8, Activity::Strong);
  Options o;
  o.max_iterations = 3;
  Solver solver(60, 8, o);
  Eigen::VectorXd x(60);
  const Result r = solver.solve(p, x);
  EXPECT_EQ(r.status, Status::IterationLimit);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_TRUE(x.allFinite());
  EXPECT_TRUE(std::isfinite(r.objective));
  // An iteration-limited solve does not seed the next warm start.
  Solver full(60, 8);
  Result rf;
  const Eigen::VectorXd expected = solveOk(full, p, &rf);
  solver = Solver(60, 8);
  EXPECT_LE((solveOk(solver, p) - expected).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(QpSolver, RejectsBadInput) {
  EXPECT_THROW(Solver(0, 0), InvalidArgument);
  EXPECT_THROW(Solver(3, -1), InvalidArgument);
  Solver solver(4, 2);
  Eigen::VectorXd x(4);
  const Problem good = smallProblem(4, 2, 1);
  auto expectThrow = [&](void (*mutate)(Problem&), const char* what) {
    Problem p = good;
    mutate(p);
    EXPECT_THROW(solver.solve(p, x), InvalidArgument) << what;
  };
  expectThrow([](Problem& p) { p.H.resize(3, 3); }, "H size");
  expectThrow([](Problem& p) { p.g.resize(5); }, "g size");
  expectThrow([](Problem& p) { p.A.resize(1, 4); }, "A rows");
  expectThrow([](Problem& p) { p.ubA.resize(3); }, "ubA size");
  expectThrow([](Problem& p) { p.g[1] = std::nan(""); }, "NaN g");
  expectThrow([](Problem& p) { p.H(2, 1) = kInf; }, "inf H");
  expectThrow([](Problem& p) { p.A(1, 1) = std::nan(""); }, "NaN A");
  expectThrow([](Problem& p) { p.lb[0] = 1.0, p.ub[0] = 0.0; }, "lb > ub");
  expectThrow([](Problem& p) { p.lb[0] = kInf; }, "lb = +inf");
  expectThrow([](Problem& p) { p.ubA[0] = std::nan(""); }, "NaN ubA");
  expectThrow([](Problem& p) { p.lbA[1] = 2.0, p.ubA[1] = 1.0; }, "lbA > ubA");
  Eigen::VectorXd wrong(5);
  EXPECT_THROW(solver.solve(good, wrong), InvalidArgument);
  try {
    Problem p = good;
    p.H.resize(3, 3);
    solver.solve(p, x);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("expected H of 4 × 4, got 3 × 3"), std::string::npos) << e.what();
  }
  // The upper triangle of H is not read, so garbage there is accepted.
  Problem p = good;
  p.H(0, 3) = std::nan("");
  EXPECT_EQ(solver.solve(p, x).status, Status::Optimal);
}

/// A slowly changing sequence: H and g drift, bounds and rows shift with a moving feasible point.
TEST(QpSolver, WarmStartMatchesColdAndSavesIterations) {
  std::mt19937_64 rng(101);
  std::normal_distribution<double> N(0.0, 1.0);
  long warm_iterations = 0, cold_iterations = 0, warm_readded = 0, solves = 0;
  double worst = 0.0;
  for (int seq = 0; seq < kSequences; ++seq) {
    const int n = 38 + (seq * 7) % 35;
    const int m = seq % 3 == 0 ? 0 : (seq * 5) % 15;
    const Problem base = testing::randomIkProblem(rng, n, m, seq % 2 ? Activity::Strong : Activity::Normal);
    Eigen::MatrixXd B(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) B(i, j) = N(rng);
    const Eigen::MatrixXd dH = 0.01 * B.transpose() * B / n;
    Eigen::VectorXd dg(n), shift(n);
    for (int i = 0; i < n; ++i) dg[i] = N(rng), shift[i] = N(rng);
    const double gscale = 0.02 * std::max(1.0, base.g.cwiseAbs().maxCoeff());
    Options cold_options;
    cold_options.warm_start = false;
    Solver warm(n, m), cold(n, m, cold_options);
    for (int step = 0; step < 40; ++step) {
      const double t = 0.02 * step;
      Problem p = base;
      p.H += t * dH;
      p.g += t * gscale * dg;
      const Eigen::VectorXd delta = 0.01 * t * shift;
      p.lb += delta;
      p.ub += delta;
      if (m > 0) {
        const Eigen::VectorXd ad = base.A * delta;
        p.lbA += ad;
        p.ubA += ad;
      }
      Result rw, rc;
      const Eigen::VectorXd xw = solveOk(warm, p, &rw);
      const Eigen::VectorXd xc = solveOk(cold, p, &rc);
      const double diff = (xw - xc).cwiseAbs().maxCoeff() / std::max(1.0, xc.cwiseAbs().maxCoeff());
      EXPECT_LE(diff, 1e-10) << "sequence " << seq << " step " << step;
      worst = std::max(worst, diff);
      EXPECT_EQ(rc.warm_started, 0);
      if (step > 0) {
        warm_iterations += rw.iterations;
        cold_iterations += rc.iterations;
        warm_readded += rw.warm_started;
        ++solves;
      }
    }
  }
  std::printf(
      "[ QpWarm ] %ld solves: %ld active-set changes warm (+%ld constraints re-added) vs %ld cold; "
      "worst |x_warm − x_cold|/|x| %.2e\n",
      solves, warm_iterations, warm_readded, cold_iterations, worst);
  EXPECT_LT(warm_iterations * 3, cold_iterations);
}

TEST(QpSolver, SolveDoesNotAllocate) {
  std::mt19937_64 rng(111);
  for (const int m : {0, 14}) {
    const int n = 72;
    std::vector<Problem> problems;
    for (int i = 0; i < 6; ++i) problems.push_back(testing::randomIkProblem(rng, n, m, Activity::Strong));
    if (m > 0) {  // one infeasible problem, to run the elastic solve too
      Problem p = problems.back();
      p.A.row(0).setZero();
      p.A.row(1).setZero();
      p.A(0, 7) = p.A(1, 7) = 1.0;
      p.lbA[0] = 0.5, p.ubA[0] = kInf;
      p.lbA[1] = -kInf, p.ubA[1] = -0.5;
      problems.push_back(p);
    }
    Problem nonconvex = problems.front();
    nonconvex.H(5, 5) = -1.0;
    problems.push_back(nonconvex);
    Solver solver(n, m);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    double checksum = 0.0;
    int infeasible = 0, not_convex = 0;
    long allocations = 0;
    {
      kinetrack::testing::AllocationCounter guard;
      for (int rep = 0; rep < 2; ++rep)
        for (const Problem& p : problems) {
          const Result r = solver.solve(p, x);  // warm starts from the previous problem
          infeasible += r.status == Status::Infeasible;
          not_convex += r.status == Status::NotConvex;
          checksum += x.sum() + solver.boundMultipliers().sum() + solver.rowMultipliers().sum();
        }
      allocations = guard.count();
    }
    EXPECT_EQ(allocations, 0) << "m = " << m;
    EXPECT_TRUE(std::isfinite(checksum));
    EXPECT_EQ(infeasible, m > 0 ? 2 : 0);
    EXPECT_EQ(not_convex, 2);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::qp
