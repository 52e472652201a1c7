#include "testing/ipopt_qp.hpp"

#include <IpIpoptApplication.hpp>
#include <IpTNLP.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

namespace kinetrack::testing {
namespace {

using Ipopt::Index;
using Ipopt::Number;

double toIpopt(double v) {
  if (v == std::numeric_limits<double>::infinity()) return 1e20;
  if (v == -std::numeric_limits<double>::infinity()) return -1e20;
  return v;
}

class QpTnlp : public Ipopt::TNLP {
 public:
  QpTnlp(const qp::Problem& p, IpoptQpResult& out) : p_(p), out_(out) {}

  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac_g, Index& nnz_h_lag, IndexStyleEnum& style) override {
    n = static_cast<Index>(p_.g.size());
    m = static_cast<Index>(p_.A.rows());
    nnz_jac_g = n * m;
    nnz_h_lag = n * (n + 1) / 2;
    style = C_STYLE;
    return true;
  }
  bool get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) override {
    for (Index i = 0; i < n; ++i) x_l[i] = toIpopt(p_.lb[i]), x_u[i] = toIpopt(p_.ub[i]);
    for (Index j = 0; j < m; ++j) g_l[j] = toIpopt(p_.lbA[j]), g_u[j] = toIpopt(p_.ubA[j]);
    return true;
  }
  bool get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number*, Number*, Index, bool init_lambda,
                          Number*) override {
    if (!init_x || init_z || init_lambda) return false;
    for (Index i = 0; i < n; ++i) x[i] = 0.0;
    return true;
  }
  bool eval_f(Index n, const Number* x, bool, Number& f) override {
    Eigen::Map<const Eigen::VectorXd> xv(x, n);
    f = 0.5 * xv.dot(p_.H.selfadjointView<Eigen::Lower>() * xv) + p_.g.dot(xv);
    return true;
  }
  bool eval_grad_f(Index n, const Number* x, bool, Number* grad) override {
    Eigen::Map<const Eigen::VectorXd> xv(x, n);
    Eigen::Map<Eigen::VectorXd>(grad, n) = p_.H.selfadjointView<Eigen::Lower>() * xv + p_.g;
    return true;
  }
  bool eval_g(Index n, const Number* x, bool, Index m, Number* g) override {
    Eigen::Map<const Eigen::VectorXd> xv(x, n);
    Eigen::Map<Eigen::VectorXd>(g, m) = p_.A * xv;
    return true;
  }
  bool eval_jac_g(Index n, const Number*, bool, Index m, Index, Index* iRow, Index* jCol, Number* values) override {
    Index k = 0;
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i < n; ++i) {
        if (values == nullptr) {
          iRow[k] = j;
          jCol[k] = i;
        } else {
          values[k] = p_.A(j, i);
        }
        ++k;
      }
    return true;
  }
  bool eval_h(Index n, const Number*, bool, Number obj_factor, Index, const Number*, bool, Index, Index* iRow,
              Index* jCol, Number* values) override {
    Index k = 0;
    for (Index r = 0; r < n; ++r)
      for (Index c = 0; c <= r; ++c) {
        if (values == nullptr) {
          iRow[k] = r;
          jCol[k] = c;
        } else {
          values[k] = obj_factor * p_.H(r, c);
        }
        ++k;
      }
    return true;
  }
  void finalize_solution(Ipopt::SolverReturn, Index n, const Number* x, const Number* z_L, const Number* z_U, Index m,
                         const Number*, const Number* lambda, Number obj_value, const Ipopt::IpoptData*,
                         Ipopt::IpoptCalculatedQuantities*) override {
    out_.x = Eigen::Map<const Eigen::VectorXd>(x, n);
    out_.bound_multipliers = Eigen::Map<const Eigen::VectorXd>(z_U, n) - Eigen::Map<const Eigen::VectorXd>(z_L, n);
    out_.row_multipliers = Eigen::Map<const Eigen::VectorXd>(lambda, m);
    out_.objective = obj_value;
  }

 private:
  const qp::Problem& p_;
  IpoptQpResult& out_;
};

// Identical rows merged into one with intersected bounds: Ipopt needs linearly independent
// equality constraints (duplicated equalities make its step computation fail or stall).
qp::Problem mergeIdenticalRows(const qp::Problem& p, std::vector<int>& row_of) {
  const int m = static_cast<int>(p.A.rows());
  row_of.assign(static_cast<std::size_t>(m), -1);
  std::vector<int> keep;
  for (int j = 0; j < m; ++j) {
    for (std::size_t k = 0; k < keep.size(); ++k)
      if (p.A.row(keep[k]) == p.A.row(j)) row_of[static_cast<std::size_t>(j)] = static_cast<int>(k);
    if (row_of[static_cast<std::size_t>(j)] < 0) {
      row_of[static_cast<std::size_t>(j)] = static_cast<int>(keep.size());
      keep.push_back(j);
    }
  }
  qp::Problem merged(static_cast<int>(p.g.size()), static_cast<int>(keep.size()));
  merged.H = p.H;
  merged.g = p.g;
  merged.lb = p.lb;
  merged.ub = p.ub;
  for (int j = 0; j < m; ++j) {
    const int k = row_of[static_cast<std::size_t>(j)];
    merged.A.row(k) = p.A.row(j);
    merged.lbA[k] = std::max(merged.lbA[k], p.lbA[j]);
    merged.ubA[k] = std::min(merged.ubA[k], p.ubA[j]);
  }
  return merged;
}

}  // namespace

IpoptQpResult solveWithIpopt(const qp::Problem& original) {
  std::vector<int> row_of;
  const qp::Problem p = mergeIdenticalRows(original, row_of);
  IpoptQpResult out;
  Ipopt::SmartPtr<Ipopt::TNLP> nlp = new QpTnlp(p, out);
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
  app->Options()->SetIntegerValue("print_level", 0);
  app->Options()->SetStringValue("sb", "yes");  // no banner
  app->Options()->SetNumericValue("tol", 1e-12);
  app->Options()->SetNumericValue("acceptable_tol", 1e-10);
  app->Options()->SetIntegerValue("acceptable_iter", 5);
  app->Options()->SetNumericValue("constr_viol_tol", 1e-12);
  app->Options()->SetNumericValue("dual_inf_tol", 1e-10);
  app->Options()->SetNumericValue("compl_inf_tol", 1e-12);
  app->Options()->SetNumericValue("bound_relax_factor", 0.0);
  app->Options()->SetStringValue("nlp_scaling_method", "none");  // tolerances on the problem as posed
  app->Options()->SetStringValue("mu_strategy", "adaptive");
  app->Options()->SetNumericValue("mu_min", 1e-16);  // default 1e-11 caps accuracy on flat (λ ~ 1e-6) directions
  app->Options()->SetStringValue("hessian_constant", "yes");
  app->Options()->SetStringValue("jac_c_constant", "yes");
  app->Options()->SetStringValue("jac_d_constant", "yes");
  app->Options()->SetIntegerValue("max_iter", 3000);
  if (app->Initialize() != Ipopt::Solve_Succeeded) return out;
  const Ipopt::ApplicationReturnStatus status = app->OptimizeTNLP(nlp);
  out.status = static_cast<int>(status);
  out.success = status == Ipopt::Solve_Succeeded || status == Ipopt::Solved_To_Acceptable_Level;
  // Multipliers of merged rows go to the first of the identical rows.
  if (out.row_multipliers.size() == p.A.rows()) {
    Eigen::VectorXd lambda = Eigen::VectorXd::Zero(original.A.rows());
    std::vector<bool> seen(static_cast<std::size_t>(p.A.rows()), false);
    for (std::size_t j = 0; j < row_of.size(); ++j)
      if (!seen[static_cast<std::size_t>(row_of[j])]) {
        seen[static_cast<std::size_t>(row_of[j])] = true;
        lambda[static_cast<Eigen::Index>(j)] = out.row_multipliers[row_of[j]];
      }
    out.row_multipliers = lambda;
  }
  return out;
}

}  // namespace kinetrack::testing
