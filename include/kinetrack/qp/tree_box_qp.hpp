#pragma once
// Box-constrained QP with branch-induced sparsity:
//
//   minimise ½ xᵀHx + gᵀx   subject to   lb ≤ x ≤ ub,
//
// where H_ij ≠ 0 only when i and j are related in a tree over the variables given by a parent
// array (parent[i] < i, −1 for roots): the sparsity of a joint-space inertia matrix or of the IK
// Hessian Σ JᵀWJ of targets on a kinematic tree. Such an H factorises as H = LᵀL without fill-in
// (Featherstone's LTL), also after removing variables, in O(Σ depth²) instead of O(n³).
//
// Primal active-set method: the variables fixed at a bound form the working set; each
// iteration factorises the free block and either steps to its minimiser, adds the first
// blocking bound, or releases the bound with the most wrong-signed multiplier. Warm-started from
// the previous solution's working set, a slowly changing problem needs one factorisation.
//
// A few general inequality rows lbA ≤ A x ≤ ubA (e.g. DYN's collision rows) are taken by a dual
// active set on the rows around the box solver: with row multipliers λ the box QP with gradient
// g − Aᵀλ is solved as above; the rows it violates, with those already carrying a multiplier,
// form a small linear complementarity problem in their multipliers (matrix S = A_F H_FF⁻¹ A_Fᵀ
// over the free variables F, from the tree factor): Newton's step on the dual function, followed
// by a search along it (the dual rises every round). When the rows do not change the box working
// set this takes two box solves; when they keep changing it the rounds are capped (16 box
// solves) and the status says so, for a caller to fall back to the dense qp::Solver.
#include <Eigen/Core>
#include <vector>

#include "kinetrack/qp/qp.hpp"

namespace kinetrack::qp {

class TreeBoxSolver {
 public:
  /// parent: size n, parent[i] < i or −1. Throws InvalidArgument otherwise.
  TreeBoxSolver(std::vector<int> parent, Options options = {});

  [[nodiscard]] int numVariables() const { return static_cast<int>(parent_.size()); }

  /// Solves with H (lower triangle read; entries outside the tree pattern must be zero and are
  /// not read), g, lb, ub of problem and its general rows, if any: inequalities (lbA < ubA; a
  /// row with both sides infinite is ignored; an equality row throws InvalidArgument), a few
  /// (each violated one costs a solve with the tree factor and the iterations a small dense
  /// problem). x holds the result. Does not allocate once the scratch for the problem's row
  /// count exists (the first solve with m rows allocates it, or reserveRows(m)). Status:
  /// Optimal, IterationLimit (the box iterations ran out, or with rows the KKT conditions did not
  /// hold within 16 box solves), NotConvex (a pivot ≤ 0).
  Result solve(const Problem& problem, Eigen::Ref<VectorXd> x);

  /// Sizes the scratch of the row iterations for problems of up to m rows (allocates).
  void reserveRows(int m);

  /// Multipliers of the general rows at the last solve (size: its row count): positive for an
  /// active upper side, negative for an active lower side, 0 when inactive (qp::Solver's sign).
  [[nodiscard]] const VectorXd& rowMultipliers() const { return row_multipliers_; }

  /// Forget the warm-start working set.
  void reset();

 private:
  Result solveBox(const Problem& p, const VectorXd& g, Eigen::Ref<VectorXd> x);  // the box QP with gradient g
  Result solveRows(const Problem& p, Eigen::Ref<VectorXd> x);
  bool solveComplementarity(int k);         // the small LCP of the row iterations (size k)
  bool factorize(const Problem& p);         // LᵀL of the free block (packed rows)
  void solveFree(VectorXd& rhs) const;      // rhs ← (H_FF)⁻¹ rhs on free entries
  void halfSolveFree(VectorXd& rhs) const;  // rhs ← L⁻ᵀ rhs on free entries (H_FF = LᵀL)
  void product(const Problem& p, const Eigen::Ref<const VectorXd>& x, VectorXd& y) const;  // y = Hx
  std::vector<int> parent_;
  Options options_;
  // Row k of the factor holds its entries for k's free ancestors, nearest first, packed at
  // offset_[k]: the ancestors of an ancestor a_m of k are a_{m+1}, …, so each LTL update is a
  // contiguous axpy on a packed row.
  std::vector<int> offset_;                   // n + 1 offsets into the packed arrays
  std::vector<int> full_anc_;                 // all ancestors of k, nearest first (packed)
  std::vector<int> anc_;                      // free ancestors of free k (packed)
  std::vector<int> count_;                    // number of free ancestors of k
  std::vector<int> children_;                 // number of free children of k (chain detection)
  std::vector<signed char> structure_state_;  // free set the index arrays above were built for
  bool has_structure_ = false;
  std::vector<double> packed_;  // factor rows (packed)
  VectorXd diag_;               // factor diagonal
  VectorXd rhs_, step_, grad_;
  std::vector<signed char> state_;  // 0 free, −1 at lower bound, +1 at upper bound
  bool has_warm_ = false;
  // Row iterations (solveRows): multipliers λ (> 0 pushing a row up: the lower side), the
  // gradient g − Aᵀλ, the working rows with their side, Z = H_FF⁻¹ (s a)_F per working row, the
  // LCP matrix S and vectors, a Cholesky buffer.
  VectorXd lambda_, lambda_base_, direction_, g_rows_, row_value_, row_multipliers_, column_;
  std::vector<int> work_row_, work_side_, lcp_set_;
  MatrixXd Z_, S_;
  VectorXd q_, mu_, mu_trial_, lcp_rhs_;
  std::vector<double> chol_;
  bool reuse_factor_ = false;  // in the row rounds: refactorise only a new free set
  bool factor_ok_ = false;
  std::vector<signed char> factor_state_;  // the free set of the factor (row rounds)
};

}  // namespace kinetrack::qp
