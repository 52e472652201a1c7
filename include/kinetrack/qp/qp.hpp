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
  Infeasible,      ///< the constraints admit no point; x minimises the constraint violation
                   ///< (then the objective among such points), see Result::max_violation
  NotConvex,       ///< H is not positive definite (Cholesky failed); x is left unchanged
};

const char* toString(Status s);

struct Options {
  int max_iterations = 200;          ///< active-set changes per solve
  double feasibility_tol = 1e-10;    ///< constraint violation accepted as satisfied
  bool warm_start = true;            ///< start from the previous solve's active set
};

struct Result {
  Status status = Status::Optimal;
  int iterations = 0;               ///< active-set changes
  int active_bounds = 0;            ///< bounds active at the solution
  int active_rows = 0;              ///< general rows active at the solution
  double objective = 0.0;           ///< ½ xᵀHx + gᵀx at the returned x
  double max_violation = 0.0;       ///< largest violation of bounds and rows at the returned x
};

/// Goldfarb–Idnani dual active-set solver. All storage is sized at construction; solve() does
/// not allocate. Bounds are handled as unit rows without forming them. Warm start: the
/// constraints active at the previous solution are added first.
class Solver {
 public:
  Solver(int n, int m, Options options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  [[nodiscard]] int numVariables() const;
  [[nodiscard]] int numRows() const;
  [[nodiscard]] const Options& options() const;

  /// Solves `problem` into x (size n). Throws InvalidArgument (kinetrack/core/errors.hpp) on
  /// wrong sizes, NaN data or lb > ub; numerical outcomes are the returned status.
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
