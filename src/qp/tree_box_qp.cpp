#include "kinetrack/qp/tree_box_qp.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::qp {

TreeBoxSolver::TreeBoxSolver(std::vector<int> parent, Options options) : parent_(std::move(parent)), options_(options) {
  const int n = static_cast<int>(parent_.size());
  for (int i = 0; i < n; ++i)
    if (parent_[static_cast<std::size_t>(i)] >= i || parent_[static_cast<std::size_t>(i)] < -1)
      throw InvalidArgument("TreeBoxSolver: parent[" + std::to_string(i) +
                            "] = " + std::to_string(parent_[static_cast<std::size_t>(i)]) + " must be −1 or < " +
                            std::to_string(i));
  offset_.assign(static_cast<std::size_t>(n) + 1, 0);
  for (int k = 0; k < n; ++k) {
    int depth = 0;
    for (int i = parent_[static_cast<std::size_t>(k)]; i >= 0; i = parent_[static_cast<std::size_t>(i)]) ++depth;
    offset_[static_cast<std::size_t>(k) + 1] = offset_[static_cast<std::size_t>(k)] + depth;
  }
  const std::size_t total = static_cast<std::size_t>(offset_.back());
  full_anc_.resize(total);
  for (int k = 0; k < n; ++k) {
    int m = offset_[static_cast<std::size_t>(k)];
    for (int i = parent_[static_cast<std::size_t>(k)]; i >= 0; i = parent_[static_cast<std::size_t>(i)])
      full_anc_[static_cast<std::size_t>(m++)] = i;
  }
  anc_.assign(total, 0);
  packed_.assign(total, 0.0);
  count_.assign(static_cast<std::size_t>(n), 0);
  children_.assign(static_cast<std::size_t>(n), 0);
  structure_state_.assign(static_cast<std::size_t>(n), 0);
  diag_ = VectorXd::Zero(n);
  rhs_ = VectorXd::Zero(n);
  step_ = VectorXd::Zero(n);
  grad_ = VectorXd::Zero(n);
  state_.assign(static_cast<std::size_t>(n), 0);
}

void TreeBoxSolver::reset() {
  has_warm_ = false;
  std::fill(state_.begin(), state_.end(), 0);
}

// y = H x for the tree pattern (H lower triangle), O(Σ depth).
void TreeBoxSolver::product(const Problem& p, const Eigen::Ref<const VectorXd>& x, VectorXd& y) const {
  const int n = numVariables();
  for (int k = 0; k < n; ++k) y[k] = p.H(k, k) * x[k];
  for (int k = 0; k < n; ++k) {
    const double xk = x[k];
    double yk = 0.0;
    for (int m = offset_[static_cast<std::size_t>(k)]; m < offset_[static_cast<std::size_t>(k) + 1]; ++m) {
      const int i = full_anc_[static_cast<std::size_t>(m)];
      const double h = p.H(k, i);
      yk += h * x[i];
      y[i] += h * xk;
    }
    y[k] += yk;
  }
}

namespace {
// row[t] −= a·v[t]; row and v never overlap (different packed rows).
inline void axpyNegative(double* __restrict row, const double* __restrict v, double a, int len) {
  for (int t = 0; t < len; ++t) row[t] -= a * v[t];
}
}  // namespace

constexpr int kMaxChain = 4;

// diag[A_m] −= Σ_p u_p[m]², row(A_m)[t] −= Σ_p u_p[m]·u_p[m+1+t]: the rank-C update of the outer
// ancestors of a chain of C variables (u_p: the members' normalised rows restricted to A).
template <int C>
void rankUpdate(const double* const* u, const int* A, int na, double* diag, double* packed, const int* offset) {
  for (int m = 0; m < na; ++m) {
    const int i = A[m];
    double a[C];
    double dsum = 0.0;
    for (int p = 0; p < C; ++p) {
      a[p] = u[p][m];
      dsum += a[p] * a[p];
    }
    diag[i] -= dsum;
    double* __restrict r = packed + offset[i];
    const int len = na - m - 1;
    for (int t = 0; t < len; ++t) {
      double acc = 0.0;
      for (int p = 0; p < C; ++p) acc += a[p] * u[p][m + 1 + t];
      r[t] -= acc;
    }
  }
}

bool TreeBoxSolver::factorize(const Problem& p) {
  const int n = numVariables();
  double max_diag = 0.0;
  // Structure of the free block (free ancestors nearest first, free children), rebuilt only
  // when the free set changed since the last factorisation.
  if (!has_structure_ || structure_state_ != state_) {
    for (int k = 0; k < n; ++k) {
      if (state_[static_cast<std::size_t>(k)] != 0) continue;
      const int base = offset_[static_cast<std::size_t>(k)];
      int c = 0;
      for (int m = base; m < offset_[static_cast<std::size_t>(k) + 1]; ++m) {
        const int i = full_anc_[static_cast<std::size_t>(m)];
        if (state_[static_cast<std::size_t>(i)] == 0) anc_[static_cast<std::size_t>(base + c++)] = i;
      }
      count_[static_cast<std::size_t>(k)] = c;
    }
    for (int k = 0; k < n; ++k) children_[static_cast<std::size_t>(k)] = 0;
    for (int k = 0; k < n; ++k)
      if (state_[static_cast<std::size_t>(k)] == 0 && count_[static_cast<std::size_t>(k)] > 0)
        ++children_[static_cast<std::size_t>(anc_[static_cast<std::size_t>(offset_[static_cast<std::size_t>(k)])])];
    structure_state_ = state_;
    has_structure_ = true;
  }
  // Gather the free block's values.
  for (int k = 0; k < n; ++k) {
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    const int base = offset_[static_cast<std::size_t>(k)];
    const int* a = anc_.data() + base;
    double* v = packed_.data() + base;
    for (int m = 0; m < count_[static_cast<std::size_t>(k)]; ++m) v[m] = p.H(k, a[m]);
    diag_[k] = p.H(k, k);
    max_diag = std::max(max_diag, std::abs(diag_[k]));
  }
  // LTL (Featherstone, RBDA §6.3), leaves first: H = LᵀL without fill-in. Chains of up to four
  // variables (k's parent is k − 1 and has no other free child: the x→y→z joints of a spherical
  // joint, a segment chain) share their outer ancestors A; their rank-c update of A's rows is
  // applied in one pass (c products per load/store of a row entry instead of one).
  const double tiny = 1e-14 * std::max(1.0, max_diag);
  auto row = [&](int i) { return packed_.data() + offset_[static_cast<std::size_t>(i)]; };
  for (int k = n - 1; k >= 0;) {
    if (state_[static_cast<std::size_t>(k)] != 0) {
      --k;
      continue;
    }
    int c = 1;  // chain k, k − 1, …, k − c + 1
    while (c < kMaxChain) {
      const int top = k - c + 1;
      const int par = count_[static_cast<std::size_t>(top)] > 0
                          ? anc_[static_cast<std::size_t>(offset_[static_cast<std::size_t>(top)])]
                          : -1;
      if (par < 0 || par != top - 1 || children_[static_cast<std::size_t>(par)] != 1) break;
      ++c;
    }
    // Members, deepest first: finalise each row, then update the members above it (full rows).
    for (int p = 0; p < c; ++p) {
      const int x = k - p;
      if (!(diag_[x] > tiny)) return false;
      const double lxx = std::sqrt(diag_[x]);
      diag_[x] = lxx;
      const int d = count_[static_cast<std::size_t>(x)];
      double* v = row(x);
      const double inv = 1.0 / lxx;
      for (int m = 0; m < d; ++m) v[m] *= inv;
      for (int q = 0; q < c - 1 - p; ++q) {  // ancestors inside the chain: y = x − 1 − q
        const int y = x - 1 - q;
        diag_[y] -= v[q] * v[q];
        axpyNegative(row(y), v + q + 1, v[q], d - q - 1);
      }
    }
    // Rank-c update of the outer ancestors A = anc(top): member at chain position p has its
    // A-part at offset c − 1 − p of its row.
    const int top = k - c + 1;
    const int na = count_[static_cast<std::size_t>(top)];
    const int* A = anc_.data() + offset_[static_cast<std::size_t>(top)];
    const double* u[kMaxChain] = {};
    for (int p = 0; p < c; ++p) u[p] = row(k - p) + (c - 1 - p);
    switch (c) {
      case 1: rankUpdate<1>(u, A, na, diag_.data(), packed_.data(), offset_.data()); break;
      case 2: rankUpdate<2>(u, A, na, diag_.data(), packed_.data(), offset_.data()); break;
      case 3: rankUpdate<3>(u, A, na, diag_.data(), packed_.data(), offset_.data()); break;
      default: rankUpdate<4>(u, A, na, diag_.data(), packed_.data(), offset_.data()); break;
    }
    k -= c;
  }
  return true;
}

void TreeBoxSolver::solveFree(VectorXd& b) const {
  const int n = numVariables();
  // Lᵀ y = b, from the leaves up.
  for (int k = n - 1; k >= 0; --k) {
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    const double bk = b[k] / diag_[k];
    b[k] = bk;
    const double* v = packed_.data() + offset_[static_cast<std::size_t>(k)];
    const int* a = anc_.data() + offset_[static_cast<std::size_t>(k)];
    for (int m = 0; m < count_[static_cast<std::size_t>(k)]; ++m) b[a[m]] -= v[m] * bk;
  }
  // L x = y, from the roots down.
  for (int k = 0; k < n; ++k) {
    if (state_[static_cast<std::size_t>(k)] != 0) continue;
    const double* v = packed_.data() + offset_[static_cast<std::size_t>(k)];
    const int* a = anc_.data() + offset_[static_cast<std::size_t>(k)];
    double bk = b[k];
    for (int m = 0; m < count_[static_cast<std::size_t>(k)]; ++m) bk -= v[m] * b[a[m]];
    b[k] = bk / diag_[k];
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
  bool objective_known = false;
  for (int it = 0; it <= options_.max_iterations; ++it) {
    if (!factorize(p)) {
      res.status = Status::NotConvex;
      has_warm_ = false;
      break;
    }
    // Minimiser of the free block with the fixed variables at their bounds.
    int fixed = 0;
    for (int i = 0; i < n; ++i) {
      const bool f = state_[static_cast<std::size_t>(i)] != 0;
      step_[i] = f ? x[i] : 0.0;
      fixed += f;
    }
    if (fixed > 0)
      product(p, step_, rhs_);
    else
      rhs_.setZero();
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
    if (fixed == 0) {  // unconstrained minimiser: optimal, Hx = −g
      res.status = Status::Optimal;
      res.objective = 0.5 * p.g.dot(x);
      objective_known = true;
      break;
    }
    // Multipliers of the fixed bounds: ∇ = Hx + g must push into the bound.
    product(p, x, grad_);
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
      res.objective = 0.5 * x.dot(grad_ + p.g);  // ½xᵀHx + gᵀx with Hx = ∇ − g
      objective_known = true;
      break;
    }
    state_[static_cast<std::size_t>(release)] = 0;
    ++res.iterations;
  }
  has_warm_ = res.status == Status::Optimal;
  if (!objective_known) {
    product(p, x, grad_);
    res.objective = 0.5 * x.dot(grad_) + p.g.dot(x);
  }
  for (int i = 0; i < n; ++i) {
    if (state_[static_cast<std::size_t>(i)] != 0) ++res.active_bounds;
    res.max_violation = std::max({res.max_violation, p.lb[i] - x[i], x[i] - p.ub[i]});
  }
  return res;
}

}  // namespace kinetrack::qp
