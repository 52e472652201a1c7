#pragma once
// Dense convex quadratic programs
//
//   minimise    ½ xᵀ H x + gᵀ x
//   subject to  lb ≤ x ≤ ub            (bounds; ±infinity for none)
//               lbA ≤ A x ≤ ubA        (general rows; ±infinity for a one-sided row)
//
// with H symmetric positive definite (the IK adds a small damping λI so it always is). This
// module knows nothing about kinematics.
#include <Eigen/Core>
#include <limits>

namespace kinetrack::qp {

using Eigen::MatrixXd;
using Eigen::VectorXd;

/// Problem data; sizes n (variables) and m (general rows) are fixed by the solver.
struct Problem {
  MatrixXd H;    ///< (n × n), symmetric positive definite; only the lower triangle is read
  VectorXd g;    ///< (n)
  VectorXd lb;   ///< (n), may hold −infinity
  VectorXd ub;   ///< (n), may hold +infinity
  MatrixXd A;    ///< (m × n)
  VectorXd lbA;  ///< (m), may hold −infinity
  VectorXd ubA;  ///< (m), may hold +infinity

  Problem() = default;
  /// Zero H, g and A; bounds and row bounds set to ∓infinity.
  Problem(int n, int m);
};

enum class Status {
  Optimal,         ///< KKT conditions hold to the tolerances
  IterationLimit,  ///< stopped at max_iterations; x is the last iterate (may violate constraints)
  Infeasible,      ///< the constraints admit no point; x satisfies the bounds and minimises
                   ///< the summed violation of the general rows (then the objective among such
                   ///< points), see Solver and Result::max_violation (> feasibility_tol)
  NotConvex,       ///< H is not positive definite (Cholesky failed or a pivot² ≤ 1e-14·max|H_ii|);
                   ///< x is left unchanged
};

const char* toString(Status s);

struct Options {
  int max_iterations = 200;        ///< active-set changes (adds and drops) per solve
  double feasibility_tol = 1e-10;  ///< constraint violation accepted as satisfied
  bool warm_start = true;          ///< start from the previous solve's active set
};

struct Result {
  Status status = Status::Optimal;
  int iterations = 0;          ///< active-set changes (adds and drops) after the warm start
  int warm_started = 0;        ///< constraints re-added from the previous active set
  int active_bounds = 0;       ///< bounds active at the solution
  int active_rows = 0;         ///< general rows active at the solution
  double objective = 0.0;      ///< ½ xᵀHx + gᵀx at the returned x
  double max_violation = 0.0;  ///< largest violation of bounds and rows at the returned x
};

/// Goldfarb–Idnani dual active-set solver (Goldfarb & Idnani 1983). All storage is sized at
/// construction; solve() does not allocate. Bounds are handled as unit normals without forming
/// rows; of each two-sided bound or row at most one side is active. lb == ub (bound or row) is an
/// equality: added first, multiplier of either sign, never dropped; an equality implied by earlier
/// ones is skipped when consistent (and makes the problem infeasible otherwise). A constraint
/// linearly dependent on the active ones is handled by the method's dual step (drop, then add).
///
/// Warm start (Options::warm_start): after an Optimal solve the active set is remembered; the
/// next solve re-adds it in order (skipping constraints now dependent, infinite or equalities),
/// then drops the most negative multiplier until all are ≥ 0, and continues the dual method from
/// there. The solution does not depend on the start (H is positive definite).
///
/// Infeasible problems: bounds alone are always consistent (lb ≤ ub is required), so a conflict
/// involves general rows. The solver then solves the elastic problem
///   min ½xᵀHx + gᵀx + ρ Σ s_j + ½μ‖s‖²  s.t. lb ≤ x ≤ ub, s ≥ 0, lbA − s ≤ Ax ≤ ubA + s
/// (ρ = 1e6·max(1, max|H_ij|, max|g_i|), μ = 1e-8·max(1, max|H_ij|)), an exact ℓ1 penalty: x
/// minimises Σ_j (violation of row j) over the box, then the objective. Row multipliers are then
/// those of the elastic rows (at most ρ in magnitude).
class Solver {
 public:
  /// Sizes all storage for n > 0 variables and m ≥ 0 general rows (throws InvalidArgument
  /// otherwise, or for a negative feasibility_tol / max_iterations).
  Solver(int n, int m, Options options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  [[nodiscard]] int numVariables() const;
  [[nodiscard]] int numRows() const;
  [[nodiscard]] const Options& options() const;

  /// Solves `problem` into x (size n). Throws InvalidArgument (kinetrack/core/errors.hpp) on
  /// wrong sizes, non-finite H (lower triangle), g or A, NaN bounds, lb = +inf, ub = −inf or
  /// lb > ub; numerical outcomes are the returned status. x is always finite on return (for
  /// NotConvex it is left unchanged).
  Result solve(const Problem& problem, Eigen::Ref<VectorXd> x);

  /// Forget the warm-start active set.
  void reset();

  /// Multipliers of the last solve: bound multipliers (n) and row multipliers (m); positive for
  /// an active upper side, negative for an active lower side, 0 when inactive.
  [[nodiscard]] const VectorXd& boundMultipliers() const;
  [[nodiscard]] const VectorXd& rowMultipliers() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace kinetrack::qp
