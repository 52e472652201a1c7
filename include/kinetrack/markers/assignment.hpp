#pragma once
// Optimal assignment (linear sum assignment): given a rows × cols cost matrix with rows ≤ cols,
// the one-to-one map row → column of least total cost. Solved by the Hungarian method in its
// shortest-augmenting-path form with dual potentials (Kuhn–Munkres; Jonker–Volgenant's O(rows²·cols)
// formulation): each row is added by a Dijkstra-like search over the reduced costs.
//
// The labeller calls it on small conflict clusters every frame and on the whole marker set when it
// initialises, so it is allocation-free once reserve() has sized its workspace. Costs are doubles
// (Debian's candidates, dlib's max_cost_assignment and LEMON's min-cost flow, take integer costs
// and allocate per call; docs/labelling.md).
#include <span>
#include <vector>

namespace kinetrack::markers {

class AssignmentSolver {
 public:
  AssignmentSolver() = default;
  /// Sizes the workspace for problems up to `cols` columns (allocates; solve() then does not).
  void reserve(int cols);

  /// Minimises Σ_r cost[r·cols + row_to_col[r]] over injective maps row → column.
  /// `cost` is row-major (rows × cols), every entry finite; rows ≤ cols. Writes `row_to_col`
  /// (size ≥ rows) and returns the total cost. Allocates only when cols exceeds the reserve.
  /// Throws InvalidArgument for rows > cols, a short span or a non-finite cost.
  double solve(int rows, int cols, std::span<const double> cost, std::span<int> row_to_col);

 private:
  std::vector<double> u_, v_, minv_;
  std::vector<int> match_, way_;
  std::vector<char> used_;
};

}  // namespace kinetrack::markers
