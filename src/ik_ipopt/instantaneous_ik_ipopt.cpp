#include "kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp"

#include <IpIpoptApplication.hpp>
#include <IpTNLP.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kinetrack {
namespace {

using Ipopt::Index;
using Ipopt::Number;

constexpr double kInf = std::numeric_limits<double>::infinity();

double toIpopt(double v) { return v == kInf ? 1e20 : v == -kInf ? -1e20 : v; }

// The NLP of one frame in the chart of InstantaneousIkProblem (see its header).
class WholeBodyTnlp : public Ipopt::TNLP {
 public:
  InstantaneousIkProblem* problem = nullptr;
  const InstantaneousIkOptions* options = nullptr;

  // Sized by prepare() for the problem's model.
  int n = 0, m = 0;
  std::vector<Index> jac_row, jac_col;
  std::vector<double> jac_val;
  MatrixXd H;
  VectorXd grad, lb, ub, lbA, ubA, x_eval, x_stop, x_final, ax;
  bool evaluated = false, derivatives_current = false;

  // Outcome of the last OptimizeTNLP.
  bool stopped = false, have_final = false;
  int iterations = 0;
  // Multipliers of the last successful solve (warm start of the next frame).
  bool have_multipliers = false;
  VectorXd z_l, z_u, lambda;

  void prepare(InstantaneousIkProblem& p) {
    problem = &p;
    n = p.numVariables();
    m = p.numRows();
    const MatrixXd& A = p.rowMatrix();
    jac_row.clear();
    jac_col.clear();
    jac_val.clear();
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c)
        if (A(r, c) != 0.0) {
          jac_row.push_back(r);
          jac_col.push_back(c);
          jac_val.push_back(A(r, c));
        }
    H = MatrixXd::Zero(n, n);
    grad = lb = ub = x_eval = x_stop = x_final = VectorXd::Zero(n);
    lbA = ubA = ax = VectorXd::Zero(m);
    z_l = z_u = VectorXd::Zero(n);
    lambda = VectorXd::Zero(m);
    have_multipliers = false;
  }

  void begin() {
    problem->chartBounds(lb, ub, lbA, ubA);
    evaluated = derivatives_current = stopped = have_final = false;
    iterations = 0;
  }

  // Ipopt's new_x is false when *any* callback already saw this x (eval_g may come first), so
  // staleness is tracked here: every callback with new_x invalidates the kinematics.
  void touch(bool new_x) {
    if (new_x) evaluated = derivatives_current = false;
  }
  void ensure(const Number* x, bool new_x) {
    touch(new_x);
    if (evaluated) return;
    x_eval = Eigen::Map<const VectorXd>(x, n);
    problem->evaluate(x_eval);
    evaluated = true;
    derivatives_current = false;
  }
  void ensureDerivatives() {
    if (derivatives_current) return;
    problem->derivatives(H, grad);
    derivatives_current = true;
  }

  // Limits and rows at a chart point.
  double violation(const VectorXd& x) {
    double v = 0.0;
    for (int i = 0; i < n; ++i) v = std::max({v, lb[i] - x[i], x[i] - ub[i]});
    if (m > 0) {
      ax.noalias() = problem->rowMatrix() * x;
      for (int r = 0; r < m; ++r) v = std::max({v, lbA[r] - ax[r], ax[r] - ubA[r]});
    }
    return v;
  }

  bool get_nlp_info(Index& nn, Index& mm, Index& nnz_jac_g, Index& nnz_h_lag, IndexStyleEnum& style) override {
    nn = n;
    mm = m;
    nnz_jac_g = static_cast<Index>(jac_row.size());
    nnz_h_lag = static_cast<Index>(problem->pattern().size());
    style = C_STYLE;
    return true;
  }
  bool get_bounds_info(Index, Number* x_l, Number* x_u, Index, Number* g_l, Number* g_u) override {
    for (int i = 0; i < n; ++i) x_l[i] = toIpopt(lb[i]), x_u[i] = toIpopt(ub[i]);
    for (int r = 0; r < m; ++r) g_l[r] = toIpopt(lbA[r]), g_u[r] = toIpopt(ubA[r]);
    return true;
  }
  bool get_starting_point(Index, bool init_x, Number* x, bool init_z, Number* zl, Number* zu, Index, bool init_lambda,
                          Number* lam) override {
    // x = 0 is the previous frame's solution (the chart's centre).
    if (init_x) std::fill(x, x + n, 0.0);
    if (init_z) {
      if (!have_multipliers) return false;
      for (int i = 0; i < n; ++i) zl[i] = z_l[i], zu[i] = z_u[i];
    }
    if (init_lambda) {
      if (!have_multipliers) return false;
      for (int r = 0; r < m; ++r) lam[r] = lambda[r];
    }
    return true;
  }
  bool eval_f(Index, const Number* x, bool new_x, Number& f) override {
    ensure(x, new_x);
    f = problem->evaluatedError().cost;
    return std::isfinite(f);
  }
  bool eval_grad_f(Index, const Number* x, bool new_x, Number* g) override {
    ensure(x, new_x);
    if (derivatives_current) {
      Eigen::Map<VectorXd>(g, n) = grad;
    } else {
      problem->gradient(Eigen::Map<VectorXd>(g, n));
    }
    return true;
  }
  bool eval_g(Index, const Number* x, bool new_x, Index, Number* g) override {
    touch(new_x);
    if (m > 0) Eigen::Map<VectorXd>(g, m).noalias() = problem->rowMatrix() * Eigen::Map<const VectorXd>(x, n);
    return true;
  }
  bool eval_jac_g(Index, const Number*, bool new_x, Index, Index, Index* iRow, Index* jCol, Number* values) override {
    touch(new_x);
    if (values == nullptr) {
      std::copy(jac_row.begin(), jac_row.end(), iRow);
      std::copy(jac_col.begin(), jac_col.end(), jCol);
    } else {
      std::copy(jac_val.begin(), jac_val.end(), values);
    }
    return true;
  }
  bool eval_h(Index, const Number* x, bool new_x, Number obj_factor, Index, const Number*, bool, Index, Index* iRow,
              Index* jCol, Number* values) override {
    const auto& pattern = problem->pattern();
    if (values == nullptr) {
      for (std::size_t k = 0; k < pattern.size(); ++k) {
        iRow[k] = pattern[k].first;
        jCol[k] = pattern[k].second;
      }
      return true;
    }
    ensure(x, new_x);
    ensureDerivatives();
    for (std::size_t k = 0; k < pattern.size(); ++k) values[k] = obj_factor * H(pattern[k].first, pattern[k].second);
    return true;
  }
  // Called once per iteration after the iterate is accepted and its convergence checked (which
  // evaluates there), so the last evaluated point is the current iterate. Stop when it meets
  // the pose-error tolerances inside the limits and rows.
  bool intermediate_callback(Ipopt::AlgorithmMode mode, Index iter, Number, Number, Number, Number, Number, Number,
                             Number, Number, Index, const Ipopt::IpoptData*,
                             Ipopt::IpoptCalculatedQuantities*) override {
    iterations = iter;
    if (mode != Ipopt::RegularMode || !evaluated) return true;
    const PoseError& e = problem->evaluatedError();
    if (withinTolerances(e, *options) && violation(x_eval) <= options->feasibility_tolerance) {
      x_stop = x_eval;
      stopped = true;
      return false;
    }
    return true;
  }
  void finalize_solution(Ipopt::SolverReturn status, Index, const Number* x, const Number* zl, const Number* zu, Index,
                         const Number*, const Number* lam, Number, const Ipopt::IpoptData*,
                         Ipopt::IpoptCalculatedQuantities*) override {
    if (x == nullptr) return;
    x_final = Eigen::Map<const VectorXd>(x, n);
    have_final = x_final.allFinite();
    const bool usable = status == Ipopt::SUCCESS || status == Ipopt::STOP_AT_ACCEPTABLE_POINT ||
                        status == Ipopt::USER_REQUESTED_STOP || status == Ipopt::MAXITER_EXCEEDED;
    if (usable && zl != nullptr && zu != nullptr) {
      z_l = Eigen::Map<const VectorXd>(zl, n);
      z_u = Eigen::Map<const VectorXd>(zu, n);
      if (m > 0 && lam != nullptr) lambda = Eigen::Map<const VectorXd>(lam, m);
      have_multipliers = z_l.allFinite() && z_u.allFinite() && lambda.allFinite();
    }
  }
};

class IpoptSolver final : public InstantaneousIkExternalSolver {
 public:
  IpoptSolver() : app_(IpoptApplicationFactory()), tnlp_(new WholeBodyTnlp) {
    auto o = app_->Options();
    o->SetStringValue("sb", "yes");  // no banner
    o->SetIntegerValue("print_level", 0);
    o->SetStringValue("nlp_scaling_method", "none");  // tolerances on F as posed
    o->SetNumericValue("bound_relax_factor", 0.0);    // iterates stay inside the joint limits
    o->SetNumericValue("constr_viol_tol", 1e-10);
    o->SetIntegerValue("acceptable_iter", 0);  // no early "acceptable" termination
    o->SetStringValue("jac_c_constant", "yes");
    o->SetStringValue("jac_d_constant", "yes");
    o->SetStringValue("mu_strategy", "adaptive");
    o->SetNumericValue("mu_min", 1e-14);  // default 1e-11 leaves active limits ~1e-11/z inside
    // Warm start: the previous frame's solution is (nearly) optimal; push it off the bounds by
    // little and start the barrier small.
    o->SetNumericValue("warm_start_bound_push", 1e-9);
    o->SetNumericValue("warm_start_bound_frac", 1e-9);
    o->SetNumericValue("warm_start_slack_bound_push", 1e-9);
    o->SetNumericValue("warm_start_slack_bound_frac", 1e-9);
    o->SetNumericValue("warm_start_mult_bound_push", 1e-9);
    initialized_ = app_->Initialize() == Ipopt::Solve_Succeeded;
  }

  void reset() override { tnlp_->have_multipliers = false; }

  SolveResult solve(InstantaneousIkProblem& problem, const InstantaneousIkOptions& options) override {
    SolveResult res;
    WholeBodyTnlp& t = *tnlp_;
    if (t.problem != &problem || t.n != problem.numVariables()) {
      t.prepare(problem);
      optimized_for_ = nullptr;
    }
    t.options = &options;
    const PoseError start = problem.refreshCentre();
    res.initial_cost = start.cost;
    res.evaluations = 1;
    const bool start_ok = withinTolerances(start, options) &&
                          problem.limitViolation() <= options.feasibility_tolerance &&
                          problem.rowViolation() <= options.feasibility_tolerance;
    if (!start_ok && initialized_ && options.max_iterations > 0) {
      auto o = app_->Options();
      o->SetIntegerValue("print_level", options.ipopt_print_level);
      o->SetNumericValue("tol", options.ipopt_tolerance);
      o->SetIntegerValue("max_iter", options.max_iterations);
      o->SetStringValue("hessian_approximation",
                        options.ipopt_hessian == IpoptHessian::GaussNewton ? "exact" : "limited-memory");
      const bool warm = options.ipopt_warm_start && t.have_multipliers;
      o->SetStringValue("warm_start_init_point", warm ? "yes" : "no");
      o->SetNumericValue("mu_init", warm ? 1e-9 : 0.1);
      t.begin();
      // The structure never changes for one problem: later frames reuse Ipopt's algorithm
      // objects and the linear solver's symbolic analysis.
      const Ipopt::ApplicationReturnStatus status =
          optimized_for_ == &problem ? app_->ReOptimizeTNLP(tnlp_) : app_->OptimizeTNLP(tnlp_);
      optimized_for_ = &problem;
      res.iterations = t.iterations;
      const VectorXd* x = t.stopped ? &t.x_stop : t.have_final ? &t.x_final : nullptr;
      switch (status) {
        case Ipopt::Solve_Succeeded:
        case Ipopt::Solved_To_Acceptable_Level:
        case Ipopt::User_Requested_Stop: res.status = ik::Status::Stationary; break;
        case Ipopt::Maximum_Iterations_Exceeded: res.status = ik::Status::IterationLimit; break;
        default: res.status = ik::Status::Failed; break;
      }
      if (x != nullptr) {
        // Bounds hold by construction (bound_relax_factor 0); clamp round-off anyway.
        t.x_eval = x->cwiseMax(t.lb).cwiseMin(t.ub);
        const double start_cost = start.cost;
        const PoseError& e = problem.evaluate(t.x_eval);
        ++res.evaluations;
        // After a failure keep the warm start unless the last iterate is better.
        if (std::isfinite(e.cost) && (res.status != ik::Status::Failed || e.cost <= start_cost)) problem.recentre();
      }
    } else if (!start_ok) {
      res.status = initialized_ ? ik::Status::IterationLimit : ik::Status::Failed;
    }
    const PoseError& e = problem.centreError();
    res.limit_violation = problem.limitViolation();
    res.row_violation = problem.rowViolation();
    if (withinTolerances(e, options) && res.limit_violation <= options.feasibility_tolerance &&
        res.row_violation <= options.feasibility_tolerance)
      res.status = ik::Status::Converged;
    res.cost = e.cost;
    res.max_orientation_error = e.max_orientation;
    res.max_position_error = e.max_position;
    res.mnte = e.mnte;
    return res;
  }

 private:
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app_;
  Ipopt::SmartPtr<WholeBodyTnlp> tnlp_;
  bool initialized_ = false;
  const InstantaneousIkProblem* optimized_for_ = nullptr;  // OptimizeTNLP done for this problem
};

}  // namespace

std::unique_ptr<InstantaneousIkExternalSolver> makeIpoptInstantaneousIkSolver() {
  return std::make_unique<IpoptSolver>();
}

InstantaneousIk makeInstantaneousIk(std::shared_ptr<const Model> model, InstantaneousIkOptions options) {
  if (options.backend == InstantaneousIkBackend::Ipopt)
    return InstantaneousIk(std::move(model), options, makeIpoptInstantaneousIkSolver());
  return InstantaneousIk(std::move(model), options);
}
InstantaneousIk makeInstantaneousIk(const Model& model, InstantaneousIkOptions options) {
  return makeInstantaneousIk(std::make_shared<const Model>(model), options);
}

}  // namespace kinetrack
