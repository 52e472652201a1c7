#include "kinetrack/qp/qp.hpp"

namespace kinetrack::qp {

Problem::Problem(int n, int m)
    : H(MatrixXd::Zero(n, n)),
      g(VectorXd::Zero(n)),
      lb(VectorXd::Constant(n, -std::numeric_limits<double>::infinity())),
      ub(VectorXd::Constant(n, std::numeric_limits<double>::infinity())),
      A(MatrixXd::Zero(m, n)),
      lbA(VectorXd::Constant(m, -std::numeric_limits<double>::infinity())),
      ubA(VectorXd::Constant(m, std::numeric_limits<double>::infinity())) {}

const char* toString(Status s) {
  switch (s) {
    case Status::Optimal: return "optimal";
    case Status::IterationLimit: return "iteration-limit";
    case Status::Infeasible: return "infeasible";
    case Status::NotConvex: return "not-convex";
  }
  return "?";
}

}  // namespace kinetrack::qp
