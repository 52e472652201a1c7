#include "kinetrack/qp/tree_box_qp.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::qp {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

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

void TreeBoxSolver::halfSolveFree(VectorXd& b) const {
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
}

void TreeBoxSolver::solveFree(VectorXd& b) const {
  const int n = numVariables();
  halfSolveFree(b);  // Lᵀ y = b, from the leaves up
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
  const auto m = p.A.rows();
  if (m != 0 && (p.A.cols() != n || p.lbA.size() != m || p.ubA.size() != m))
    throw InvalidArgument("TreeBoxSolver: expected A with " + std::to_string(n) + " columns and lbA, ubA of size " +
                          std::to_string(m));
  for (int i = 0; i < n; ++i)
    if (std::isnan(p.lb[i]) || std::isnan(p.ub[i]) || p.lb[i] > p.ub[i] || !std::isfinite(p.g[i]))
      throw InvalidArgument("TreeBoxSolver: variable " + std::to_string(i) + ": need lb ≤ ub and finite g");
  for (Eigen::Index r = 0; r < m; ++r)
    if (std::isnan(p.lbA[r]) || std::isnan(p.ubA[r]) || p.lbA[r] >= p.ubA[r] || p.lbA[r] == kInfinity ||
        p.ubA[r] == -kInfinity)
      throw InvalidArgument("TreeBoxSolver: row " + std::to_string(r) +
                            ": need lbA < ubA (equality rows need qp::Solver), neither NaN");
  bool any_row = false;  // rows with both sides infinite (unused rows) are no rows
  for (Eigen::Index r = 0; r < m && !any_row; ++r) any_row = p.lbA[r] != -kInfinity || p.ubA[r] != kInfinity;
  if (!any_row) {
    row_multipliers_.setZero(m);  // reallocates only for a new row count
    return solveBox(p, p.g, x);
  }
  return solveRows(p, x);
}

// The box QP with gradient g (p.g, or g − Aᵀλ in the row iterations).
Result TreeBoxSolver::solveBox(const Problem& p, const VectorXd& g, Eigen::Ref<VectorXd> x) {
  const int n = numVariables();
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
  const double tol = options_.feasibility_tol * (1.0 + g.cwiseAbs().maxCoeff());
  res.status = Status::IterationLimit;
  bool objective_known = false;
  for (int it = 0; it <= options_.max_iterations; ++it) {
    if (!reuse_factor_) {
      if (!factorize(p)) {
        res.status = Status::NotConvex;
        has_warm_ = false;
        break;
      }
    } else if (!(factor_ok_ && factor_state_ == state_)) {  // row rounds: H is unchanged
      factor_ok_ = factorize(p);
      factor_state_ = state_;
      if (!factor_ok_) {
        res.status = Status::NotConvex;
        has_warm_ = false;
        break;
      }
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
    for (int i = 0; i < n; ++i) rhs_[i] = state_[static_cast<std::size_t>(i)] != 0 ? 0.0 : -(g[i] + rhs_[i]);
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
      res.objective = 0.5 * g.dot(x);
      objective_known = true;
      break;
    }
    // Multipliers of the fixed bounds: ∇ = Hx + g must push into the bound.
    product(p, x, grad_);
    grad_ += g;
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
      res.objective = 0.5 * x.dot(grad_ + g);  // ½xᵀHx + gᵀx with Hx = ∇ − g
      objective_known = true;
      break;
    }
    state_[static_cast<std::size_t>(release)] = 0;
    ++res.iterations;
  }
  has_warm_ = res.status == Status::Optimal;
  if (!objective_known) {
    product(p, x, grad_);
    res.objective = 0.5 * x.dot(grad_) + g.dot(x);
  }
  for (int i = 0; i < n; ++i) {
    if (state_[static_cast<std::size_t>(i)] != 0) ++res.active_bounds;
    res.max_violation = std::max({res.max_violation, p.lb[i] - x[i], x[i] - p.ub[i]});
  }
  return res;
}

void TreeBoxSolver::reserveRows(int m) {
  const int n = numVariables();
  if (m < 0) throw InvalidArgument("TreeBoxSolver::reserveRows: m must be ≥ 0");
  if (lambda_.size() == m && g_rows_.size() == n) return;
  lambda_ = VectorXd::Zero(m);
  lambda_base_ = VectorXd::Zero(m);
  direction_ = VectorXd::Zero(m);
  row_value_ = VectorXd::Zero(m);
  row_multipliers_ = VectorXd::Zero(m);
  g_rows_ = VectorXd::Zero(n);
  column_ = VectorXd::Zero(n);
  work_row_.assign(static_cast<std::size_t>(m), 0);
  work_side_.assign(static_cast<std::size_t>(m), 0);
  lcp_set_.assign(static_cast<std::size_t>(m), 0);
  Z_ = MatrixXd::Zero(n, m);
  S_ = MatrixXd::Zero(m, m);
  q_ = VectorXd::Zero(m);
  mu_ = VectorXd::Zero(m);
  mu_trial_ = VectorXd::Zero(m);
  lcp_rhs_ = VectorXd::Zero(m);
  chol_.assign(static_cast<std::size_t>(m) * static_cast<std::size_t>(m), 0.0);
  factor_state_.assign(static_cast<std::size_t>(n), 0);
}

// The rows of the working set W (k of them, row work_row_[w] on side work_side_[w]: +1 the
// lower bound, −1 the upper) as one-sided s·(a·x − bound) ≥ 0; with the free set fixed, their
// slacks move with μ = s·λ as slack(μ') = slack + S (μ' − μ). Finds μ' ≥ 0 with slack(μ') ≥ 0
// and μ'ᵀ slack(μ') = 0: the minimiser of ½ μᵀSμ + qᵀμ over μ ≥ 0, q = slack − Sμ (S_ and q_
// set by the caller), by the Lawson–Hanson active set (S positive semi-definite: a relative
// 1e-12 is added to its diagonal). Result in mu_. False when it does not settle.
bool TreeBoxSolver::solveComplementarity(int k) {
  double max_diag = 1.0;
  for (int i = 0; i < k; ++i) max_diag = std::max(max_diag, S_(i, i));
  const double reg = 1e-12 * max_diag;
  const double tol = options_.feasibility_tol * (1.0 + q_.head(k).cwiseAbs().maxCoeff());
  std::vector<int>& P = lcp_set_;  // passive (positive) set
  int np = 0;
  mu_.head(k).setZero();
  // z_P = −S_PP⁻¹ q_P by Cholesky on chol_ (np × np, row-major lower).
  auto solveP = [&]() -> bool {
    double* L = chol_.data();
    for (int i = 0; i < np; ++i)
      for (int j = 0; j <= i; ++j) {
        double v = S_(P[static_cast<std::size_t>(i)], P[static_cast<std::size_t>(j)]) + (i == j ? reg : 0.0);
        for (int t = 0; t < j; ++t) v -= L[i * k + t] * L[j * k + t];
        if (i == j) {
          if (!(v > 0.0)) return false;
          L[i * k + i] = std::sqrt(v);
        } else {
          L[i * k + j] = v / L[j * k + j];
        }
      }
    for (int i = 0; i < np; ++i) {  // L y = −q_P
      double v = -q_[P[static_cast<std::size_t>(i)]];
      for (int t = 0; t < i; ++t) v -= L[i * k + t] * lcp_rhs_[t];
      lcp_rhs_[i] = v / L[i * k + i];
    }
    for (int i = np - 1; i >= 0; --i) {  // Lᵀ z = y
      double v = lcp_rhs_[i];
      for (int t = i + 1; t < np; ++t) v -= L[t * k + i] * lcp_rhs_[t];
      lcp_rhs_[i] = v / L[i * k + i];
    }
    return true;
  };
  for (int outer = 0; outer < 3 * k + 10; ++outer) {
    // Most negative slack among the zero multipliers: w = −(Sμ + q).
    int best = -1;
    double best_w = tol;
    for (int i = 0; i < k; ++i) {
      bool in = false;
      for (int t = 0; t < np; ++t) in = in || P[static_cast<std::size_t>(t)] == i;
      if (in) continue;
      const double w = -(S_.row(i).head(k).dot(mu_.head(k)) + q_[i]);
      if (w > best_w) best_w = w, best = i;
    }
    if (best < 0) return true;
    P[static_cast<std::size_t>(np++)] = best;
    for (int inner = 0; inner <= k; ++inner) {
      if (!solveP()) return false;
      double alpha = 1.0;
      int leaving = -1;
      for (int t = 0; t < np; ++t)
        if (lcp_rhs_[t] <= 0.0) {
          const double mi = mu_[P[static_cast<std::size_t>(t)]];
          const double den = mi - lcp_rhs_[t];
          const double a = den > 0.0 ? mi / den : 0.0;
          if (a < alpha) alpha = a, leaving = t;
        }
      for (int t = 0; t < np; ++t) {
        double& mi = mu_[P[static_cast<std::size_t>(t)]];
        mi += alpha * (lcp_rhs_[t] - mi);
      }
      if (leaving < 0) break;
      // Drop the passive entries that reached zero.
      int kept = 0;
      for (int t = 0; t < np; ++t) {
        const int i = P[static_cast<std::size_t>(t)];
        if (t == leaving || mu_[i] <= 0.0)
          mu_[i] = 0.0;
        else
          P[static_cast<std::size_t>(kept++)] = i;
      }
      np = kept;
      if (np == 0) break;
    }
  }
  return false;
}

// Dual active set on the rows (see the header): with multipliers λ (> 0 on a row's lower side,
// < 0 on its upper side) the box QP with gradient g − Aᵀλ gives x(λ); the dual function
// θ(λ) = min_box ½xᵀHx + gᵀx − Σ λ_r (a_r·x − β_r) is concave, piecewise quadratic, with
// ∂θ/∂λ_r = −(a_r·x(λ) − β_r) (β_r the side's bound). Each round solves the complementarity
// problem of the working rows for the current free set (θ's local quadratic model: Newton's
// step), then searches along that step: the full step when θ still rises at its end, otherwise
// regula falsi on the directional derivative (θ' along the step is piecewise linear and
// non-increasing), so θ rises every round and rounds cannot cycle.
Result TreeBoxSolver::solveRows(const Problem& p, Eigen::Ref<VectorXd> x) {
  const int n = numVariables();
  const int m = static_cast<int>(p.A.rows());
  reserveRows(m);  // allocates only for a new row count
  lambda_.setZero();
  reuse_factor_ = true;  // H is fixed through the rounds: a free set factorised once is reused
  factor_ok_ = false;
  Result res;
  constexpr int kMaxBoxSolves = 16;
  int solves = 0;
  // The box QP at λ, and the row values at its solution; false when it fails.
  auto boxAtLambda = [&]() {
    g_rows_ = p.g;
    for (int r = 0; r < m; ++r)
      if (lambda_[r] != 0.0) g_rows_.noalias() -= lambda_[r] * p.A.row(r).transpose();
    const Result box = solveBox(p, g_rows_, x);
    if (solves == 0) res.warm_started = box.warm_started;
    ++solves;
    res.iterations += box.iterations;
    res.active_bounds = box.active_bounds;
    if (box.status != Status::Optimal) {
      res.status = box.status;
      return false;
    }
    for (int r = 0; r < m; ++r)
      if (p.lbA[r] != -kInfinity || p.ubA[r] != kInfinity) row_value_[r] = p.A.row(r).dot(x);
    return true;
  };
  // θ' along direction_ at the current box solution (the working rows' sides fixed).
  int k = 0;
  auto slope = [&]() {
    double d = 0.0;
    for (int w = 0; w < k; ++w) {
      const int r = work_row_[static_cast<std::size_t>(w)];
      const double beta = work_side_[static_cast<std::size_t>(w)] > 0 ? p.lbA[r] : p.ubA[r];
      d -= direction_[r] * (row_value_[r] - beta);
    }
    return d;
  };
  bool ok = boxAtLambda();
  while (ok) {
    // KKT of the rows: feasible, and a row with a multiplier at its bound.
    k = 0;
    bool optimal = true;
    for (int r = 0; r < m; ++r) {
      const double lo = p.lbA[r], hi = p.ubA[r];
      if (lo == -kInfinity && hi == kInfinity) continue;
      const double v = row_value_[r];
      const double tol_lo = options_.feasibility_tol * (1.0 + std::abs(lo));
      const double tol_hi = options_.feasibility_tol * (1.0 + std::abs(hi));
      int side = 0;
      if (lambda_[r] > 0.0) {
        side = 1;
        optimal = optimal && std::abs(v - lo) <= 1e2 * tol_lo;
      } else if (lambda_[r] < 0.0) {
        side = -1;
        optimal = optimal && std::abs(v - hi) <= 1e2 * tol_hi;
      } else if (v < lo - tol_lo) {
        side = 1;
        optimal = false;
      } else if (v > hi + tol_hi) {
        side = -1;
        optimal = false;
      }
      if (side != 0) {
        work_row_[static_cast<std::size_t>(k)] = r;
        work_side_[static_cast<std::size_t>(k)] = side;
        ++k;
      }
    }
    if (optimal) {
      res.status = Status::Optimal;
      break;
    }
    res.status = Status::IterationLimit;
    if (solves >= kMaxBoxSolves) break;
    // S = (s a)_F H_FF⁻¹ (s a)_Fᵀ = YᵀY with Y_w = L⁻ᵀ (s a_w)_F (H_FF = LᵀL; zero on fixed
    // variables): one triangular sweep per working row.
    for (int w = 0; w < k; ++w) {
      const int r = work_row_[static_cast<std::size_t>(w)];
      const double sgn = work_side_[static_cast<std::size_t>(w)];
      for (int i = 0; i < n; ++i) column_[i] = state_[static_cast<std::size_t>(i)] != 0 ? 0.0 : sgn * p.A(r, i);
      halfSolveFree(column_);
      Z_.col(w) = column_;
    }
    for (int a = 0; a < k; ++a)
      for (int b = 0; b <= a; ++b) S_(a, b) = S_(b, a) = Z_.col(a).dot(Z_.col(b));
    // q = slack − S μ, slack = s (a·x − bound), μ = s λ.
    for (int a = 0; a < k; ++a) {
      const int r = work_row_[static_cast<std::size_t>(a)];
      const double sa = work_side_[static_cast<std::size_t>(a)];
      double slack = sa * (row_value_[r] - (sa > 0 ? p.lbA[r] : p.ubA[r]));
      for (int b = 0; b < k; ++b)
        slack -= S_(a, b) * work_side_[static_cast<std::size_t>(b)] * lambda_[work_row_[static_cast<std::size_t>(b)]];
      q_[a] = slack;
    }
    if (!solveComplementarity(k)) break;
    // The step λ → λ_lcp and the search along it.
    lambda_base_ = lambda_;
    direction_.setZero();
    for (int w = 0; w < k; ++w) {
      const int r = work_row_[static_cast<std::size_t>(w)];
      direction_[r] = work_side_[static_cast<std::size_t>(w)] * mu_[w] - lambda_[r];
    }
    const double slope0 = slope();
    lambda_ = lambda_base_ + direction_;
    if (!(ok = boxAtLambda())) break;
    double t_lo = 0.0, t_hi = 1.0, s_lo = slope0, s_hi = slope();
    const double eps = 1e-9 * (1.0 + std::abs(slope0));
    for (int search = 0; search < 3 && slope0 > eps && s_hi < -eps && solves < kMaxBoxSolves; ++search) {
      const double t = t_lo + s_lo * (t_hi - t_lo) / (s_lo - s_hi);
      lambda_ = lambda_base_ + t * direction_;
      if (!(ok = boxAtLambda())) break;
      const double st = slope();
      if (st >= -eps) break;  // θ still rises here: a step up; the next round's Newton step goes on
      t_hi = t, s_hi = st;
    }
  }
  reuse_factor_ = false;
  // Figures of the whole problem at x: objective, active rows, violations, multipliers.
  product(p, x, grad_);
  res.objective = 0.5 * x.dot(grad_) + p.g.dot(x);
  res.active_rows = 0;
  res.max_violation = 0.0;
  for (int i = 0; i < n; ++i) res.max_violation = std::max({res.max_violation, p.lb[i] - x[i], x[i] - p.ub[i]});
  for (int r = 0; r < m; ++r) {
    row_multipliers_[r] = -lambda_[r];
    if (lambda_[r] != 0.0) ++res.active_rows;
    if (p.lbA[r] == -kInfinity && p.ubA[r] == kInfinity) continue;
    const double v = p.A.row(r).dot(x);
    res.max_violation = std::max({res.max_violation, p.lbA[r] - v, v - p.ubA[r]});
  }
  return res;
}

}  // namespace kinetrack::qp
