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
  /// not read), g, lb, ub of problem (its A, lbA, ubA must have 0 rows). x holds the result.
  /// Does not allocate. Status: Optimal, IterationLimit, NotConvex (a pivot ≤ 0).
  Result solve(const Problem& problem, Eigen::Ref<VectorXd> x);

  /// Forget the warm-start working set.
  void reset();

 private:
  bool factorize(const Problem& p);     // LᵀL of the free block (packed rows)
  void solveFree(VectorXd& rhs) const;  // rhs ← (H_FF)⁻¹ rhs on free entries
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
};

}  // namespace kinetrack::qp
