#include "kinetrack/markers/assignment.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::markers {

void AssignmentSolver::reserve(int cols) {
  const auto n = static_cast<std::size_t>(cols + 1);
  if (u_.size() >= n) return;
  u_.assign(n, 0.0);
  v_.assign(n, 0.0);
  minv_.assign(n, 0.0);
  match_.assign(n, 0);
  way_.assign(n, 0);
  used_.assign(n, 0);
}

double AssignmentSolver::solve(int rows, int cols, std::span<const double> cost, std::span<int> row_to_col) {
  if (rows < 0 || rows > cols)
    throw InvalidArgument("AssignmentSolver::solve: needs 0 <= rows <= cols, got " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  if (cost.size() < static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) ||
      row_to_col.size() < static_cast<std::size_t>(rows))
    throw InvalidArgument("AssignmentSolver::solve: cost or output span too short");
  if (rows == 0) return 0.0;
  reserve(cols);
  const double inf = std::numeric_limits<double>::infinity();
  // 1-based arrays; column 0 is the virtual column holding the row being added. match_[j] is the
  // row (1-based) assigned to column j, 0 when free. u (rows) and v (columns) are the potentials:
  // cost(i, j) − u_i − v_j ≥ 0 on every edge and = 0 on matched ones.
  for (int j = 0; j <= cols; ++j) v_[j] = 0.0, match_[j] = 0;
  for (int i = 0; i <= rows; ++i) u_[i] = 0.0;
  for (int i = 1; i <= rows; ++i) {
    match_[0] = i;
    int j0 = 0;
    for (int j = 0; j <= cols; ++j) minv_[j] = inf, used_[j] = 0;
    // Dijkstra over reduced costs from row i until a free column is reached.
    do {
      used_[j0] = 1;
      const int i0 = match_[j0];
      const double* crow = cost.data() + static_cast<std::size_t>(i0 - 1) * static_cast<std::size_t>(cols);
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= cols; ++j) {
        if (used_[j]) continue;
        const double c = crow[j - 1];
        if (!std::isfinite(c)) throw InvalidArgument("AssignmentSolver::solve: non-finite cost");
        const double reduced = c - u_[i0] - v_[j];
        if (reduced < minv_[j]) minv_[j] = reduced, way_[j] = j0;
        if (minv_[j] < delta) delta = minv_[j], j1 = j;
      }
      for (int j = 0; j <= cols; ++j) {
        if (used_[j])
          u_[match_[j]] += delta, v_[j] -= delta;
        else
          minv_[j] -= delta;
      }
      j0 = j1;
    } while (match_[j0] != 0);
    // Augment along the alternating path back to the virtual column.
    do {
      const int j1 = way_[j0];
      match_[j0] = match_[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  double total = 0.0;
  for (int j = 1; j <= cols; ++j) {
    if (match_[j] == 0) continue;
    const int r = match_[j] - 1;
    row_to_col[static_cast<std::size_t>(r)] = j - 1;
    total += cost[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j - 1)];
  }
  return total;
}

}  // namespace kinetrack::markers
