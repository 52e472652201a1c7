#include "kinetrack/qp/tree_box_qp.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::qp {

TreeBoxSolver::TreeBoxSolver(std::vector<int> parent, Options options)
    : parent_(std::move(parent)), options_(options) {
  const int n = static_cast<int>(parent_.size());
  for (int i = 0; i < n; ++i)
    if (parent_[static_cast<std::size_t>(i)] >= i || parent_[static_cast<std::size_t>(i)] < -1)
      throw InvalidArgument("TreeBoxSolver: parent[" + std::to_string(i) + "] = " +
                            std::to_string(parent_[static_cast<std::size_t>(i)]) + " must be −1 or < " + std::to_string(i));
  work_ = Eigen::MatrixXd::Zero(n, n);
  rhs_ = VectorXd::Zero(n);
  step_ = VectorXd::Zero(n);
  grad_ = VectorXd::Zero(n);
  state_.assign(static_cast<std::size_t>(n), 0);
  free_parent_.assign(static_cast<std::size_t>(n), -1);
}

void TreeBoxSolver::reset() {
  has_warm_ = false;
  std::fill(state_.begin(), state_.end(), 0);
}

namespace {

// y = H x for the tree pattern (H lower triangle), O(Σ depth).
void treeProduct(const Problem& p, const std::vector<int>& parent, const Eigen::Ref<const VectorXd>& x, VectorXd& y) {
  const int n = static_cast<int>(parent.size());
  for (int k = 0; k < n; ++k) y[k] = p.H(k, k) * x[k];
  for (int k = 0; k < n; ++k)
    for (int i = parent[static_cast<std::size_t>(k)]; i >= 0; i = parent[static_cast<std::size_t>(i)]) {
      const double h = p.H(k, i);
      y[k] += h * x[i];
      y[i] += h * x[k];
    }
}

}  // namespace

bool TreeBoxSolver::factorize(const Problem& p) {
  const int n = numVariables();
  // Nearest free ancestor of every variable; copy the free block's pattern.
  double max_diag = 0.0;
  for (int k = 0; k < n; ++k) {
    int a = parent_[static_cast<std::size_t>(k)];
    while (a >= 0 && state_[static_cast<std::size_t>(a)] != 0) a = parent_[static_cast<std::size_t>(a)];
    free_parent_[static_cast<std::size_t>(k)] = a;
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    work_(k, k) = p.H(k, k);
    max_diag = std::max(max_diag, std::abs(p.H(k, k)));
    for (int i = a; i >= 0; i = free_parent_[static_cast<std::size_t>(i)]) work_(k, i) = p.H(k, i);
  }
  // LTL (Featherstone, RBDA §6.3): H = LᵀL, no fill-in outside the ancestor pattern.
  const double tiny = 1e-14 * std::max(1.0, max_diag);
  for (int k = n - 1; k >= 0; --k) {
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    const double pivot = work_(k, k);
    if (!(pivot > tiny)) return false;
    const double lkk = std::sqrt(pivot);
    work_(k, k) = lkk;
    for (int i = free_parent_[static_cast<std::size_t>(k)]; i >= 0; i = free_parent_[static_cast<std::size_t>(i)])
      work_(k, i) /= lkk;
    for (int i = free_parent_[static_cast<std::size_t>(k)]; i >= 0; i = free_parent_[static_cast<std::size_t>(i)]) {
      const double lki = work_(k, i);
      for (int j = i; j >= 0; j = free_parent_[static_cast<std::size_t>(j)]) work_(i, j) -= lki * work_(k, j);
    }
  }
  return true;
}

void TreeBoxSolver::solveFree(VectorXd& b) const {
  const int n = numVariables();
  // Lᵀ y = b, from the leaves up.
  for (int k = n - 1; k >= 0; --k) {
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    b[k] /= work_(k, k);
    for (int i = free_parent_[static_cast<std::size_t>(k)]; i >= 0; i = free_parent_[static_cast<std::size_t>(i)])
      b[i] -= work_(k, i) * b[k];
  }
  // L x = y, from the roots down.
  for (int k = 0; k < n; ++k) {
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    for (int i = free_parent_[static_cast<std::size_t>(k)]; i >= 0; i = free_parent_[static_cast<std::size_t>(i)])
      b[k] -= work_(k, i) * b[i];
    b[k] /= work_(k, k);
  }
}

Result TreeBoxSolver::solve(const Problem& p, Eigen::Ref<VectorXd> x) {
  const int n = numVariables();
  if (p.H.rows() != n || p.H.cols() != n || p.g.size() != n || p.lb.size() != n || p.ub.size() != n || x.size() != n)
    throw InvalidArgument("TreeBoxSolver: expected H " + std::to_string(n) + " × " + std::to_string(n) +
                          " and g, lb, ub, x of size " + std::to_string(n));
  if (p.A.rows() != 0) throw InvalidArgument("TreeBoxSolver: general rows are not supported (use qp::Solver)");
  for (int i = 0; i < n; ++i)
    if (std::isnan(p.lb[i]) || std::isnan(p.ub[i]) || p.lb[i] > p.ub[i] || !std::isfinite(p.g[i]))
      throw InvalidArgument("TreeBoxSolver: variable " + std::to_string(i) + ": need lb ≤ ub and finite g");

  Result res;
  // Working set: warm (bounds still finite) or empty; equalities always fixed.
  for (int i = 0; i < n; ++i) {
    signed char& s = state_[static_cast<std::size_t>(i)];
    if (!has_warm_ || !options_.warm_start) s = 0;
    if (s == -1 && !std::isfinite(p.lb[i])) s = 0;
    if (s == 1 && !std::isfinite(p.ub[i])) s = 0;
    if (p.lb[i] == p.ub[i]) s = -1;
    if (s != 0) ++res.warm_started;
    const double xi = std::isfinite(x[i]) ? x[i] : 0.0;
    x[i] = s == -1 ? p.lb[i] : s == 1 ? p.ub[i] : std::min(std::max(xi, p.lb[i]), p.ub[i]);
  }
  const double tol = options_.feasibility_tol * (1.0 + p.g.cwiseAbs().maxCoeff());
  res.status = Status::IterationLimit;
  for (int it = 0; it <= options_.max_iterations; ++it) {
    if (!factorize(p)) {
      res.status = Status::NotConvex;
      has_warm_ = false;
      break;
    }
    // Minimiser of the free block with the fixed variables at their bounds.
    for (int i = 0; i < n; ++i) step_[i] = state_[static_cast<std::size_t>(i)] != 0 ? x[i] : 0.0;
    treeProduct(p, parent_, step_, rhs_);
    for (int i = 0; i < n; ++i) rhs_[i] = state_[static_cast<std::size_t>(i)] != 0 ? 0.0 : -(p.g[i] + rhs_[i]);
    solveFree(rhs_);
    // Ratio test along x* − x.
    double alpha = 1.0;
    int blocking = -1;
    for (int i = 0; i < n; ++i) {
      if (state_[static_cast<std::size_t>(i)] != 0) continue;
      const double d = rhs_[i] - x[i];
      if (d < 0.0 && rhs_[i] < p.lb[i]) {
        const double a = (p.lb[i] - x[i]) / d;
        if (a < alpha) alpha = a, blocking = i;
      } else if (d > 0.0 && rhs_[i] > p.ub[i]) {
        const double a = (p.ub[i] - x[i]) / d;
        if (a < alpha) alpha = a, blocking = i;
      }
    }
    for (int i = 0; i < n; ++i)
      if (state_[static_cast<std::size_t>(i)] == 0) x[i] += alpha * (rhs_[i] - x[i]);
    if (blocking >= 0) {
      const double d = rhs_[blocking] - x[blocking];
      state_[static_cast<std::size_t>(blocking)] = d < 0.0 || x[blocking] <= p.lb[blocking] ? -1 : 1;
      x[blocking] = state_[static_cast<std::size_t>(blocking)] == -1 ? p.lb[blocking] : p.ub[blocking];
      ++res.iterations;
      continue;
    }
    // Multipliers of the fixed bounds: ∇ = Hx + g must push into the bound.
    treeProduct(p, parent_, x, grad_);
    grad_ += p.g;
    int release = -1;
    double worst = tol;
    for (int i = 0; i < n; ++i) {
      const signed char s = state_[static_cast<std::size_t>(i)];
      if (s == 0 || p.lb[i] == p.ub[i]) continue;
      const double wrong = s == -1 ? -grad_[i] : grad_[i];  // > 0: moving inside lowers the cost
      if (wrong > worst) worst = wrong, release = i;
    }
    if (release < 0) {
      res.status = Status::Optimal;
      break;
    }
    state_[static_cast<std::size_t>(release)] = 0;
    ++res.iterations;
  }
  has_warm_ = res.status == Status::Optimal;
  treeProduct(p, parent_, x, grad_);
  res.objective = 0.5 * x.dot(grad_) + p.g.dot(x);
  for (int i = 0; i < n; ++i) {
    if (state_[static_cast<std::size_t>(i)] != 0) ++res.active_bounds;
    res.max_violation = std::max({res.max_violation, p.lb[i] - x[i], x[i] - p.ub[i]});
  }
  return res;
}

}  // namespace kinetrack::qp
