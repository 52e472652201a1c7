#pragma once
// Private: the Goldfarb–Idnani dual active-set core used by qp::Solver.
//
// Goldfarb & Idnani (1983), "A numerically stable dual method for solving strictly convex
// quadratic programs", Math. Programming 27. Notation follows the paper: constraints are written
// nᵀx ≥ b; H = LLᵀ; J = L⁻ᵀ·Q so that H⁻¹ = JJᵀ and Jᵀ N = [R; 0] for the matrix N of active
// normals (R upper triangular, q × q). J = [J1 J2] splits after column q.
#include <vector>

#include "kinetrack/qp/qp.hpp"

namespace kinetrack::qp::detail {

enum class CoreStatus { Optimal, IterationLimit, Infeasible, NotConvex };

/// One active constraint. id < n is the bound on x[id], id ≥ n is general row id − n.
/// side = +1 for the lower side (nᵀx ≥ b with n = +e_i / +a_j, b = lb), −1 for the upper side
/// (n = −e_i / −a_j, b = −ub). Equalities (lb == ub) are stored with side +1.
struct ActiveEntry {
  int id = 0;
  int side = 0;
};

class GoldfarbIdnani {
 public:
  GoldfarbIdnani(int n, int m);

  /// Solves `p` (sizes already checked, values finite, lb ≤ ub). `warm` lists constraints to
  /// re-add first (in order); it must not alias this object's storage. Allocation-free.
  CoreStatus solve(const Problem& p, double tol, int max_iterations, const ActiveEntry* warm, int num_warm);

  [[nodiscard]] const VectorXd& x() const { return x_; }
  [[nodiscard]] int iterations() const { return iterations_; }
  [[nodiscard]] int warmStarted() const { return warm_added_; }
  [[nodiscard]] int numActive() const { return q_; }
  [[nodiscard]] const ActiveEntry& active(int j) const { return act_[j]; }
  [[nodiscard]] bool activeIsEquality(int j) const { return act_eq_[j] != 0; }
  /// Multiplier of active constraint j in the paper's convention (u ≥ 0 for inequalities).
  [[nodiscard]] double multiplier(int j) const { return u_[j]; }

 private:
  // Constraint helpers, k in [0, n + m).
  double normalDot(int k, int side, const VectorXd& v) const;
  double rhs(int k, int side) const;
  void computeD(int k, int side);                            // d = Jᵀ n_k
  void addActive(int k, int side, bool equality, double u);  // uses d_, updates J, R
  void dropActive(int l);
  void solveR(int q);              // r(0:q) = R⁻¹ d(0:q)
  void recomputeFromActiveSet();   // x, u from the active set as equalities (w = R⁻ᵀ(b − Nᵀx0))
  void refine();                   // one iterative-refinement step of the active set's KKT system
  bool factor(const MatrixXd& H);  // L, J = L⁻ᵀ, x0 = −H⁻¹g; false if H is not PD

  int n_, m_;
  const Problem* p_ = nullptr;
  MatrixXd L_, J_, R_, At_;
  VectorXd x_, x0_, d_, z_, r_, u_, w_, row_norm_;
  std::vector<ActiveEntry> act_;
  std::vector<char> act_eq_;
  std::vector<long double> acc_;    // extended-precision residual in refine()
  std::vector<signed char> state_;  // per constraint: 0 free, ±1 active side, 2 dependent equality
  std::vector<char> is_eq_;
  int q_ = 0;
  int iterations_ = 0;
  int warm_added_ = 0;
};

}  // namespace kinetrack::qp::detail
