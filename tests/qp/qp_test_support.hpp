#pragma once
// Helpers for the QP tests: random problems shaped like the DYN IK QP (SPEC §2, Eq. 10–13) and a
// KKT check that is independent of how the solver got its answer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "kinetrack/qp/qp.hpp"

namespace kinetrack::qp::testing {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// How hard the random problem pushes against its constraints.
enum class Activity { Loose, Normal, Strong };

/// A random QP of the IK's shape: H = JᵀWJ + λI with a task Jacobian J of 12..60 rows (often
/// fewer than n, so H is only positive definite through λ ∈ [1e-6, 1e-2]; Loose: n + 12 rows), g = −JᵀW v*, bounds
/// shaped like Eq. 12–13 (tanh of the distance to a position limit times a velocity limit: tiny
/// boxes, forcing boxes with lb > 0 or ub < 0, one-sided, free, lb = ub) and m coupled-joint rows
/// (a few nonzeros, one- or two-sided, some equalities, some duplicated). A point x_f satisfying
/// every constraint is built first, so the problem is feasible.
inline Problem randomIkProblem(std::mt19937_64& rng, int n, int m, Activity activity) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  auto uni = [&](double a, double b) { return a + (b - a) * U(rng); };
  Problem p(n, m);

  // Loose problems get a full-rank task Jacobian, so the unconstrained minimum stays moderate.
  const int nt = activity == Activity::Loose ? n + 12 : 3 * std::uniform_int_distribution<int>(4, 20)(rng);
  Eigen::MatrixXd Jt(nt, n);
  for (int c = 0; c < n; ++c) {
    const double col_scale = c < 6 ? uni(0.5, 2.0) : uni(0.05, 1.0);
    for (int r = 0; r < nt; ++r) Jt(r, c) = U(rng) < 0.4 ? col_scale * N(rng) : 0.0;
  }
  Eigen::VectorXd w(nt), vstar(nt);
  const double v_scale = activity == Activity::Loose ? 0.05 : activity == Activity::Normal ? 1.0 : 5.0;
  for (int r = 0; r < nt; ++r) w[r] = uni(0.5, 10.0), vstar[r] = v_scale * N(rng);
  const double lambda = std::pow(10.0, uni(-6.0, -2.0));
  p.H = Jt.transpose() * w.asDiagonal() * Jt;
  p.H.diagonal().array() += lambda;
  p.g = -Jt.transpose() * (w.asDiagonal() * vstar);

  Eigen::VectorXd xf(n);
  for (int i = 0; i < n; ++i) {
    const double kind = U(rng);
    const double vmax = activity == Activity::Loose ? uni(50.0, 100.0) : uni(0.2, 3.0);
    if (kind < 0.08) {  // free (floating-base-like)
      xf[i] = N(rng);
    } else if (kind < 0.16) {  // one-sided
      const double v = (activity == Activity::Loose ? uni(0.5, 1.0) : uni(-0.5, 1.0)) * vmax;
      if (U(rng) < 0.5)
        p.ub[i] = v;
      else
        p.lb[i] = -v;
    } else if (kind < 0.20 && activity != Activity::Loose) {  // lb == ub: locked joint / at both limits
      p.lb[i] = p.ub[i] = U(rng) < 0.5 ? 0.0 : uni(-0.3, 0.3);
    } else if (kind < 0.27 && activity != Activity::Loose) {  // tiny box
      p.lb[i] = uni(-0.1, 0.1);
      p.ub[i] = p.lb[i] + std::pow(10.0, uni(-9.0, -4.0));
    } else {  // Eq. 12–13: tanh(k(s − s_min))·ṡ_min ≤ ṡ ≤ tanh(k(s_max − s))·ṡ_max, s may be past a limit
      const double k = uni(1.0, 20.0);
      const double smin = -uni(0.2, 2.0), smax = uni(0.2, 2.0);
      const double s = activity == Activity::Loose ? uni(0.5 * smin, 0.5 * smax) : uni(smin - 0.1, smax + 0.1);
      p.lb[i] = std::tanh(k * (s - smin)) * -vmax;
      p.ub[i] = std::tanh(k * (smax - s)) * vmax;
      if (p.lb[i] > p.ub[i]) std::swap(p.lb[i], p.ub[i]);
    }
    if (std::isfinite(p.lb[i]) && std::isfinite(p.ub[i]))
      xf[i] = uni(p.lb[i], p.ub[i]);
    else if (std::isfinite(p.lb[i]))
      xf[i] = p.lb[i] + std::abs(N(rng));
    else if (std::isfinite(p.ub[i]))
      xf[i] = p.ub[i] - std::abs(N(rng));
    else
      xf[i] = N(rng);
  }

  for (int j = 0; j < m; ++j) {
    if (j > 0 && U(rng) < 0.1) {  // duplicated coupling row, same or looser bounds
      const int src = std::uniform_int_distribution<int>(0, j - 1)(rng);
      p.A.row(j) = p.A.row(src);
      p.lbA[j] = p.lbA[src] - (U(rng) < 0.5 ? 0.0 : uni(0.0, 0.1));
      p.ubA[j] = p.ubA[src] + (U(rng) < 0.5 ? 0.0 : uni(0.0, 0.1));
      continue;
    }
    const int nnz = std::uniform_int_distribution<int>(2, 4)(rng);
    for (int e = 0; e < nnz; ++e) p.A(j, std::uniform_int_distribution<int>(6, n - 1)(rng)) = uni(-1.0, 1.0) + 0.5;
    const double ax = p.A.row(j).dot(xf);
    const double margin = activity == Activity::Loose ? 10.0 : 0.2;
    const double kind = U(rng);
    if (kind < 0.05 && activity != Activity::Loose) {
      p.lbA[j] = p.ubA[j] = ax;
    } else if (kind < 0.6) {
      p.ubA[j] = ax + uni(0.0, margin);
    } else if (kind < 0.8) {
      p.lbA[j] = ax - uni(0.0, margin);
    } else {
      p.lbA[j] = ax - uni(0.0, margin);
      p.ubA[j] = ax + uni(0.0, margin);
    }
  }
  return p;
}

/// KKT residuals of (x, λ_bounds, λ_rows) in the solver's sign convention
/// (Hx + g + λ_b + Aᵀλ_r = 0, λ > 0 only at an upper side, λ < 0 only at a lower side).
struct KktReport {
  double stationarity = 0.0;     ///< ‖Hx + g + λ_b + Aᵀλ_r‖∞ / max(1, ‖g‖∞, ‖H‖max·‖x‖∞)
  double primal = 0.0;           ///< largest bound/row violation
  double dual_sign = 0.0;        ///< largest multiplier of the wrong sign (relative to max(1, ‖λ‖∞))
  double complementarity = 0.0;  ///< largest |λ|·distance to the side it acts on (same scaling)
  [[nodiscard]] double worst() const { return std::max({stationarity, primal, dual_sign, complementarity}); }
};

inline KktReport kkt(const Problem& p, const Eigen::VectorXd& x, const Eigen::VectorXd& lb_mult,
                     const Eigen::VectorXd& row_mult) {
  KktReport r;
  const Eigen::MatrixXd H = p.H.selfadjointView<Eigen::Lower>();
  const Eigen::VectorXd grad = H * x + p.g + lb_mult + p.A.transpose() * row_mult;
  const double scale = std::max({1.0, p.g.cwiseAbs().maxCoeff(), H.cwiseAbs().maxCoeff() * x.cwiseAbs().maxCoeff()});
  r.stationarity = grad.cwiseAbs().maxCoeff() / scale;
  double mult_scale = 1.0;
  if (lb_mult.size()) mult_scale = std::max(mult_scale, lb_mult.cwiseAbs().maxCoeff());
  if (row_mult.size()) mult_scale = std::max(mult_scale, row_mult.cwiseAbs().maxCoeff());
  auto side = [&](double v, double lo, double hi, double lam) {
    r.primal = std::max({r.primal, lo - v, v - hi});
    if (lam > 0) {  // upper side
      if (hi == kInf)
        r.dual_sign = std::max(r.dual_sign, lam / mult_scale);
      else
        r.complementarity = std::max(r.complementarity, lam * std::abs(hi - v) / mult_scale);
    } else if (lam < 0) {
      if (lo == -kInf)
        r.dual_sign = std::max(r.dual_sign, -lam / mult_scale);
      else
        r.complementarity = std::max(r.complementarity, -lam * std::abs(v - lo) / mult_scale);
    }
  };
  for (int i = 0; i < x.size(); ++i) side(x[i], p.lb[i], p.ub[i], lb_mult[i]);
  const Eigen::VectorXd ax = p.A * x;
  for (int j = 0; j < ax.size(); ++j) side(ax[j], p.lbA[j], p.ubA[j], row_mult[j]);
  return r;
}

inline double objective(const Problem& p, const Eigen::VectorXd& x) {
  return 0.5 * x.dot(p.H.selfadjointView<Eigen::Lower>() * x) + p.g.dot(x);
}

}  // namespace kinetrack::qp::testing
