// Optimal assignment (markers/assignment.hpp) against brute force over every injective map, on
// square and rectangular matrices, with ties, and its bad arguments.
#include "kinetrack/markers/assignment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::markers {
namespace KINETRACK_UNITY_ID {

// Least total cost over all injective maps rows → columns, by enumerating column permutations.
double bruteForce(int rows, int cols, const std::vector<double>& cost) {
  std::vector<int> perm(static_cast<std::size_t>(cols));
  std::iota(perm.begin(), perm.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double s = 0.0;
    for (int r = 0; r < rows; ++r) s += cost[static_cast<std::size_t>(r * cols + perm[static_cast<std::size_t>(r)])];
    best = std::min(best, s);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

TEST(Assignment, MatchesBruteForceOnRandomMatrices) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 10.0);
  std::uniform_int_distribution<int> small(0, 3);
  AssignmentSolver solver;
  for (int trial = 0; trial < 300; ++trial) {
    const int cols = 1 + trial % 7;
    const int rows = 1 + (trial / 7) % cols;
    std::vector<double> cost(static_cast<std::size_t>(rows * cols));
    // Every third matrix has integer costs in 0..3: many ties.
    for (double& c : cost) c = trial % 3 == 0 ? small(rng) : u(rng);
    std::vector<int> map(static_cast<std::size_t>(rows), -1);
    const double total = solver.solve(rows, cols, cost, map);
    EXPECT_NEAR(total, bruteForce(rows, cols, cost), 1e-9) << rows << "x" << cols;
    std::vector<int> used = map;
    std::sort(used.begin(), used.end());
    EXPECT_TRUE(std::adjacent_find(used.begin(), used.end()) == used.end()) << "a column used twice";
    double check = 0.0;
    for (int r = 0; r < rows; ++r) {
      ASSERT_GE(map[static_cast<std::size_t>(r)], 0);
      ASSERT_LT(map[static_cast<std::size_t>(r)], cols);
      check += cost[static_cast<std::size_t>(r * cols + map[static_cast<std::size_t>(r)])];
    }
    EXPECT_NEAR(check, total, 1e-12);
  }
}

TEST(Assignment, GreedyIsNotOptimalHere) {
  // Row 0 prefers column 0 (1 < 2) but the optimum gives it column 1: 2 + 2 < 1 + 10.
  const std::vector<double> cost = {1, 2, 2, 10};
  AssignmentSolver solver;
  std::vector<int> map(2);
  EXPECT_DOUBLE_EQ(solver.solve(2, 2, cost, map), 4.0);
  EXPECT_EQ(map[0], 1);
  EXPECT_EQ(map[1], 0);
}

TEST(Assignment, RejectsBadArguments) {
  AssignmentSolver solver;
  std::vector<int> map(3);
  const std::vector<double> cost(6, 1.0);
  EXPECT_THROW(solver.solve(3, 2, cost, map), InvalidArgument);  // rows > cols
  EXPECT_THROW(solver.solve(2, 4, cost, map), InvalidArgument);  // short cost
  std::vector<double> nan_cost = {1.0, std::numeric_limits<double>::quiet_NaN(), 1.0, 1.0};
  EXPECT_THROW(solver.solve(2, 2, nan_cost, map), InvalidArgument);
  EXPECT_DOUBLE_EQ(solver.solve(0, 3, cost, map), 0.0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::markers
