#pragma once
// Ipopt (interior point, Debian coinor-libipopt) as an independent reference solver for
// kinetrack::qp problems: a TNLP with the exact (constant) Hessian and linear constraints.
#include <Eigen/Core>
#include <string>

#include "kinetrack/qp/qp.hpp"

namespace kinetrack::testing {

struct IpoptQpResult {
  bool success = false;  ///< Ipopt reported Solve_Succeeded or Solved_To_Acceptable_Level
  int status = 0;        ///< Ipopt's ApplicationReturnStatus
  Eigen::VectorXd x;     ///< (n)
  double objective = 0.0;
  Eigen::VectorXd bound_multipliers;  ///< (n), z_U − z_L: positive for an active upper bound
  Eigen::VectorXd row_multipliers;    ///< (m), Ipopt's λ: positive for an active upper side
};

/// Solves `p` with Ipopt: tol 1e-12, acceptable_tol 1e-10, mu_strategy adaptive, no bound
/// relaxation, no NLP scaling, print_level 0. ±infinity maps to Ipopt's ±1e20.
/// Identical rows are merged first (bounds intersected; multipliers reported on the first one),
/// since Ipopt needs linearly independent equality constraints.
IpoptQpResult solveWithIpopt(const qp::Problem& p);

}  // namespace kinetrack::testing
