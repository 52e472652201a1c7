// Goldfarb–Idnani dual active-set method (Goldfarb & Idnani 1983), the core of qp::Solver.
//
// The dual method starts at the unconstrained minimum x0 = −H⁻¹g (dual feasible, u = ∅) and
// repeatedly adds the most violated constraint p, moving along the primal direction z = J2 J2ᵀ n_p
// and the dual direction r = R⁻¹ J1ᵀ n_p. A "partial step" (t1) drops the active constraint whose
// multiplier reaches zero first; a "full step" (t2) makes p active. The dual objective increases
// monotonically, which ends the loop; if no step is bounded (z = 0 and no multiplier can fall)
// the constraints are inconsistent.
//
// Bounds are never formed as rows: for n_p = ±e_i, d = Jᵀ n_p is ±(row i of J).
#include "goldfarb_idnani.hpp"

#include <Eigen/Cholesky>
#include <cassert>
#include <cmath>
#include <limits>

namespace kinetrack::qp::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// n_p counts as linearly dependent on the active normals when the part of Jᵀn_p outside the
// active range is this small relative to the whole (a sine in the H⁻¹ metric).
constexpr double kDependent = 1e-10;

/// Rotates columns a and b of M: (a, b) ← (c·a + s·b, −s·a + c·b).
inline void rotateColumns(MatrixXd& M, int a, int b, double c, double s) {
  double* __restrict pa = M.col(a).data();
  double* __restrict pb = M.col(b).data();
  const Eigen::Index rows = M.rows();
  for (Eigen::Index i = 0; i < rows; ++i) {
    const double t1 = pa[i];
    const double t2 = pb[i];
    pa[i] = c * t1 + s * t2;
    pb[i] = -s * t1 + c * t2;
  }
}

/// Givens rotation with c·a + s·b = h ≥ 0 and −s·a + c·b = 0.
inline double givens(double a, double b, double& c, double& s) {
  const double h = std::sqrt(a * a + b * b);
  if (h == 0.0) {
    c = 1.0;
    s = 0.0;
  } else {
    c = a / h;
    s = b / h;
  }
  return h;
}

}  // namespace

GoldfarbIdnani::GoldfarbIdnani(int n, int m)
    : n_(n),
      m_(m),
      L_(n, n),
      J_(n, n),
      R_(MatrixXd::Zero(n, n)),
      At_(n, m),
      x_(VectorXd::Zero(n)),
      x0_(n),
      d_(n),
      z_(n),
      r_(n),
      u_(n),
      w_(n),
      row_norm_(m),
      act_(static_cast<std::size_t>(n)),
      act_eq_(static_cast<std::size_t>(n), 0),
      acc_(static_cast<std::size_t>(n), 0.0L),
      state_(static_cast<std::size_t>(n + m), 0),
      is_eq_(static_cast<std::size_t>(n + m), 0) {}

double GoldfarbIdnani::normalDot(int k, int side, const VectorXd& v) const {
  const double dot = k < n_ ? v[k] : At_.col(k - n_).dot(v);
  return side > 0 ? dot : -dot;
}

double GoldfarbIdnani::rhs(int k, int side) const {
  if (k < n_) return side > 0 ? p_->lb[k] : -p_->ub[k];
  return side > 0 ? p_->lbA[k - n_] : -p_->ubA[k - n_];
}

void GoldfarbIdnani::computeD(int k, int side) {
  if (k < n_) {
    d_ = J_.row(k).transpose();
  } else {
    d_.noalias() = J_.transpose() * At_.col(k - n_);
  }
  if (side < 0) d_ = -d_;
}

void GoldfarbIdnani::solveR(int q) {
  r_.head(q) = d_.head(q);
  R_.topLeftCorner(q, q).triangularView<Eigen::Upper>().solveInPlace(r_.head(q));
}

// Adds constraint k to the active set: Givens rotations from the bottom zero d(q+1:n) and are
// applied to the columns of J, so that Jᵀ[N n_k] = [R d(0:q+1); 0] stays upper triangular.
void GoldfarbIdnani::addActive(int k, int side, bool equality, double u) {
  for (int j = n_ - 1; j > q_; --j) {
    if (d_[j] == 0.0) continue;
    double c, s;
    d_[j - 1] = givens(d_[j - 1], d_[j], c, s);
    d_[j] = 0.0;
    rotateColumns(J_, j - 1, j, c, s);
  }
  R_.col(q_).head(q_ + 1) = d_.head(q_ + 1);
  act_[q_] = {k, side};
  act_eq_[q_] = equality ? 1 : 0;
  u_[q_] = u;
  state_[k] = static_cast<signed char>(side);
  ++q_;
}

// Drops active constraint l: delete column l of R (now upper Hessenberg from column l) and
// restore the triangle with rotations of rows (j, j+1), applied to columns (j, j+1) of J.
void GoldfarbIdnani::dropActive(int l) {
  assert(l >= 0 && l < q_);
  state_[act_[l].id] = 0;
  for (int j = l; j < q_ - 1; ++j) {
    act_[j] = act_[j + 1];
    act_eq_[j] = act_eq_[j + 1];
    u_[j] = u_[j + 1];
    R_.col(j).head(j + 2) = R_.col(j + 1).head(j + 2);
  }
  for (int j = l; j < q_ - 1; ++j) {
    double c, s;
    R_(j, j) = givens(R_(j, j), R_(j + 1, j), c, s);
    R_(j + 1, j) = 0.0;
    for (int col = j + 1; col < q_ - 1; ++col) {
      const double t1 = R_(j, col);
      const double t2 = R_(j + 1, col);
      R_(j, col) = c * t1 + s * t2;
      R_(j + 1, col) = -s * t1 + c * t2;
    }
    rotateColumns(J_, j, j + 1, c, s);
  }
  --q_;
  R_.col(q_).setZero();
}

// Minimiser over {Nᵀx = b} for the current active set:
//   x = x0 + H⁻¹N u with RᵀR u = b − Nᵀx0, hence w = R⁻ᵀ(b − Nᵀx0), x = x0 + J1 w, u = R⁻¹w.
void GoldfarbIdnani::recomputeFromActiveSet() {
  const int q = q_;
  for (int j = 0; j < q; ++j) w_[j] = rhs(act_[j].id, act_[j].side) - normalDot(act_[j].id, act_[j].side, x0_);
  R_.topLeftCorner(q, q).triangularView<Eigen::Upper>().transpose().solveInPlace(w_.head(q));
  x_ = x0_;
  x_.noalias() += J_.leftCols(q) * w_.head(q);
  u_.head(q) = w_.head(q);
  R_.topLeftCorner(q, q).triangularView<Eigen::Upper>().solveInPlace(u_.head(q));
}

// One step of iterative refinement of the equality-constrained KKT system of the active set,
//   [H −N; Nᵀ 0](x, u) = (−g, b),
// with residuals r1 = −(Hx + g − Nu), r2 = b − Nᵀx computed from the original data. With
// H⁻¹ = JJᵀ and JᵀN = [R; 0] the correction is δx = J1 R⁻ᵀ r2 + J2 J2ᵀ r1,
// δu = R⁻¹(R⁻ᵀ r2 − J1ᵀ r1). It removes the cancellation in x = x0 + J1 w when |x0| ≫ |x|
// (small damping λ makes the unconstrained minimum huge).
void GoldfarbIdnani::refine() {
  const int q = q_;
  // r1 in extended precision: with cond(H) up to ~1e8 (damping λ ~ 1e-6) a double residual
  // limits x to ~cond·eps; a long-double residual makes the refined x (nearly) independent of the
  // path taken, so warm and cold starts agree to ~1e-12.
  const MatrixXd& H = p_->H;
  for (int i = 0; i < n_; ++i) acc_[i] = p_->g[i];
  for (int j = 0; j < n_; ++j) {
    const long double xj = x_[j];
    long double sum = static_cast<long double>(H(j, j)) * xj;
    for (int i = j + 1; i < n_; ++i) {
      const long double hij = H(i, j);
      acc_[i] += hij * xj;
      sum += hij * static_cast<long double>(x_[i]);
    }
    acc_[j] += sum;
  }
  for (int j = 0; j < q; ++j) {
    const int k = act_[j].id;
    const long double su = act_[j].side > 0 ? u_[j] : -u_[j];
    if (k < n_) {
      acc_[k] -= su;
      w_[j] = rhs(k, act_[j].side) - normalDot(k, act_[j].side, x_);
    } else {
      const auto a = At_.col(k - n_);
      long double ax = 0.0L;
      for (int i = 0; i < n_; ++i) {
        acc_[i] -= su * static_cast<long double>(a[i]);
        ax += static_cast<long double>(a[i]) * x_[i];
      }
      w_[j] = static_cast<double>(act_[j].side > 0 ? p_->lbA[k - n_] - ax : ax - p_->ubA[k - n_]);
    }
  }
  for (int i = 0; i < n_; ++i) z_[i] = static_cast<double>(acc_[i]);
  z_ = -z_;                                                                                    // r1
  d_.noalias() = J_.transpose() * z_;                                                          // Jᵀ r1
  R_.topLeftCorner(q, q).triangularView<Eigen::Upper>().transpose().solveInPlace(w_.head(q));  // R⁻ᵀ r2
  x_.noalias() += J_.leftCols(q) * w_.head(q);
  x_.noalias() += J_.rightCols(n_ - q) * d_.tail(n_ - q);
  r_.head(q) = w_.head(q) - d_.head(q);
  R_.topLeftCorner(q, q).triangularView<Eigen::Upper>().solveInPlace(r_.head(q));
  u_.head(q) += r_.head(q);
}

bool GoldfarbIdnani::factor(const MatrixXd& H) {
  L_.triangularView<Eigen::Lower>() = H.triangularView<Eigen::Lower>();
  Eigen::LLT<Eigen::Ref<MatrixXd>, Eigen::Lower> llt(L_);
  if (llt.info() != Eigen::Success) return false;
  double max_diag = 0.0;
  for (int i = 0; i < n_; ++i) max_diag = std::max(max_diag, std::abs(H(i, i)));
  for (int i = 0; i < n_; ++i) {
    const double lii = L_(i, i);
    if (!(lii * lii > 1e-14 * max_diag)) return false;  // numerically singular
  }
  // J = L⁻ᵀ: column j of M = L⁻¹ by column-oriented forward substitution (contiguous axpys on
  // the nonzero part only, n³/6 flops), then J = Mᵀ in place.
  J_.setZero();
  for (int j = 0; j < n_; ++j) {
    auto y = J_.col(j);
    y[j] = 1.0;
    for (int k = j; k < n_; ++k) {
      const double yk = (y[k] /= L_(k, k));
      if (k + 1 < n_ && yk != 0.0) y.tail(n_ - k - 1).noalias() -= yk * L_.col(k).tail(n_ - k - 1);
    }
  }
  J_.transposeInPlace();
  // x0 = −H⁻¹g = −J Jᵀ g.
  w_.noalias() = J_.transpose() * p_->g;
  x0_.noalias() = -J_ * w_;
  return x0_.allFinite();
}

CoreStatus GoldfarbIdnani::solve(const Problem& p, double tol, int max_iterations, const ActiveEntry* warm,
                                 int num_warm) {
  p_ = &p;
  q_ = 0;
  iterations_ = 0;
  warm_added_ = 0;
  R_.setZero();
  std::fill(state_.begin(), state_.end(), 0);
  if (!factor(p.H)) return CoreStatus::NotConvex;
  if (m_ > 0) {
    At_ = p.A.transpose();
    for (int j = 0; j < m_; ++j) row_norm_[j] = std::max(At_.col(j).norm(), 1e-300);
  }
  for (int i = 0; i < n_; ++i) is_eq_[i] = p.lb[i] == p.ub[i];
  for (int j = 0; j < m_; ++j) is_eq_[n_ + j] = p.lbA[j] == p.ubA[j];
  x_ = x0_;

  // Equalities first, as in the paper's handling of equality constraints: a full step onto each;
  // their multipliers may take either sign and they are never dropped.
  for (int k = 0; k < n_ + m_; ++k) {
    if (!is_eq_[k]) continue;
    computeD(k, +1);
    const double d2 = d_.tail(n_ - q_).squaredNorm();
    const double residual = rhs(k, +1) - normalDot(k, +1, x_);
    if (q_ == n_ || d2 <= kDependent * kDependent * d_.squaredNorm()) {
      // Implied by the equalities already active: consistent or not.
      const double scale = k < n_ ? 1.0 : row_norm_[k - n_];
      if (std::abs(residual) > tol * scale) return CoreStatus::Infeasible;
      state_[k] = 2;
      continue;
    }
    z_.noalias() = J_.rightCols(n_ - q_) * d_.tail(n_ - q_);
    solveR(q_);
    const double t = residual / d2;
    x_ += t * z_;
    u_.head(q_) -= t * r_.head(q_);
    addActive(k, +1, true, t);
  }

  // Warm start: re-add the previous active set (in order), skipping dependent constraints, then
  // drop the most negative multiplier until the point is dual feasible — a valid start for the
  // dual method (x minimises over the active set with u ≥ 0).
  if (num_warm > 0) {
    for (int i = 0; i < num_warm && q_ < n_; ++i) {
      const int k = warm[i].id;
      const int side = warm[i].side;
      if (k < 0 || k >= n_ + m_ || state_[k] != 0 || is_eq_[k]) continue;
      if (!std::isfinite(rhs(k, side))) continue;
      computeD(k, side);
      if (d_.tail(n_ - q_).squaredNorm() <= kDependent * kDependent * d_.squaredNorm()) continue;
      addActive(k, side, false, 0.0);
      ++warm_added_;
    }
    while (warm_added_ > 0) {
      recomputeFromActiveSet();
      int l = -1;
      double most_negative = 0.0;
      for (int j = 0; j < q_; ++j) {
        if (!act_eq_[j] && u_[j] < most_negative) {
          most_negative = u_[j];
          l = j;
        }
      }
      if (l < 0) break;
      dropActive(l);
    }
  }

  bool polished = false;
  for (;;) {
    // Step 1: the most violated constraint (rows scaled by their norm); none → optimal.
    int p_id = -1, p_side = 0;
    double worst = 0.0;
    for (int i = 0; i < n_; ++i) {
      if (state_[i] != 0) continue;
      const double xi = x_[i];
      if (xi < p.lb[i] - tol) {
        if (p.lb[i] - xi > worst) worst = p.lb[i] - xi, p_id = i, p_side = +1;
      } else if (xi > p.ub[i] + tol) {
        if (xi - p.ub[i] > worst) worst = xi - p.ub[i], p_id = i, p_side = -1;
      }
    }
    for (int j = 0; j < m_; ++j) {
      const int k = n_ + j;
      if (state_[k] != 0) continue;
      const double ax = At_.col(j).dot(x_);
      if (ax < p.lbA[j] - tol) {
        const double v = (p.lbA[j] - ax) / row_norm_[j];
        if (v > worst) worst = v, p_id = k, p_side = +1;
      } else if (ax > p.ubA[j] + tol) {
        const double v = (ax - p.ubA[j]) / row_norm_[j];
        if (v > worst) worst = v, p_id = k, p_side = -1;
      }
    }
    if (p_id < 0) {
      if (polished) return CoreStatus::Optimal;
      // Recompute x and u from the final active set (removes drift accumulated along the steps,
      // and makes warm and cold starts agree to rounding), then check feasibility once more.
      recomputeFromActiveSet();
      refine();
      for (int j = 0; j < q_; ++j)
        if (!act_eq_[j]) u_[j] = std::max(u_[j], 0.0);
      polished = true;
      continue;
    }
    polished = false;

    // Step 2: move towards satisfying p, dropping blocking constraints on the way.
    double u_new = 0.0;
    for (;;) {
      if (iterations_ >= max_iterations) return CoreStatus::IterationLimit;
      computeD(p_id, p_side);
      const double d2 = d_.tail(n_ - q_).squaredNorm();
      const bool dependent = q_ == n_ || d2 <= kDependent * kDependent * d_.squaredNorm();
      if (!dependent) z_.noalias() = J_.rightCols(n_ - q_) * d_.tail(n_ - q_);
      solveR(q_);
      // Partial step: largest t keeping the active inequality multipliers u − t r ≥ 0.
      double t1 = kInf;
      int l = -1;
      for (int j = 0; j < q_; ++j) {
        if (act_eq_[j] || r_[j] <= 0.0) continue;
        const double tj = u_[j] / r_[j];
        if (tj < t1) t1 = tj, l = j;
      }
      // Full step: the step along z that makes p active.
      const double violation = rhs(p_id, p_side) - normalDot(p_id, p_side, x_);
      const double t2 = dependent ? kInf : std::max(violation, 0.0) / d2;
      if (t1 == kInf && t2 == kInf) return CoreStatus::Infeasible;
      ++iterations_;
      if (dependent) {  // dual step only: shift weight from the blocking constraint to p
        u_.head(q_) -= t1 * r_.head(q_);
        u_new += t1;
        dropActive(l);
        continue;
      }
      const double t = std::min(t1, t2);
      x_ += t * z_;
      u_.head(q_) -= t * r_.head(q_);
      u_new += t;
      if (t2 <= t1) {
        addActive(p_id, p_side, false, u_new);
        break;
      }
      dropActive(l);
    }
  }
}

}  // namespace kinetrack::qp::detail
